// Permissions are (resource, action, namespace) tuples in the FalkorDB Enterprise admin API's vocabulary:
// a role holds rules `{resource, actions, namespace?}` where `*` matches any resource, action or namespace and a rule
// without a namespace holds in every namespace. Which rules a role holds is data (the RBAC store, admin/rbac): the
// shipped roles below are always there and cannot be changed; custom roles are added through /api/rbac.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError, UnauthorizedError } from '../../http/http-errors.js';

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
/**
 * `escalate` is ours, not the real product's (docs/decisions/escalation-rule.md): on `rbac`, granting in roles, user
 * assignments, group mappings and password resets what the caller does not hold itself; on `clusters.restores`,
 * shaping the restore job (service account, environment, resources, prepareDataConfig). A `*` in a rule's actions
 * grants it only together with a `*` resource (the shipped `admin`), so `rbac:*` is not a way around the rule.
 */
export const ACTIONS = ['list', 'get', 'read', 'create', 'update', 'delete', 'escalate'] as const;
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

const grantsAction = (rule: PermissionRule, action: Action): boolean =>
  rule.actions.includes(action) || (rule.actions.includes('*') && (action !== 'escalate' || rule.resource === '*'));

const everyNamespace = (namespace: string | undefined) => namespace === undefined || namespace === '*';

/**
 * Whether one of `rules` grants `action` on `resource` in `namespace`; with `namespace` `*`, in every namespace
 * (only a rule for every namespace does).
 */
export function rulesAllow(rules: readonly PermissionRule[], resource: Resource, action: Action, namespace: string) {
  return rules.some(
    (rule) =>
      (rule.resource === '*' || rule.resource === resource) &&
      grantsAction(rule, action) &&
      (everyNamespace(rule.namespace) || rule.namespace === namespace),
  );
}

/** One permission a rule grants: what a role would give and its author's rules must hold (the escalation rule). */
export interface Grant {
  resource: Resource;
  action: Action;
  /** `*`: every namespace. */
  namespace: string;
}

/** Every (resource, action, namespace) `rule` grants, wildcards of resource and action spelled out. */
export function grantsOf(rule: PermissionRule): Grant[] {
  const resources = rule.resource === '*' ? RESOURCES : [rule.resource];
  const namespace = rule.namespace ?? '*';
  return resources.flatMap((resource) =>
    ACTIONS.filter((action) => grantsAction(rule, action)).map((action) => ({
      resource,
      action,
      namespace,
    })),
  );
}

/**
 * Kubernetes' escalation rule: the first permission `wanted` grants that `held` does not (undefined when `held`
 * covers all of it). A grant in every namespace is covered only by a rule for every namespace.
 */
export function firstUncovered(held: readonly PermissionRule[], wanted: readonly PermissionRule[]): Grant | undefined {
  for (const rule of wanted)
    for (const grant of grantsOf(rule))
      if (!rulesAllow(held, grant.resource, grant.action, grant.namespace)) return grant;
  return undefined;
}

/** How a grant's namespace reads in a message. */
export const namespaceText = (namespace: string) => (namespace === '*' ? 'every namespace' : `namespace ${namespace}`);

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
    /** The namespace the handler acted on when the path and query do not say it (the audit entry records it). */
    auditNamespace?: string;
  }
}

export interface GuardOptions {
  /**
   * The namespace comes from the body: the guard stays a preValidation hook (the body is parsed there, not yet
   * validated) instead of moving to onRequest, where there is no body yet. The handler checks again, with
   * `authorizerOf`, in the namespace it acts on once the body is validated.
   */
  readsBody?: boolean;
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
  options: GuardOptions = {},
) {
  // Callback style, not async: with the rules in memory (the usual case) the check settles without a promise.
  const guard = (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    const user = request.sessionUser;
    if (!user) return done(new UnauthorizedError('Authentication required'));
    const table = request.roleRules;
    if (!table) return done(new Error('requirePermission needs the admin plugin (roleRules is not set)'));
    const namespace = namespaceOf(request);
    // The namespace a body names is the one the entry records, refused or not (docs/decisions/tenancy-checks.md).
    if (options.readsBody) request.auditNamespace = namespace;
    if (table instanceof Promise)
      table.then((rules) => done(denial(rules, user.role, resource, action, namespace)), done);
    else done(denial(table, user.role, resource, action, namespace));
  };
  return options.readsBody ? guard : Object.assign(guard, { [PERMISSION_GUARD]: true as const });
}

/** A permission check a service runs where it has resolved the namespace it acts on (403 when not held). */
export type Authorize = (resource: Resource, action: Action, namespace: string) => Promise<void>;

/** The rules of the request's caller (a session-guarded admin route only). */
export async function callerRules(request: FastifyRequest): Promise<readonly PermissionRule[]> {
  const user = request.sessionUser;
  if (!user) throw new UnauthorizedError('Authentication required');
  const table = await request.roleRules;
  if (!table) throw new Error('callerRules needs the admin plugin (roleRules is not set)');
  return table.get(user.role) ?? [];
}

/** The caller's permission check, for a service that learns the namespace only from the validated request. */
export function authorizerOf(request: FastifyRequest): Authorize {
  return async (resource, action, namespace) => {
    if (!rulesAllow(await callerRules(request), resource, action, namespace))
      throw new ForbiddenError(forbiddenMessage(resource, action, namespace));
  };
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

/** Refuses (403) when `rules` would grant what the caller does not hold; `what` names the grant in the message. */
export type GrantCheck = (rules: readonly PermissionRule[], what: string) => void;

/**
 * Kubernetes' escalation rule for roles, role assignments, group mappings and password resets: what is granted must
 * be covered by the caller's own rules (namespace included), unless the caller holds `rbac:escalate` in the server
 * namespace (the shipped `admin` does; docs/admin-roles.md, "Escalation rules").
 */
export function grantCheckOf(callerRules: readonly PermissionRule[], serverNamespace: string): GrantCheck {
  const unbounded = rulesAllow(callerRules, 'rbac', 'escalate', serverNamespace);
  return (rules, what) => {
    if (unbounded) return;
    const missing = firstUncovered(callerRules, rules);
    if (missing)
      throw new ForbiddenError(
        `Insufficient permissions for ${missing.resource}:${missing.action} in ${namespaceText(missing.namespace)}: ` +
          `${what} grants it, and only what the caller holds may be granted (or with rbac:escalate in namespace ${serverNamespace})`,
      );
  };
}
