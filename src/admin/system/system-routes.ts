// /api/system/*: namespaces, FalkorDB versions, StorageClasses and capacity; /api/metrics/: host and deployment
// health at a glance. All read-only, checked against `system` in the server's namespace.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { requirePermission } from '../permissions/permissions.js';
import {
  ClusterResourcesSchema,
  NamespaceListSchema,
  StorageClassListSchema,
  SystemMetricsSchema,
  VersionListSchema,
} from './schemas.js';
import type { SystemService } from './system-service.js';

const tags = ['system'];

/** What the system routes call; `namespace` is the server's, where `system` is permission-checked. */
export interface SystemRouteDeps {
  system: SystemService;
  namespace: string;
}

export function systemRoutes(scope: FastifyInstance, { system, namespace }: SystemRouteDeps): void {
  const routes = scope.withTypeProvider<ZodTypeProvider>();
  const inServerNamespace = () => namespace;
  const list = requirePermission('system', 'list', inServerNamespace);

  routes.get(
    '/api/system/namespaces',
    {
      preValidation: list,
      schema: {
        operationId: 'listNamespaces',
        tags,
        summary: 'Namespaces deployments may live in',
        description:
          'Every namespace of the cluster in multi-cluster mode (needs the chart value adminServer.multiClusterRbac); otherwise the cluster namespace only, with `notes` saying so.',
        response: { 200: NamespaceListSchema },
      },
    },
    (request) => system.namespaces(request.sessionUser!.role),
  );

  routes.get(
    '/api/system/falkordb-versions',
    {
      preValidation: list,
      schema: {
        operationId: 'listFalkorDBVersions',
        tags,
        summary: 'FalkorDB versions a deployment may be created with',
        description:
          "KubeBlocks ComponentVersions in multi-cluster mode; otherwise the versions the cluster namespace's deployments run. Embedded mode: the embedded FalkorDB's version.",
        response: { 200: VersionListSchema },
      },
    },
    (request) => system.falkordbVersions(request.sessionUser!.role),
  );

  routes.get(
    '/api/system/storage-classes',
    {
      preValidation: list,
      schema: {
        operationId: 'listStorageClasses',
        tags,
        summary: 'StorageClasses for deployment volumes',
        description:
          'Read in multi-cluster mode only (StorageClasses are cluster-scoped); otherwise, and in embedded mode, an empty list with `notes` saying why.',
        response: { 200: StorageClassListSchema },
      },
    },
    () => system.storageClasses(),
  );

  routes.get(
    '/api/system/cluster-resources',
    {
      preValidation: requirePermission('system', 'get', inServerNamespace),
      schema: {
        operationId: 'getClusterResources',
        tags,
        summary: 'Capacity, and what deployments and this server use',
        description:
          "CPU in cores, memory and storage in bytes. Deployments count their resource requests; support is this replica's measured use. Capacity is the host's in embedded mode and unknown (0, `limitingResource: unknown`) on Kubernetes, where the server reads no Nodes.",
        response: { 200: ClusterResourcesSchema },
      },
    },
    (request) => system.clusterResources(request.sessionUser!.role),
  );

  routes.get(
    '/api/metrics/',
    {
      preValidation: requirePermission('system', 'read', inServerNamespace),
      schema: {
        operationId: 'getSystemMetrics',
        tags: ['metrics'],
        summary: "The host's CPU and memory and the deployments' health",
        description:
          'CPU busy share since the previous call and memory in use (percent, bytes) of the host the server runs on; deployments in view by phase (`Running` is healthy).',
        response: { 200: SystemMetricsSchema },
      },
    },
    (request) => system.metrics(request.sessionUser!.role),
  );
}
