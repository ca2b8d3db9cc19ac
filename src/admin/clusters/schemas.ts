// Shapes of the /api/clusters endpoints: deployments (their operations: ../operations/schemas.ts).
import { z } from 'zod';
import { DNS_LABEL_CHARACTERS, OBJECT_NAME } from '../../lib/kubernetes-names.js';
import { ClusterNameParamsSchema, ClusterNameSchema, NamespaceNameSchema } from '../parameters.js';

export const NamespaceQuerySchema = z.object({ namespace: NamespaceNameSchema.optional() });
export const ClusterParamsSchema = z.object({ name: ClusterNameSchema });
export { ClusterNameParamsSchema };

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
/** The FalkorDB Enterprise admin API's Cluster, with the normalised record's fields alongside. */
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

const CpuSchema = z.string().regex(/^[0-9]+m?$/, 'must be whole cores or millicores (e.g. 2 or 500m)');
const MemorySchema = z.string().regex(/^[0-9]+(Mi|Gi)?$/, 'must be bytes, Mi or Gi (e.g. 512Mi)');
const ResourcesSchema = z.object({
  requests: z.object({ cpu: CpuSchema.optional(), memory: MemorySchema.optional() }).optional(),
  limits: z.object({ cpu: CpuSchema.optional(), memory: MemorySchema.optional() }).optional(),
});
const StorageSizeSchema = z.string().regex(/^[1-9][0-9]*(Mi|Gi|Ti)$/, 'must be a size in Mi, Gi or Ti (e.g. 20Gi)');
const PersistenceSchema = z.object({
  enabled: z.boolean(),
  storageClass: z.string().regex(OBJECT_NAME, 'must be a StorageClass name').optional(),
  size: StorageSizeSchema.optional(),
  accessMode: z.literal('ReadWriteOnce').optional(),
});
const TolerationSchema = z.strictObject({
  key: z.string().max(253).optional(),
  operator: z.enum(['Equal', 'Exists']).optional(),
  value: z.string().max(63).optional(),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']).optional(),
  tolerationSeconds: z.number().int().min(0).optional(),
});
const StringMapSchema = z.record(z.string().max(317), z.string().max(4096));
const SchedulingPolicySchema = z.strictObject({
  nodeSelector: StringMapSchema.optional(),
  tolerations: z.array(TolerationSchema).max(50).optional(),
});
/** One Service of a component (KubeBlocks ClusterComponentService): how the deployment is reached. */
const ServiceSpecSchema = z.strictObject({
  name: z.string().min(1).max(25).regex(DNS_LABEL_CHARACTERS, 'must be a Kubernetes name of at most 25 characters'),
  serviceType: z.enum(['ClusterIP', 'NodePort', 'LoadBalancer']),
  annotations: StringMapSchema.optional(),
  podService: z.boolean().optional(),
});
const ServicesSchema = z
  .array(ServiceSpecSchema)
  .max(8)
  .refine((services) => new Set(services.map((service) => service.name)).size === services.length, {
    message: 'service names must be unique',
  });

/** POST /api/clusters/: the FalkorDB Enterprise admin API's structured spec (what this server cannot apply yet is refused, 422). */
export const CreateClusterBodySchema = z.object({
  name: z.string().min(1).max(63).regex(DNS_LABEL_CHARACTERS, 'must be a Kubernetes name'),
  namespace: z.string().min(1).max(63).regex(DNS_LABEL_CHARACTERS, 'must be a Kubernetes namespace name'),
  labels: StringMapSchema.optional(),
  annotations: StringMapSchema.optional(),
  spec: z.looseObject({
    replicas: z.number().int().min(1).max(10).optional(),
    version: z.string().min(1).max(63).optional(),
    topology: z.enum(['standalone', 'replication', 'cluster']).optional(),
    resources: ResourcesSchema.optional(),
    persistence: PersistenceSchema.optional(),
    schedulingPolicy: SchedulingPolicySchema.optional(),
    services: ServicesSchema.optional(),
    disableExporter: z.boolean().optional(),
    sentinel: z
      .looseObject({
        enabled: z.boolean(),
        replicas: z.number().int().min(1).max(9).optional(),
        resources: ResourcesSchema.optional(),
        persistence: PersistenceSchema.optional(),
        services: ServicesSchema.optional(),
        schedulingPolicy: SchedulingPolicySchema.optional(),
      })
      .optional(),
    sharding: z
      .looseObject({
        enabled: z.boolean(),
        shardCount: z.number().int().min(3).max(100).optional(),
        replicas: z.number().int().min(2).max(10).optional(),
        resources: ResourcesSchema.optional(),
        persistence: PersistenceSchema.optional(),
        services: ServicesSchema.optional(),
        schedulingPolicy: SchedulingPolicySchema.optional(),
      })
      .optional(),
    terminationPolicy: z.enum(['DoNotTerminate', 'Delete', 'WipeOut']).optional(),
  }),
});
export type CreateClusterBody = z.infer<typeof CreateClusterBodySchema>;

export const DeleteClusterQuerySchema = NamespaceQuerySchema.extend({
  cascade: z.stringbool().optional(),
  gracePeriodSeconds: z.coerce.number().int().min(0).max(86_400).optional(),
});

/** A manifest of at most 256 KiB. */
export const YamlBodySchema = z.object({ yaml: z.string().min(1).max(262_144) });
export const YamlSchema = z.object({ yaml: z.string() });

export const ClusterConfigSchema = z.object({
  configMapName: z.string().describe("The ConfigMap the parameters were read from; '' in embedded mode (CONFIG GET)"),
  parameters: z.array(z.object({ key: z.string().min(1), value: z.string() })),
});

export const CredentialsSchema = z.object({
  hostname: z.string(),
  port: z.number().int(),
  username: z.string(),
  password: z.string(),
  internalHostname: z.string().optional(),
  externalHostname: z.string().optional(),
});

/** PATCH /api/clusters/{clusterName}: the real body; what this server cannot apply yet is refused (422). */
export const PatchClusterBodySchema = z.looseObject({
  replicas: z.number().int().min(1).max(10).optional(),
  resources: ResourcesSchema.optional(),
  persistence: PersistenceSchema.optional(),
  services: ServicesSchema.optional(),
  disableExporter: z.boolean().optional(),
  sentinel: z
    .looseObject({
      replicas: z.number().int().min(1).max(9).optional(),
      resources: ResourcesSchema.optional(),
      services: ServicesSchema.optional(),
    })
    .optional(),
  sharding: z
    .looseObject({
      shardCount: z.number().int().min(3).max(100).optional(),
      replicas: z.number().int().min(2).max(10).optional(),
      resources: ResourcesSchema.optional(),
      persistence: PersistenceSchema.optional(),
      services: ServicesSchema.optional(),
    })
    .optional(),
  terminationPolicy: z.enum(['DoNotTerminate', 'Delete', 'WipeOut']).optional(),
  labels: StringMapSchema.optional(),
  annotations: StringMapSchema.optional(),
});
export type PatchClusterBody = z.infer<typeof PatchClusterBodySchema>;
