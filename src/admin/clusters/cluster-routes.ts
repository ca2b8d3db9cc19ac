// /api/clusters: database deployments, permission-checked per cluster namespace (their day-2 operations:
// ../operations).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { inDeploymentScope, namespaceOfRequest } from './cluster-scope.js';
import { z } from 'zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { authorizerOf, requirePermission } from '../permissions/permissions.js';
import type { ClusterService } from './cluster-service.js';
import { toApiCluster } from './cluster-view.js';
import type { ClusterRecord } from '../../platform/clusters/cluster-records.js';
import { jsonOncePerObject, sendJsonText } from '../../http/prepared-json.js';
import {
  CreateClusterBodySchema,
  DeleteClusterQuerySchema,
  ClusterListSchema,
  ClusterNameParamsSchema,
  ClusterSchema,
  ClusterConfigSchema,
  ClusterFormSchemaSchema,
  CredentialsSchema,
  NamespaceQuerySchema,
  PatchClusterBodySchema,
  PodListSchema,
  YamlBodySchema,
  YamlSchema,
} from './schemas.js';
import { manifestNamespaceOf } from './cluster-yaml.js';

const tags = ['Clusters'];

/**
 * A deployment's JSON in the list, through the list's own item schema, once per record: the Kubernetes adapter
 * hands out the same frozen record while the object is unchanged, so a list of 1,000 deployments encodes only those
 * that changed since the last one.
 */
const clusterJson = jsonOncePerObject((record: ClusterRecord) => ClusterSchema.encode(toApiCluster(record)));

/** The text ClusterListSchema's serializer writes for these records, from each one's kept JSON. */
export function clusterListJson(records: readonly ClusterRecord[]): string {
  return `{"clusters":[${records.map(clusterJson).join(',')}],"total":${records.length}}`;
}

/** What the deployment routes call; `clusterNamespace` answers a request that names no namespace. */
export interface ClusterRouteDeps {
  clusters: ClusterService;
  clusterNamespace: string;
}

export function clusterRoutes(scope: FastifyInstance, deps: ClusterRouteDeps): void {
  inDeploymentScope(scope, deps.clusters, (deploymentScope) => clusterScopeRoutes(deploymentScope, deps));
}

function clusterScopeRoutes(app: FastifyInstance, { clusters, clusterNamespace }: ClusterRouteDeps): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const namespaceOf = namespaceOfRequest(clusterNamespace);

  routes.get(
    '/api/clusters/',
    {
      preValidation: requirePermission('clusters', 'list', namespaceOf),
      schema: {
        operationId: 'listClusters',
        tags,
        summary: 'List all clusters',
        description:
          'The FalkorDB clusters of the cluster namespace, or, with multi_cluster_mode on, of the namespace asked for or ' +
          "of every namespace, those the caller's role may list. `total` counts the clusters answered.",
        querystring: NamespaceQuerySchema,
        response: { 200: ClusterListSchema },
      },
    },
    async (request, reply) => {
      const found = await clusters.listVisible(request.sessionUser!.role, request.query.namespace);
      await sendJsonText(reply, clusterListJson(found));
    },
  );

  routes.get(
    '/api/clusters/:clusterName',
    {
      preValidation: requirePermission('clusters', 'get', namespaceOf),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'getCluster',
        tags,
        summary: 'Get a specific cluster',
        description: 'One FalkorDB cluster in the namespace asked for (the cluster namespace when none is given).',
        params: ClusterNameParamsSchema,
        querystring: NamespaceQuerySchema,
        response: { 200: ClusterSchema },
      },
    },
    async (request) => toApiCluster(await clusters.get(namespaceOf(request), request.params.clusterName)),
  );

  routes.get(
    '/api/clusters/:clusterName/pods',
    {
      preValidation: requirePermission('clusters', 'get', namespaceOf),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'listClusterPods',
        tags,
        summary: 'List all pods for a specific cluster',
        description:
          'The Pods labelled `app.kubernetes.io/instance=<clusterName>` (at most 500), with their KubeBlocks role. ' +
          'CPU and memory usage are null here; the metrics routes report them.',
        params: ClusterNameParamsSchema,
        querystring: NamespaceQuerySchema,
        response: { 200: PodListSchema },
      },
    },
    async (request) => clusters.pods(namespaceOf(request), request.params.clusterName),
  );

  // The namespace of a create is the body's: checked before validation on the parsed body (a caller without the
  // right gets 403 before 400), and again by the service in the validated body's namespace.
  const bodyNamespaceOf = (request: FastifyRequest) => {
    const given = (request.body as { namespace?: unknown } | undefined)?.namespace;
    return typeof given === 'string' && given !== '' ? given : clusterNamespace;
  };

  routes.post(
    '/api/clusters/',
    {
      preValidation: requirePermission('clusters', 'create', bodyNamespaceOf, { readsBody: true }),
      config: { errorResponses: [400, 403, 409, 422] },
      schema: {
        operationId: 'createCluster',
        tags,
        summary: 'Create a new FalkorDB cluster',
        description:
          'Creates a KubeBlocks Cluster from the structured spec: topology standalone, replication (with a sentinel) ' +
          'or cluster (sharded), version, replicas, shards, resources, storage, scheduling. Only in a namespace ' +
          'MANAGED_NAMESPACES matches (403 otherwise); 409 when the name is taken; spec fields this server cannot ' +
          'apply yet are refused with 422.',
        body: CreateClusterBodySchema,
        response: { 201: ClusterSchema },
      },
    },
    async (request, reply) => {
      request.auditResourceName = request.body.name;
      request.auditNamespace = request.body.namespace;
      reply.code(201);
      return toApiCluster(await clusters.create(request.body, authorizerOf(request)));
    },
  );

  routes.delete(
    '/api/clusters/:clusterName',
    {
      preValidation: requirePermission('clusters', 'delete', namespaceOf),
      config: { errorResponses: [404, 422] },
      schema: {
        operationId: 'deleteCluster',
        tags,
        summary: 'Delete a cluster',
        description:
          'Deletes the KubeBlocks Cluster (its terminationPolicy decides what happens to the data); 204 at once, ' +
          'KubeBlocks removes the rest in the background.',
        params: ClusterNameParamsSchema,
        querystring: DeleteClusterQuerySchema,
        response: { 204: z.null().describe('Deleted; no body') },
      },
    },
    async (request, reply) => {
      const { gracePeriodSeconds } = request.query;
      await clusters.remove(namespaceOf(request), request.params.clusterName, {
        ...(gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds }),
      });
      return reply.code(204).send(null);
    },
  );

  const manifestNamespace = (request: FastifyRequest) =>
    manifestNamespaceOf((request.body as { yaml?: unknown } | undefined)?.yaml) ?? clusterNamespace;

  routes.post(
    '/api/clusters/yaml',
    {
      preValidation: requirePermission('clusters', 'create', manifestNamespace, { readsBody: true }),
      config: { errorResponses: [400, 403, 409, 422] },
      schema: {
        operationId: 'createClusterFromYaml',
        tags,
        summary: 'Create a new FalkorDB cluster from a raw YAML manifest',
        description:
          'The manifest needs apiVersion apps.kubeblocks.io/v1, kind Cluster, metadata.name and metadata.namespace ' +
          '(400 otherwise); the namespace rules of the structured create apply (403); 409 when the name is taken; ' +
          "the API server's validation errors answer 422.",
        body: YamlBodySchema,
        response: { 201: ClusterSchema },
      },
    },
    async (request, reply) => {
      const record = await clusters.createFromYaml(request.body.yaml, authorizerOf(request));
      request.auditResourceName = record.name;
      reply.code(201);
      return toApiCluster(record);
    },
  );

  routes.get(
    '/api/clusters/:clusterName/yaml',
    {
      preValidation: requirePermission('clusters', 'get', namespaceOf),
      config: { errorResponses: [404, 422] },
      schema: {
        operationId: 'getClusterYaml',
        tags,
        summary: 'Get the raw YAML of a cluster custom resource',
        description: 'The stored Cluster object (without managedFields) as YAML.',
        params: ClusterNameParamsSchema,
        querystring: NamespaceQuerySchema,
        response: { 200: YamlSchema },
      },
    },
    async (request) => clusters.yaml(namespaceOf(request), request.params.clusterName),
  );

  routes.post(
    '/api/clusters/:clusterName/yaml',
    {
      preValidation: requirePermission('clusters', 'update', namespaceOf),
      config: { errorResponses: [400, 404, 409, 422] },
      schema: {
        operationId: 'replaceClusterYaml',
        tags,
        summary: 'Replace a cluster custom resource from YAML',
        description:
          'Replaces the Cluster object with the manifest, which must name the same cluster and namespace (400). ' +
          "Without metadata.resourceVersion the stored one is used; the API server's validation errors answer 422.",
        params: ClusterNameParamsSchema,
        querystring: NamespaceQuerySchema,
        body: YamlBodySchema,
        response: { 204: z.null().describe('Replaced; no body') },
      },
    },
    async (request, reply) => {
      await clusters.replaceFromYaml(namespaceOf(request), request.params.clusterName, request.body.yaml);
      return reply.code(204).send(null);
    },
  );

  // The create form's schema never changes while the server runs: built once.
  const createFormSchema = z.toJSONSchema(CreateClusterBodySchema, { io: 'input', unrepresentable: 'any' });
  routes.get(
    '/api/clusters/schema',
    {
      preValidation: requirePermission('clusters', 'list', namespaceOf),
      schema: {
        operationId: 'getClusterSchema',
        tags,
        summary: 'The JSON schema of the cluster create form',
        description:
          'The JSON schema (draft 2020-12) of the body POST /api/clusters/ accepts: what a create form can offer and ' +
          'check before sending. Not the CRD itself, which the server does not read.',
        response: { 200: ClusterFormSchemaSchema },
      },
    },
    () => ({ schema: createFormSchema }),
  );

  routes.get(
    '/api/clusters/:clusterName/credentials',
    {
      // The database password: only who may change the deployment may read it (a viewer's list/get/read does not).
      preValidation: requirePermission('clusters', 'update', namespaceOf),
      config: { errorResponses: [404, 422] },
      schema: {
        operationId: 'getClusterCredentials',
        tags,
        summary: "The cluster's connection credentials",
        description:
          "The data component's Service address and its default account, from KubeBlocks' Secret " +
          '`<cluster>-<component>-account-default`. Needs `clusters:update` (who may change the deployment), so a viewer cannot read it; every call is audited ' +
          '(`cluster.credentials_read`), and the password is never logged.',
        params: ClusterNameParamsSchema,
        querystring: NamespaceQuerySchema,
        response: { 200: CredentialsSchema },
      },
    },
    async (request, reply) => {
      // Nothing about the answer may be cached on the way.
      void reply.header('cache-control', 'no-store');
      return clusters.credentials(namespaceOf(request), request.params.clusterName);
    },
  );

  routes.get(
    '/api/clusters/:clusterName/config',
    {
      preValidation: requirePermission('clusters', 'get', namespaceOf),
      config: { errorResponses: [403, 404] },
      schema: {
        operationId: 'getClusterConfig',
        tags,
        summary: 'Get Redis runtime configuration (redis.conf) for a cluster',
        description:
          "The data component's redis.conf as KubeBlocks rendered it into the ConfigMap " +
          '`<cluster>-<component>-<config spec>` (the first shard of a sharded deployment), one key/value pair per ' +
          'directive in file order. Directives holding credentials (`user`, `requirepass`, `masterauth`, …) are left ' +
          "out. In embedded mode: the running server's CONFIG GET, with `configMapName` empty. 404 while KubeBlocks " +
          'has not rendered the ConfigMap yet.',
        params: ClusterNameParamsSchema,
        querystring: NamespaceQuerySchema,
        response: { 200: ClusterConfigSchema },
      },
    },
    async (request) => clusters.config(namespaceOf(request), request.params.clusterName),
  );

  routes.patch(
    '/api/clusters/:clusterName',
    {
      preValidation: requirePermission('clusters', 'update', namespaceOf),
      config: { errorResponses: [400, 404, 409, 422] },
      schema: {
        operationId: 'updateCluster',
        tags,
        summary: 'Update an existing cluster',
        description:
          'Changes the Cluster object: replicas, resources, storage size (grow only), shards and shard replicas, ' +
          'sentinel replicas (odd, at least 3) and resources, terminationPolicy, labels, annotations. KubeBlocks ' +
          'reconciles the change. The version goes through POST …/upgrade; fields this server cannot apply yet ' +
          'answer 422.',
        params: ClusterNameParamsSchema,
        querystring: NamespaceQuerySchema,
        body: PatchClusterBodySchema,
        response: { 200: ClusterSchema },
      },
    },
    async (request) =>
      toApiCluster(await clusters.patch(namespaceOf(request), request.params.clusterName, request.body)),
  );
}
