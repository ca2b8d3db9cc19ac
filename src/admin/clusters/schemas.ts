// Shapes of the /api/clusters endpoints: deployments (their operations: ../operations/schemas.ts).
import { z } from 'zod';

const KUBERNETES_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

const NamespaceSchema = z.string().regex(KUBERNETES_NAME, 'must be a Kubernetes namespace name');
export const NamespaceQuerySchema = z.object({ namespace: NamespaceSchema.optional() });
export const ClusterParamsSchema = z.object({
  name: z.string().regex(KUBERNETES_NAME, 'must be a cluster name'),
});

export const ClusterNameParamsSchema = z.object({
  clusterName: z.string().regex(KUBERNETES_NAME, 'must be a cluster name'),
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
  storageClass: z.string().optional(),
});
const ResourceAmountsSchema = z.object({
  cpu: z
    .string()
    .regex(/^[0-9]+m?$/)
    .optional(),
  memory: z
    .string()
    .regex(/^[0-9]+(Mi|Gi)?$/)
    .optional(),
});
/** The real product's Cluster (REAL-PRODUCT-FACTS.md §1.4), with the normalised record's fields alongside. */
export const ClusterSchema = z
  .object({
    name: z.string(),
    namespace: z.string(),
    creationTimestamp: z.string().optional(),
    state: z.enum(['Pending', 'Running', 'Stopping', 'Stopped', 'Deleting', 'Failed', 'Degraded', 'Unknown']),
    topology: z.enum(['standalone', 'replication', 'cluster']),
    replicas: z.number().int(),
    version: z.string(),
    resources: z
      .object({ requests: ResourceAmountsSchema.optional(), limits: ResourceAmountsSchema.optional() })
      .optional(),
    persistence: z
      .object({
        enabled: z.boolean(),
        size: z.string().optional(),
        storageClass: z.string().optional(),
        accessMode: z.string().optional(),
      })
      .optional(),
    sentinel: z.object({ enabled: z.boolean(), replicas: z.number().int().min(1).optional() }),
    sharding: z.object({
      enabled: z.boolean(),
      shardCount: z.number().int().min(3).optional(),
      replicas: z.number().int().min(2).optional(),
    }),
    terminationPolicy: z.string().optional(),
    status: z.object({ state: z.string(), ready: z.boolean(), replicas: z.number().int() }),
    phase: z.string().describe("KubeBlocks' Cluster.status.phase"),
    createdAt: z.string(),
    components: z.array(ComponentSchema),
  })
  .meta({ id: 'Cluster' });
export const ClusterListSchema = z.object({ clusters: z.array(ClusterSchema), total: z.number().int() });

export const PodListSchema = z.object({
  pods: z.array(
    z.object({
      name: z.string(),
      namespace: z.string(),
      status: z.string(),
      ready: z.boolean(),
      restartCount: z.number().int(),
      age: z.string(),
      role: z.string(),
      shardId: z.string().optional(),
      hostname: z.string(),
      ports: z.array(
        z.object({ name: z.string().optional(), port: z.number().int(), protocol: z.string().optional() }),
      ),
      cpuPercent: z.number().nullable(),
      memoryPercent: z.number().nullable(),
      dns: z.string(),
    }),
  ),
  total: z.number().int(),
});
