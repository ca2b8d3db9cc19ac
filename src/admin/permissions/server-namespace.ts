// The checks of the resources kept in the server namespace (users, roles, settings, service accounts, the audit
// log): each route's permission, and the escalation rule for what a change would grant.
import type { FastifyRequest } from 'fastify';
import {
  callerRules,
  grantCheckOf,
  requirePermission,
  type Action,
  type GrantCheck,
  type Resource,
} from './permissions.js';

export function serverNamespaceChecks(resource: Resource, namespace: string) {
  const inServerNamespace = () => namespace;
  return {
    /** The route guard: `resource:action` held in the server namespace. */
    allowed: (action: Action) => requirePermission(resource, action, inServerNamespace),
    /** The escalation rule (grantCheckOf) with the rules of this request's caller. */
    grantCheck: async (request: FastifyRequest): Promise<GrantCheck> =>
      grantCheckOf(await callerRules(request), namespace),
  };
}
