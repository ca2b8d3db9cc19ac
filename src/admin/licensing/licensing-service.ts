// This server needs no licence: licensing is `disabled` (the FalkorDB Enterprise admin API's state for "no enforcement"; writes
// allowed), every limit is unlimited, and activation is refused as pointless (docs/decisions/system-diagnostics-licensing.md).
import type { z } from 'zod';
import { UnprocessableError } from '../../http/http-errors.js';
import type { ClusterService } from '../clusters/cluster-service.js';
import type { RoleName } from '../permissions/permissions.js';
import { requestedResources } from '../system/quantities.js';
import type { UserService } from '../users/user-service.js';
import type { LicenseStatusSchema } from './schemas.js';

export const NO_LICENCE_NEEDED =
  'This server needs no licence: licensing is disabled and nothing is limited, so there is nothing to activate';
const GIB = 2 ** 30;

export function createLicensingService(deps: { users: UserService; clusters: ClusterService }) {
  return {
    async status(role: RoleName): Promise<z.input<typeof LicenseStatusSchema>> {
      const [users, deployments] = await Promise.all([deps.users.list(), deps.clusters.listVisible(role, undefined)]);
      const requested = requestedResources(deployments);
      return {
        state: 'disabled',
        message: 'No licence is needed: this edition has no limits and no expiry',
        edition: 'community',
        limits: { cpuCores: 'unlimited', memoryGB: 'unlimited', deployments: 'unlimited', users: 'unlimited' },
        usage: {
          cpuCores: requested.cpu,
          memoryGB: Math.round((requested.memory / GIB) * 100) / 100,
          deployments: deployments.length,
          users: users.length,
        },
        violations: [],
      };
    },

    activate(): never {
      throw new UnprocessableError(NO_LICENCE_NEEDED);
    },
  };
}

export type LicensingService = ReturnType<typeof createLicensingService>;
