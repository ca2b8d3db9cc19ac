// /api/clusters: database deployments, permission-checked per cluster namespace (their day-2 operations: ../operations).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AdminContext } from '../context.js';
import { requirePermission } from '../permissions/permissions.js';
import type { ClusterService } from './cluster-service.js';
import { ClusterEnvelopeSchema, ClusterListSchema, ClusterParamsSchema, NamespaceQuerySchema } from './schemas.js';

const tags = ['clusters'];
/**
 * multi_cluster_mode for every cluster route (issue 15: only the list honoured it). While it is off, the cluster
 * namespace is the only one: the list shows nothing elsewhere, and a cluster or its operations elsewhere are not
 * found (404) after validation, before the permission check and any Kubernetes call.
 */
function onlyClusterNamespaceUnlessMultiCluster(clusters: ClusterService) {
  return async (request: FastifyRequest): Promise<void> => {
    const asked = (request.query as { namespace?: unknown } | undefined)?.namespace;
    const name = (request.params as { name?: unknown } | undefined)?.name;
    // The list route answers an empty list itself.
    if (typeof asked === 'string' && typeof name === 'string') await clusters.assertNamespaceInScope(asked, name);
  };
}

export function clusterRoutes(
  app: FastifyInstance,
  context: AdminContext,
  clusters: ClusterService,
  clusterNamespace: string,
): void {
  void app.register(function clusterScope(scope, _options, done) {
    scope.addHook('preHandler', onlyClusterNamespaceUnlessMultiCluster(clusters));
    clusterScopeRoutes(scope, context, clusters, clusterNamespace);
    done();
  });
}

function clusterScopeRoutes(
  app: FastifyInstance,
  context: AdminContext,
  clusters: ClusterService,
  clusterNamespace: string,
): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  // Permissions are checked before validation (403 before 400), so the query is still raw here: a repeated or odd
  // `namespace` is judged as the default namespace now and refused by the schema next.
  const namespaceOf = (request: FastifyRequest) => {
    const given = (request.query as { namespace?: unknown }).namespace;
    return typeof given === 'string' && given !== '' ? given : clusterNamespace;
  };

  routes.get(
    '/api/clusters',
    {
      preValidation: requirePermission('clusters', 'list', namespaceOf),
      schema: {
        operationId: 'listClusters',
        tags,
        summary: 'Database deployments (one namespace, or all with multi_cluster_mode)',
        querystring: NamespaceQuerySchema,
        response: { 200: ClusterListSchema },
      },
    },
    async (request) => ({ clusters: await clusters.listVisible(request.sessionUser!.role, request.query.namespace) }),
  );

  routes.get(
    '/api/clusters/:name',
    {
      preValidation: requirePermission('clusters', 'get', namespaceOf),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'getCluster',
        tags,
        summary: 'One deployment',
        params: ClusterParamsSchema,
        querystring: NamespaceQuerySchema,
        response: { 200: ClusterEnvelopeSchema },
      },
    },
    async (request) => ({ cluster: await clusters.get(namespaceOf(request), request.params.name) }),
  );
}
