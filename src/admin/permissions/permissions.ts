// Permissions are (resource, action, namespace) tuples in the real product's vocabulary (REAL-PRODUCT-FACTS.md §1.8):
// a role holds rules `{resource, actions, namespace?}` where `*` matches any resource or action and a rule without
// a namespace holds in every namespace.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError, UnauthorizedError } from '../../shared/http-errors.js';

export const ADMIN_ROLES = ['admin', 'operator', 'viewer'] as const;
export type AdminRole = (typeof ADMIN_ROLES)[number];
export const RESOURCES = [
  'clusters',
  'clusters.backups',
  'clusters.restores',
  'users',
  'rbac',
  'admin',
  'settings',
  'system',
] as const;
export type Resource = (typeof RESOURCES)[number];
export const ACTIONS = ['list', 'get', 'read', 'create', 'update', 'delete'] as const;
export type Action = (typeof ACTIONS)[number];

export interface PermissionRule {
  resource: Resource | '*';
  actions: (Action | '*')[];
  /** Absent: every namespace. */
  namespace?: string;
}

const READS: Action[] = ['list', 'get', 'read'];

/** The shipped roles' rules (docs/decisions.md: the real product does not publish its own). */
export const SHIPPED_ROLE_RULES: Record<AdminRole, PermissionRule[]> = {
  admin: [{ resource: '*', actions: ['*'] }],
  operator: [
    { resource: 'clusters', actions: ['*'] },
    { resource: 'clusters.backups', actions: ['*'] },
    { resource: 'clusters.restores', actions: ['*'] },
    { resource: 'settings', actions: READS },
    { resource: 'system', actions: READS },
  ],
  viewer: [
    { resource: 'clusters', actions: READS },
    { resource: 'clusters.backups', actions: READS },
    { resource: 'clusters.restores', actions: READS },
    { resource: 'system', actions: READS },
  ],
};

/** Whether one of `rules` grants `action` on `resource` in `namespace`. */
export function rulesAllow(rules: readonly PermissionRule[], resource: Resource, action: Action, namespace: string) {
  return rules.some(
    (rule) =>
      (rule.resource === '*' || rule.resource === resource) &&
      (rule.actions.includes('*') || rule.actions.includes(action)) &&
      (rule.namespace === undefined || rule.namespace === '*' || rule.namespace === namespace),
  );
}

/** What a role holds, as `resource:action` strings (`*` where a rule has a wildcard). */
export function permissionsOf(role: AdminRole): string[] {
  return SHIPPED_ROLE_RULES[role].flatMap((rule) => rule.actions.map((action) => `${rule.resource}:${action}`));
}

export function isAllowed(role: AdminRole, resource: Resource, action: Action, namespace: string): boolean {
  return rulesAllow(SHIPPED_ROLE_RULES[role], resource, action, namespace);
}

export function forbiddenMessage(resource: Resource, action: Action, namespace: string): string {
  return `Insufficient permissions for ${resource}:${action} in namespace ${namespace}`;
}

export interface SessionUser {
  id: string;
  role: AdminRole;
}

declare module 'fastify' {
  interface FastifyRequest {
    sessionUser?: SessionUser & { email: string; name: string; provider: 'local' | 'alpha' | 'beta' };
  }
}

/**
 * The guard every admin route declares. Without a session: 401 (before any permission question);
 * without the permission in the namespace the request concerns: 403 with the specified message (docs/decisions.md).
 */
export function requirePermission(
  resource: Resource,
  action: Action,
  namespaceOf: (request: FastifyRequest) => string,
) {
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    const user = request.sessionUser;
    if (!user) return done(new UnauthorizedError('Authentication required'));
    const namespace = namespaceOf(request);
    if (!isAllowed(user.role, resource, action, namespace))
      return done(new ForbiddenError(forbiddenMessage(resource, action, namespace)));
    done();
  };
}
