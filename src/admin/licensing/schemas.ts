// Licensing in the FalkorDB Enterprise admin API's shapes (LicenseStatus, LicenseLimits). This server needs no licence.
import { z } from 'zod';

const Limit = z.union([z.number().min(0), z.literal('unlimited')]);
export const LicenseLimitsSchema = z.object({
  cpuCores: Limit.meta({ description: 'CPU cores (requested by the deployments)' }),
  memoryGB: Limit.meta({ description: 'Memory in GB (requested by the deployments)' }),
  deployments: Limit.meta({ description: 'Deployments' }),
  users: Limit.meta({ description: 'Admin users' }),
});

export const LicenseStatusSchema = z
  .object({
    state: z
      .enum(['trial', 'active', 'expired', 'invalid', 'locked', 'disabled'])
      .meta({ description: 'The licence state; always `disabled` here (no licence is needed)' }),
    message: z.string().meta({ description: 'The state in words' }),
    limits: LicenseLimitsSchema.meta({ description: 'What the licence allows; every limit `unlimited` here' }),
    usage: LicenseLimitsSchema.meta({ description: 'What is in use now' }),
    violations: z.array(z.string()).meta({ description: 'Limits exceeded; always empty here' }),
    edition: z.string().meta({
      description: 'Not a field of the FalkorDB Enterprise admin API: the edition serving the API (`community`)',
    }),
  })
  .meta({
    examples: [
      {
        state: 'disabled',
        message: 'No licence is needed: this edition has no limits and no expiry',
        limits: { cpuCores: 'unlimited', memoryGB: 'unlimited', deployments: 'unlimited', users: 'unlimited' },
        usage: { cpuCores: 2, memoryGB: 4, deployments: 1, users: 3 },
        violations: [],
        edition: 'community',
      },
    ],
  });

export const ActivateBodySchema = z
  .object({ license: z.string().min(1).max(65_536).meta({ description: 'The licence key' }) })
  .meta({ examples: [{ license: 'FDB-LIC-0123456789ABCDEF' }] });
