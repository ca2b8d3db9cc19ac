// Shapes of the /api/clusters endpoints: deployments (their operations: ../operations/schemas.ts).
import { z } from 'zod';

const KUBERNETES_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

const NamespaceSchema = z.string().regex(KUBERNETES_NAME, 'must be a Kubernetes namespace name');
export const NamespaceQuerySchema = z.object({ namespace: NamespaceSchema.optional() });
export const ClusterParamsSchema = z.object({
  name: z.string().regex(KUBERNETES_NAME, 'must be a cluster name'),
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
export const ClusterSchema = z
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
export const ClusterListSchema = z.object({ clusters: z.array(ClusterSchema) });
export const ClusterEnvelopeSchema = z.object({ cluster: ClusterSchema });
