// GET /api/audit/ (permission admin:list), GET /api/users/me/activity (any session, own entries only) and
// GET /api/clusters/{clusterName}/events (clusters:get in the cluster's namespace).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ClusterService } from '../clusters/cluster-service.js';
import { requirePermission } from '../permissions/permissions.js';
import { serverNamespaceChecks } from '../permissions/server-namespace.js';
import type { AuditService } from './audit-service.js';
import {
  ActivityListSchema,
  ActivityQuerySchema,
  AuditLogSchema,
  AuditQuerySchema,
  ClusterEventsParamsSchema,
  ClusterEventsQuerySchema,
  toActivityView,
  toAuditView,
} from './schemas.js';

/**
 * What the audit routes call: the audit log, the deployments (whether one a history names exists), the server's
 * namespace (where the whole log's permission is checked) and the cluster namespace (a request naming none).
 */
export interface AuditRouteDeps {
  audit: AuditService;
  clusters: Pick<ClusterService, 'assertNamespaceInScope' | 'get'>;
  namespace: string;
  clusterNamespace: string;
}

export function auditRoutes(
  scope: FastifyInstance,
  { audit, clusters, namespace, clusterNamespace }: AuditRouteDeps,
): void {
  const routes = scope.withTypeProvider<ZodTypeProvider>();
  const { allowed } = serverNamespaceChecks('admin', namespace);
  // Checked before validation (403 before 400), as the cluster routes do: the query is still raw here.
  const clusterNamespaceOf = (request: FastifyRequest) => {
    const given = (request.query as { namespace?: unknown }).namespace;
    return typeof given === 'string' && given !== '' ? given : clusterNamespace;
  };

  routes.get(
    '/api/audit/',
    {
      preValidation: allowed('list'),
      schema: {
        operationId: 'listAuditLogs',
        tags: ['audit'],
        summary: 'Query the audit log, newest first',
        description:
          'Every mutating admin call and every sign-in, failed or not, of every replica. Filters combine (all must ' +
          'hold); `startDate` and `endDate` bound the time, inclusive. Bodies, passwords, tokens and cookies are ' +
          'never recorded. Needs the permission `admin:list`.',
        querystring: AuditQuerySchema,
        response: { 200: AuditLogSchema },
      },
    },
    async (request) => {
      const { entries, total } = await audit.list(request.query);
      return { logs: entries.map(toAuditView), total, limit: request.query.limit, offset: request.query.offset };
    },
  );

  routes.get(
    '/api/users/me/activity',
    {
      schema: {
        operationId: 'getMyActivity',
        tags: ['audit'],
        summary: "The signed-in user's own audit entries, newest first",
        description: 'What the audit log recorded with the signed-in user as the actor (sign-ins included).',
        querystring: ActivityQuerySchema,
        response: { 200: ActivityListSchema },
      },
    },
    async (request) => {
      const { entries, total } = await audit.activityOf(request.sessionUser!.email, request.query);
      return {
        activities: entries.map(toActivityView),
        total,
        limit: request.query.limit,
        offset: request.query.offset,
      };
    },
  );

  routes.get(
    '/api/clusters/:clusterName/events',
    {
      preValidation: requirePermission('clusters', 'get', clusterNamespaceOf),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'listClusterEvents',
        tags: ['Clusters'],
        summary: "The audit log's entries about one deployment, newest first",
        description:
          'Calls on the deployment and on what belongs to it (operations, backups, restores), by anyone. A ' +
          'deployment that no longer exists still shows its history; one that never had any and does not exist is ' +
          'not found (404), as is one outside the cluster namespace while multi_cluster_mode is off.',
        params: ClusterEventsParamsSchema,
        querystring: ClusterEventsQuerySchema,
        response: { 200: AuditLogSchema },
      },
    },
    async (request) => {
      const { clusterName: name } = request.params;
      const { namespace, limit, offset } = request.query;
      await clusters.assertNamespaceInScope(namespace, name);
      const { entries, total } = await audit.eventsOf(namespace, name, { limit, offset });
      if (total === 0) await clusters.get(namespace, name);
      return { logs: entries.map(toAuditView), total, limit, offset };
    },
  );
}
