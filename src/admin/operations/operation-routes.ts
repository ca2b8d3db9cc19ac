// /api/clusters/{clusterName}/ops…: day-2 operations at the FalkorDB Enterprise admin API's paths, permission-checked in the
// cluster's namespace (`clusters:update` to request or cancel, `get`/`list` to read, `delete` to delete).
import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify';
import { inDeploymentScope, namespaceOfRequest } from '../clusters/cluster-scope.js';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ClusterService } from '../clusters/cluster-service.js';
import { requirePermission } from '../permissions/permissions.js';
import type { OperationService, OpsAccepted } from './operation-service.js';
import {
  ConfigureBodySchema,
  EmptyBodySchema,
  HorizontalScaleBodySchema,
  OpsAcceptedSchema,
  OpsClusterParamsSchema,
  UpgradeAcceptedSchema,
  UpgradeBodySchema,
  OpsListQuerySchema,
  OpsNamespaceQuerySchema,
  OpsParamsSchema,
  OpsRequestListSchema,
  OpsRequestSummarySchema,
  RestartBodySchema,
  SwitchoverBodySchema,
  VerticalScaleBodySchema,
  VolumeExpandBodySchema,
} from './schemas.js';

const tags = ['Cluster Operations'];
const BASE = '/api/clusters/:clusterName/ops';

/** What the operation routes call; `clusterNamespace` answers a request that names no namespace. */
export interface OperationRouteDeps {
  operations: OperationService;
  clusters: ClusterService;
  clusterNamespace: string;
}

export function operationRoutes(scope: FastifyInstance, deps: OperationRouteDeps): void {
  inDeploymentScope(scope, deps.clusters, (deploymentScope) => operationScopeRoutes(deploymentScope, deps));
}

function operationScopeRoutes(app: FastifyInstance, { operations, clusterNamespace }: OperationRouteDeps): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const namespaceOf = namespaceOfRequest(clusterNamespace);

  routes.post(
    '/api/clusters/:clusterName/upgrade',
    {
      preValidation: requirePermission('clusters', 'update', namespaceOf),
      config: { errorResponses: [400, 404, 409, 422] },
      schema: {
        operationId: 'upgradeCluster',
        tags: ['Clusters'],
        summary: 'Upgrade a cluster',
        description:
          'Creates an Upgrade OpsRequest moving the FalkorDB components (not the sentinel) to `version` and/or ' +
          '`componentDefinition`. 400 for a Failed cluster or a version the catalog (readable in multi-cluster mode) ' +
          'does not list; 409 when the cluster already runs the version or is busy. `opsName` names the OpsRequest to follow.',
        params: OpsClusterParamsSchema,
        querystring: OpsNamespaceQuerySchema,
        body: UpgradeBodySchema,
        response: { 200: UpgradeAcceptedSchema },
      },
    },
    async (request) => operations.upgrade(namespaceOf(request), request.params.clusterName, request.body),
  );

  // The same list at the deployment's own path and at the operations' path, as the real API serves both.
  for (const list of OPERATION_LISTS)
    routes.get(
      list.path,
      {
        preValidation: requirePermission('clusters', 'list', namespaceOf),
        config: { errorResponses: [404] },
        schema: {
          operationId: list.operationId,
          tags: list.tags,
          summary: list.summary,
          description: list.description,
          params: OpsClusterParamsSchema,
          querystring: OpsListQuerySchema,
          response: { 200: OpsRequestListSchema },
        },
      },
      async (request) =>
        operations.list(namespaceOf(request), request.params.clusterName, {
          limit: request.query.limit,
          offset: request.query.offset,
        }),
    );

  routes.get(
    `${BASE}/:opsName`,
    {
      preValidation: requirePermission('clusters', 'get', namespaceOf),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'getOpsRequest',
        tags,
        summary: 'Get a specific OpsRequest',
        description: 'One operations request of the cluster: type, phase, progress and timestamps.',
        params: OpsParamsSchema,
        querystring: OpsNamespaceQuerySchema,
        response: { 200: OpsRequestSummarySchema },
      },
    },
    async (request) => operations.get(namespaceOf(request), request.params.clusterName, request.params.opsName),
  );

  routes.delete(
    `${BASE}/:opsName`,
    {
      preValidation: requirePermission('clusters', 'delete', namespaceOf),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'deleteOpsRequest',
        tags,
        summary: 'Delete an OpsRequest',
        description:
          'Deletes the operations request whatever its phase, as the real API does; it does not undo what the ' +
          'operation did. To stop a running scaling, cancel it first (`POST …/ops/{opsName}/cancel`).',
        params: OpsParamsSchema,
        querystring: OpsNamespaceQuerySchema,
        response: { 204: z.null().describe('Deleted; no body') },
      },
    },
    async (request, reply) => {
      await operations.remove(namespaceOf(request), request.params.clusterName, request.params.opsName);
      return reply.code(204).send(null);
    },
  );

  const mutation = {
    preValidation: requirePermission('clusters', 'update', namespaceOf),
    config: { errorResponses: [404, 409, 422] },
  };

  routes.post(
    `${BASE}/:opsName/cancel`,
    {
      ...mutation,
      schema: {
        operationId: 'cancelOpsRequest',
        tags,
        summary: 'Cancel a running scaling (not in the FalkorDB Enterprise admin API)',
        description:
          'Sets `spec.cancel` on a Creating or Running HorizontalScaling or VerticalScaling OpsRequest; KubeBlocks ' +
          'rolls the change back and ends it Cancelled. Any other type or phase is a 409.',
        params: OpsParamsSchema,
        querystring: OpsNamespaceQuerySchema,
        response: { 202: OpsAcceptedSchema },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(await operations.cancel(namespaceOf(request), request.params.clusterName, request.params.opsName)),
  );

  // The eight day-2 operations share one shape: a body, one service call, 202 with the OpsRequest made.
  for (const register of DAY_TWO_OPERATIONS) register(app, { operations, namespaceOf, mutation });
}

/** The two paths of a deployment's operation list, in the order the OpenAPI document lists them. */
const OPERATION_LISTS = [
  {
    path: '/api/clusters/:clusterName/operations',
    operationId: 'listClusterOperations',
    tags: ['Clusters'],
    summary: 'List all KubeBlocks OpsRequests for a cluster',
    description:
      "The cluster's operations requests, newest first, a page at a time (`limit`, `offset`), as `…/ops` answers.",
  },
  {
    path: BASE,
    operationId: 'listOpsRequests',
    tags,
    summary: 'List all OpsRequests for a cluster',
    description:
      "The cluster's operations requests, newest first, a page at a time (`limit`, `offset`); `total` counts them all.",
  },
];

interface DayTwoShared {
  operations: OperationService;
  namespaceOf: (request: FastifyRequest) => string;
  mutation: { preValidation: preValidationHookHandler; config: { errorResponses: number[] } };
}

/** One day-2 operation: `POST …/ops/<path>` with its body, answered 202 with the OpsRequest the service made. */
interface DayTwoOperation<Body extends z.ZodType> {
  path: string;
  operationId: string;
  summary: string;
  description: string;
  body: Body;
  request: (
    operations: OperationService,
    namespace: string,
    cluster: string,
    body: z.output<Body>,
  ) => Promise<OpsAccepted>;
}

function dayTwoOperation<Body extends z.ZodType>(operation: DayTwoOperation<Body>) {
  return (scope: FastifyInstance, { operations, namespaceOf, mutation }: DayTwoShared): void => {
    scope.withTypeProvider<ZodTypeProvider>().post(
      `${BASE}/${operation.path}`,
      {
        ...mutation,
        schema: {
          operationId: operation.operationId,
          tags,
          summary: operation.summary,
          description: operation.description,
          params: OpsClusterParamsSchema,
          querystring: OpsNamespaceQuerySchema,
          body: operation.body,
          response: { 202: OpsAcceptedSchema },
        },
      },
      async (request, reply) => {
        // The body was parsed by operation.body; the type provider cannot resolve its type for a generic schema.
        const body = request.body as z.output<Body>;
        const accepted = await operation.request(operations, namespaceOf(request), request.params.clusterName, body);
        return reply.code(202).send(accepted);
      },
    );
  };
}

const startOrStop = (type: 'Start' | 'Stop') =>
  dayTwoOperation({
    path: type.toLowerCase(),
    operationId: `${type.toLowerCase()}Cluster`,
    summary: type === 'Start' ? 'Start a previously stopped cluster' : 'Gracefully stop all pods in the cluster',
    description:
      type === 'Start'
        ? 'A Start OpsRequest; the cluster must be Stopped (409 otherwise).'
        : 'A Stop OpsRequest; the cluster must be Running or Failed (409 otherwise). Volumes are kept.',
    body: EmptyBodySchema,
    request: (operations, namespace, cluster) => operations.startOrStop(namespace, cluster, type),
  });

/** The day-2 operations, in the order the OpenAPI document lists them. */
const DAY_TWO_OPERATIONS = [
  dayTwoOperation({
    path: 'restart',
    operationId: 'restartCluster',
    summary: 'Restart cluster component pods one-by-one with a rolling restart',
    description: 'A Restart OpsRequest for one component (`falkordb` by default). Needs the cluster Running or Failed.',
    body: RestartBodySchema,
    request: (operations, namespace, cluster, body) => operations.restart(namespace, cluster, body ?? {}),
  }),
  startOrStop('Start'),
  startOrStop('Stop'),
  dayTwoOperation({
    path: 'configure',
    operationId: 'configureCluster',
    summary: 'Update runtime configuration parameters (Reconfiguring)',
    description:
      'Known FalkorDB parameters only, each with a valid value (400 otherwise); `null` clears one. The answer ' +
      'says which of them take effect only after a restart.',
    body: ConfigureBodySchema,
    request: (operations, namespace, cluster, body) => operations.configure(namespace, cluster, body),
  }),
  dayTwoOperation({
    path: 'switchover',
    operationId: 'switchoverCluster',
    summary: 'Promote a replica to primary (Switchover)',
    description:
      'A Switchover OpsRequest: `instanceName` is the primary to demote, `candidateName` the replica to promote ' +
      '(any when absent). The component needs at least 2 replicas (422).',
    body: SwitchoverBodySchema,
    request: (operations, namespace, cluster, body) => operations.switchover(namespace, cluster, body),
  }),
  dayTwoOperation({
    path: 'horizontal-scale',
    operationId: 'horizontalScaleCluster',
    summary: 'Set the desired total replicas and/or shard count (HorizontalScaling)',
    description:
      'Totals, turned into the installed KubeBlocks form (scaleOut/scaleIn deltas on 1.x, replicas on 0.9, ' +
      'shards as a count). Shards at least 3; sentinels odd and at least 3; replication and shard components ' +
      'at least 2; replicas and shards change in separate requests; a stopped cluster cannot be scaled (409).',
    body: HorizontalScaleBodySchema,
    request: (operations, namespace, cluster, body) => operations.horizontalScale(namespace, cluster, body),
  }),
  dayTwoOperation({
    path: 'vertical-scale',
    operationId: 'verticalScaleCluster',
    summary: 'Adjust CPU and memory requests/limits (VerticalScaling)',
    description: 'Kubernetes quantities (400 otherwise); a request above its limit is a 422.',
    body: VerticalScaleBodySchema,
    request: (operations, namespace, cluster, body) => operations.verticalScale(namespace, cluster, body),
  }),
  dayTwoOperation({
    path: 'volume-expand',
    operationId: 'volumeExpandCluster',
    summary: 'Expand PVC storage size (VolumeExpansion)',
    description:
      'Irreversible: the new size must be larger than the current one (422). The StorageClass must allow ' +
      'expansion: refused with 422 when the classes can be read (multi-cluster mode), otherwise left to KubeBlocks.',
    body: VolumeExpandBodySchema,
    request: (operations, namespace, cluster, body) => operations.volumeExpand(namespace, cluster, body),
  }),
];
