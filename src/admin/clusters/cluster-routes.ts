// /api/clusters: database deployments and their operations requests, permission-checked per cluster namespace.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { NotFoundError } from '../../shared/http-errors.js';
import { COOKIE_SCHEME } from '../../shared/openapi.js';
import type { AdminContext } from '../context.js';
import { isAllowed, requirePermission } from '../permissions/permissions.js';
import type { ClusterService } from './cluster-service.js';

const tags = ['clusters'];
const security = [{ [COOKIE_SCHEME]: [] }];
const NamespaceSchema = z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a Kubernetes namespace name');
const NamespaceQuerySchema = z.object({ namespace: NamespaceSchema.optional() });
const ClusterParamsSchema = z.object({
  name: z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a cluster name'),
});

const ComponentSchema = z.object({
  name: z.string(),
  kind: z.enum(['component', 'sharding']),
  phase: z.string(),
  replicas: z.number().int(),
  shards: z.number().int().optional(),
  serviceVersion: z.string(),
  cpu: z.string(),
  memory: z.string(),
  storage: z.string(),
});
const ClusterSchema = z
  .object({
    name: z.string(),
    namespace: z.string(),
    phase: z.string(),
    topology: z.string(),
    terminationPolicy: z.string(),
    createdAt: z.string(),
    components: z.array(ComponentSchema),
  })
  .meta({ id: 'Cluster' });
const OperationSchema = z
  .object({
    name: z.string(),
    type: z.string(),
    phase: z.string(),
    progress: z.string(),
    createdAt: z.string(),
    startedAt: z.string().nullable(),
    completedAt: z.string().nullable(),
    message: z.string(),
  })
  .meta({ id: 'Operation' });
const AcceptedSchema = z.object({ operation: z.string(), operations: z.array(z.string()) });

const ComponentName = z.string().min(1).max(63);
const Quantity = z.string().min(1).max(32);
const RestartBodySchema = z.strictObject({ components: z.array(ComponentName).min(1).optional() }).nullish();
const ScaleBodySchema = z
  .strictObject({
    component: ComponentName.optional(),
    replicas: z.int().min(1, 'replicas must be at least 1').max(100).optional(),
    shards: z.int().min(1, 'shards must be at least 1').max(1024).optional(),
    cpu: Quantity.optional(),
    memory: Quantity.optional(),
  })
  .meta({ minProperties: 1 });
const ReconfigureBodySchema = z.strictObject({
  component: ComponentName.optional(),
  parameters: z
    .record(
      z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]{0,127}$/, 'must be a parameter name'),
      z.union([z.string().max(1024), z.number(), z.boolean()]).transform(String),
    )
    .meta({ minProperties: 1 }),
  /** Apply keys that are not known FalkorDB parameters too. */
  allowUnknownParameters: z.boolean().optional(),
});

/**
 * multi_cluster_mode for every cluster route (issue 15: only the list honoured it). While it is off, the cluster
 * namespace is the only one: the list shows nothing elsewhere, and a cluster or its operations elsewhere are not
 * found (404) after validation, before the permission check and any Kubernetes call.
 */
function onlyClusterNamespaceUnlessMultiCluster(context: AdminContext, clusterNamespace: string) {
  return async (request: FastifyRequest): Promise<void> => {
    const asked = (request.query as { namespace?: unknown } | undefined)?.namespace;
    if (typeof asked !== 'string' || asked === clusterNamespace) return;
    const name = (request.params as { name?: unknown } | undefined)?.name;
    if (typeof name !== 'string') return; // the list route answers an empty list itself
    if ((await context.settings.current()).features.multi_cluster_mode) return;
    throw new NotFoundError(`Cluster ${name} not found in namespace ${asked}`);
  };
}

export function clusterRoutes(
  app: FastifyInstance,
  context: AdminContext,
  clusters: ClusterService,
  clusterNamespace: string,
): void {
  void app.register(function clusterScope(scope, _options, done) {
    scope.addHook('preHandler', onlyClusterNamespaceUnlessMultiCluster(context, clusterNamespace));
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
  const accepted = (names: string[]) => ({ operation: names[0] ?? '', operations: names });

  routes.get(
    '/api/clusters',
    {
      preValidation: requirePermission('clusters', 'read', namespaceOf),
      schema: {
        operationId: 'listClusters',
        tags,
        summary: 'Database deployments (one namespace, or all with multi_cluster_mode)',
        security,
        querystring: NamespaceQuerySchema,
        response: { 200: z.object({ clusters: z.array(ClusterSchema) }) },
      },
    },
    async (request) => {
      const settings = await context.settings.current();
      const asked = request.query.namespace;
      if (!settings.features.multi_cluster_mode) {
        return {
          clusters: asked && asked !== clusterNamespace ? [] : await clusters.list({ namespace: clusterNamespace }),
        };
      }
      const found = await clusters.list(asked ? { namespace: asked } : { allNamespaces: true });
      const role = request.sessionUser!.role;
      return { clusters: found.filter((cluster) => isAllowed(role, 'clusters', 'read', cluster.namespace)) };
    },
  );

  routes.get(
    '/api/clusters/:name',
    {
      preValidation: requirePermission('clusters', 'read', namespaceOf),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'getCluster',
        tags,
        summary: 'One deployment',
        security,
        params: ClusterParamsSchema,
        querystring: NamespaceQuerySchema,
        response: { 200: z.object({ cluster: ClusterSchema }) },
      },
    },
    async (request) => ({ cluster: await clusters.get(namespaceOf(request), request.params.name) }),
  );

  routes.get(
    '/api/clusters/:name/operations',
    {
      preValidation: requirePermission('operations', 'read', namespaceOf),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'listOperations',
        tags,
        summary: 'Operations requests of a deployment, newest first',
        security,
        params: ClusterParamsSchema,
        querystring: NamespaceQuerySchema,
        response: { 200: z.object({ operations: z.array(OperationSchema) }) },
      },
    },
    async (request) => ({ operations: await clusters.listOperations(namespaceOf(request), request.params.name) }),
  );

  const mutation = {
    preValidation: requirePermission('clusters', 'update', namespaceOf),
    config: { errorResponses: [404, 409, 422] },
  };

  routes.post(
    '/api/clusters/:name/restart',
    {
      ...mutation,
      schema: {
        operationId: 'restartCluster',
        tags,
        summary: 'Restart components (all by default)',
        security,
        params: ClusterParamsSchema,
        querystring: NamespaceQuerySchema,
        body: RestartBodySchema,
        response: { 202: AcceptedSchema },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(accepted(await clusters.restart(namespaceOf(request), request.params.name, request.body?.components))),
  );

  for (const type of ['Start', 'Stop'] as const) {
    routes.post(
      `/api/clusters/:name/${type.toLowerCase()}`,
      {
        ...mutation,
        schema: {
          operationId: `${type.toLowerCase()}Cluster`,
          tags,
          summary: `${type} a deployment`,
          security,
          params: ClusterParamsSchema,
          querystring: NamespaceQuerySchema,
          response: { 202: AcceptedSchema },
        },
      },
      async (request, reply) =>
        reply.code(202).send(accepted(await clusters.startOrStop(namespaceOf(request), request.params.name, type))),
    );
  }

  routes.post(
    '/api/clusters/:name/scale',
    {
      ...mutation,
      schema: {
        operationId: 'scaleCluster',
        tags,
        summary: 'Scale replicas or shards (target counts) and/or cpu and memory',
        security,
        params: ClusterParamsSchema,
        querystring: NamespaceQuerySchema,
        body: ScaleBodySchema,
        response: { 202: AcceptedSchema },
      },
    },
    async (request, reply) =>
      reply.code(202).send(accepted(await clusters.scale(namespaceOf(request), request.params.name, request.body))),
  );

  routes.post(
    '/api/clusters/:name/reconfigure',
    {
      ...mutation,
      schema: {
        operationId: 'reconfigureCluster',
        tags,
        summary: 'Change FalkorDB parameters',
        security,
        params: ClusterParamsSchema,
        querystring: NamespaceQuerySchema,
        body: ReconfigureBodySchema,
        response: { 202: AcceptedSchema },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(accepted(await clusters.reconfigure(namespaceOf(request), request.params.name, request.body))),
  );
}
