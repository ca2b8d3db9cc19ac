// Permissions are (resource, action, namespace) tuples in the FalkorDB Enterprise admin API's vocabulary:
// a role holds rules `{resource, actions, namespace?}` where `*` matches any resource, action or namespace and a rule
// without a namespace holds in every namespace. Which rules a role holds is data (the RBAC store, admin/rbac): the
// shipped roles below are always there and cannot be changed; custom roles are added through /api/rbac.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError, UnauthorizedError } from '../../shared/http-errors.js';

/** The shipped (predefined) roles. */
export const ADMIN_ROLES = ['admin', 'operator', 'viewer'] as const;
export type AdminRole = (typeof ADMIN_ROLES)[number];
/** Any role a user may hold: a shipped one or a custom one from the RBAC store. */
export type RoleName = string;
export const RESOURCES = [
  'clusters',
  'clusters.backups',
  'clusters.restores',
  'users',
  'rbac',
  'admin',
  'settings',
  'system',
  'serviceaccounts',
] as const;
export type Resource = (typeof RESOURCES)[number];
export const ACTIONS = ['list', 'get', 'read', 'create', 'update', 'delete'] as const;
export type Action = (typeof ACTIONS)[number];

export interface PermissionRule {
  resource: Resource | '*';
  actions: (Action | '*')[];
  /** Absent (or `*`): every namespace. */
  namespace?: string;
}

const READS: Action[] = ['list', 'get', 'read'];

/** The shipped roles' rules (docs/decisions/rbac-as-data.md: the FalkorDB Enterprise admin API does not publish its own). */
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

export function isShippedRole(name: string): name is AdminRole {
  return (ADMIN_ROLES as readonly string[]).includes(name);
}

/** The shipped rules of a role; none for any other name (what a lookup without the RBAC store can know). */
export function shippedRulesOf(role: RoleName): readonly PermissionRule[] {
  return isShippedRole(role) ? SHIPPED_ROLE_RULES[role] : [];
}

/** Whether one of `rules` grants `action` on `resource` in `namespace`. */
export function rulesAllow(rules: readonly PermissionRule[], resource: Resource, action: Action, namespace: string) {
  return rules.some(
    (rule) =>
      (rule.resource === '*' || rule.resource === resource) &&
      (rule.actions.includes('*') || rule.actions.includes(action)) &&
      (rule.namespace === undefined || rule.namespace === '*' || rule.namespace === namespace),
  );
}

/** What rules hold, as `resource:action` strings (`*` where a rule has a wildcard), each once. */
export function permissionsOf(rules: readonly PermissionRule[]): string[] {
  return [...new Set(rules.flatMap((rule) => rule.actions.map((action) => `${rule.resource}:${action}`)))];
}

export function forbiddenMessage(resource: Resource, action: Action, namespace: string): string {
  return `Insufficient permissions for ${resource}:${action} in namespace ${namespace}`;
}

/** Every role's rules as the RBAC store holds them (admin/rbac); a role not in it holds nothing. */
export type RoleRulesTable = ReadonlyMap<RoleName, readonly PermissionRule[]>;

export interface SessionUser {
  id: string;
  role: RoleName;
}

declare module 'fastify' {
  interface FastifyRequest {
    sessionUser?: SessionUser & {
      email: string;
      name: string;
      provider: 'local' | 'alpha' | 'beta' | 'serviceaccount';
      /** Set when a service account's token authenticated the request (service-accounts/bearer.ts). */
      serviceAccount?: { id: string; name: string; tokenId: string };
    };
  }
  interface FastifyRequest {
    /**
     * The roles' rules for this request, read (when the copy is stale) as the request arrives, alongside the
     * session check; set on every session-guarded admin route by the admin plugin (admin/index.ts).
     */
    roleRules?: RoleRulesTable | Promise<RoleRulesTable>;
  }
}

/**
 * The guard every admin route declares. Without a session: 401 (before any permission question); without the
 * permission in the namespace the request concerns: 403 with the specified message (docs/decisions/rbac-as-data.md). The
 * caller's rules are read from the RBAC store (cached for SETTINGS_REFRESH_MS, dropped on every replica when
 * the roles change); a role that no longer exists holds nothing.
 */
export function requirePermission(
  resource: Resource,
  action: Action,
  namespaceOf: (request: FastifyRequest) => string,
) {
  // Callback style, not async: with the rules in memory (the usual case) the check settles without a promise.
  const guard = (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    const user = request.sessionUser;
    if (!user) return done(new UnauthorizedError('Authentication required'));
    const table = request.roleRules;
    if (!table) return done(new Error('requirePermission needs the admin plugin (roleRules is not set)'));
    if (table instanceof Promise)
      table.then((rules) => done(denial(rules, user.role, resource, action, namespaceOf(request))), done);
    else done(denial(table, user.role, resource, action, namespaceOf(request)));
  };
  return Object.assign(guard, { [PERMISSION_GUARD]: true as const });
}

function denial(
  table: RoleRulesTable,
  role: RoleName,
  resource: Resource,
  action: Action,
  namespace: string,
): ForbiddenError | undefined {
  return rulesAllow(table.get(role) ?? [], resource, action, namespace)
    ? undefined
    : new ForbiddenError(forbiddenMessage(resource, action, namespace));
}

type Hook = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;
const PERMISSION_GUARD = Symbol('permission guard');
export type PermissionGuard = Hook & { [PERMISSION_GUARD]: true };

export function isPermissionGuard(hook: unknown): hook is PermissionGuard {
  return typeof hook === 'function' && PERMISSION_GUARD in hook;
}

/**
 * An onRoute hook of the session scope: a route's requirePermission, declared as a preValidation hook (where a
 * reader looks for it), becomes the route's last onRequest hook instead, run right after the scope's session check.
 * A guarded request then passes through one hook phase, not two, and a caller without the right still gets 403
 * before its body is read or validated. The bench's "permission check" scenario is why (docs/decisions/conformance-walk.md).
 */
export function hoistPermissionGuard(route: { preValidation?: unknown; onRequest?: unknown }): void {
  const hooks = [route.preValidation].flat().filter((hook) => hook !== undefined);
  const guards = hooks.filter(isPermissionGuard);
  if (guards.length === 0) return;
  const rest = hooks.filter((hook) => !isPermissionGuard(hook));
  route.preValidation = rest.length > 0 ? rest : undefined;
  route.onRequest = [...[route.onRequest].flat().filter((hook) => hook !== undefined), ...guards];
}
