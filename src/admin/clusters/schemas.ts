// Shapes of the /api/clusters endpoints: deployments, their operations requests, and the bodies of the mutations.
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
export const OperationSchema = z
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

export const ClusterListSchema = z.object({ clusters: z.array(ClusterSchema) });
export const ClusterEnvelopeSchema = z.object({ cluster: ClusterSchema });
export const OperationListSchema = z.object({ operations: z.array(OperationSchema) });
/** A mutation's answer: the operations requests it created (`operation` is the first, kept for older clients). */
export const AcceptedSchema = z.object({ operation: z.string(), operations: z.array(z.string()) });

const ComponentName = z.string().min(1).max(63);
const Quantity = z.string().min(1).max(32);
export const RestartBodySchema = z.strictObject({ components: z.array(ComponentName).min(1).optional() }).nullish();
export const ScaleBodySchema = z
  .strictObject({
    component: ComponentName.optional(),
    replicas: z.int().min(1, 'replicas must be at least 1').max(100).optional(),
    shards: z.int().min(1, 'shards must be at least 1').max(1024).optional(),
    cpu: Quantity.optional(),
    memory: Quantity.optional(),
  })
  .meta({ minProperties: 1 });
export const ReconfigureBodySchema = z.strictObject({
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
