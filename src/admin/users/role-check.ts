// The one place that decides whether a role name may be given to a user (create, update): a predefined role or a
// custom one of the RBAC store (admin/rbac), as the role lookup given to the user service says.
import { BadRequestError } from '../../http/http-errors.js';
import { isShippedRole, type RoleName } from '../permissions/permissions.js';

/** Whether a role of that exact name exists now (context.rbac.roleExists; the shipped three by default). */
export type RoleLookup = (name: string) => Promise<boolean>;

export const shippedRoleExists: RoleLookup = (name) => Promise.resolve(isShippedRole(name));

/** The role a request names, or 400 `Unknown role <name>`. */
export async function knownRole(role: string, exists: RoleLookup): Promise<RoleName> {
  if (!(await exists(role)))
    throw new BadRequestError(`Unknown role ${role}; the roles are listed by GET /api/rbac/roles`);
  return role;
}
