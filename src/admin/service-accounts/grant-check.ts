// "No caller grants more than it holds" (Kubernetes' escalation rule) for service accounts: giving an account a
// role, acting on an account (its role, tokens, deletion) and minting a token for it each need every permission the
// role grants. One function, so the users' and roles' checks can share it.
import type { FastifyRequest } from 'fastify';
import { ForbiddenError, UnauthorizedError } from '../../shared/http-errors.js';
import {
  ACTIONS,
  RESOURCES,
  rulesAllow,
  type Action,
  type PermissionRule,
  type Resource,
} from '../permissions/permissions.js';

/** Throws 403 naming the first permission `wanted` grants that the caller does not hold; `what` names the grant. */
export type GrantCheck = (wanted: readonly PermissionRule[], what: string) => void;

interface Grant {
  resource: Resource;
  action: Action;
  /** `*`: every namespace. */
  namespace: string;
}

function grantsOf(rule: PermissionRule): Grant[] {
  const resources = rule.resource === '*' ? RESOURCES : [rule.resource];
  const actions = rule.actions.includes('*') ? ACTIONS : rule.actions.filter((action) => action !== '*');
  const namespace = rule.namespace === undefined ? '*' : rule.namespace;
  return resources.flatMap((resource) => actions.map((action) => ({ resource, action, namespace })));
}

/** The first permission of `wanted` that `held` does not cover (a grant in every namespace needs one in every). */
export function firstUncovered(held: readonly PermissionRule[], wanted: readonly PermissionRule[]): Grant | undefined {
  for (const rule of wanted)
    for (const grant of grantsOf(rule))
      if (!rulesAllow(held, grant.resource, grant.action, grant.namespace)) return grant;
  return undefined;
}

export function grantCheckOf(held: readonly PermissionRule[]): GrantCheck {
  return (wanted, what) => {
    const missing = firstUncovered(held, wanted);
    if (!missing) return;
    const where = missing.namespace === '*' ? 'every namespace' : `namespace ${missing.namespace}`;
    throw new ForbiddenError(
      `Cannot grant ${what}: it includes ${missing.resource}:${missing.action} in ${where}, which you do not hold`,
    );
  };
}

/** The rules the caller holds (its session's or token's role), as the request's permission guard read them. */
export async function callerRules(request: FastifyRequest): Promise<readonly PermissionRule[]> {
  const caller = request.sessionUser;
  if (!caller || !request.roleRules) throw new UnauthorizedError('Authentication required');
  return (await request.roleRules).get(caller.role) ?? [];
}
