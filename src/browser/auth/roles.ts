// Database roles and what each may do, per the access matrix in the browser API decisions.
import { ForbiddenError } from '../../http/http-errors.js';
import type { Role } from '../../lib/database-roles.js';

export { ROLES, type Role } from '../../lib/database-roles.js';

const RANK: Record<Role, number> = { 'Read-Only': 0, 'Read-Write': 1, Admin: 2 };

export function hasRole(actual: Role, required: Role): boolean {
  return RANK[actual] >= RANK[required];
}

/** Throws 403 naming the missing role. */
export function assertRole(actual: Role, required: Role, action: string): void {
  if (!hasRole(actual, required)) {
    const needed = required === 'Admin' ? 'the Admin role' : 'the Read-Write or Admin role';
    throw new ForbiddenError(`Forbidden: ${action} requires ${needed} (this token has ${actual})`);
  }
}

/** A preValidation hook (before the body is validated: a role problem answers 403 before any 400) that lets only tokens with at least `required` through. */
export function requireRole(required: Role, action: string) {
  return (request: { principal?: { role: Role } }, _reply: unknown, done: (error?: Error) => void): void => {
    if (!request.principal) return done(new Error('route is missing bearer authentication'));
    try {
      assertRole(request.principal.role, required, action);
      done();
    } catch (error) {
      done(error as Error);
    }
  };
}
