// Licensing in the FalkorDB Enterprise admin API's shapes (LicenseStatus, LicenseLimits). This server needs no licence.
import { z } from 'zod';

const Limit = z.union([z.number().min(0), z.literal('unlimited')]);
export const LicenseLimitsSchema = z.object({ cpuCores: Limit, memoryGB: Limit, deployments: Limit, users: Limit });

export const LicenseStatusSchema = z.object({
  state: z.enum(['trial', 'active', 'expired', 'invalid', 'locked', 'disabled']),
  message: z.string(),
  limits: LicenseLimitsSchema,
  usage: LicenseLimitsSchema,
  violations: z.array(z.string()),
  /** Not a field of the FalkorDB Enterprise admin API: the edition serving the API (`community`). */
  edition: z.string(),
});

export const ActivateBodySchema = z.object({ license: z.string().min(1).max(65_536) });
