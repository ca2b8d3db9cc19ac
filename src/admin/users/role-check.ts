// The one place that decides whether a role name may be given to a user (create, update). Today the shipped three;
// when roles become data (the RBAC store), this is the function to widen.
import { BadRequestError } from '../../shared/http-errors.js';
import { ADMIN_ROLES, type AdminRole } from '../permissions/permissions.js';

/** The role a request names, or 400 `Unknown role <name>`. */
export function knownRole(role: string): AdminRole {
  if (!(ADMIN_ROLES as readonly string[]).includes(role))
    throw new BadRequestError(`Unknown role ${role}; known roles: ${ADMIN_ROLES.join(', ')}`);
  return role as AdminRole;
}
