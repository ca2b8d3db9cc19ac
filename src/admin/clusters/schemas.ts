// Shapes of the /api/clusters endpoints: deployments (their operations: ../operations/schemas.ts). (one file because a feature's schemas live in its one schemas.ts, docs/architecture.md)
import { z } from 'zod';
import { queryBoolean, queryInteger, trueOrFalse, wholeNumber } from '../../lib/wire-values.js';
import { DNS_LABEL_CHARACTERS, OBJECT_NAME } from '../../lib/kubernetes-names.js';
import { timestamp } from '../../lib/timestamp-schema.js';
import { ClusterNameParamsSchema, ClusterNameSchema, NamespaceNameSchema } from '../parameters.js';

export const NamespaceQuerySchema = z.object({
  namespace: NamespaceNameSchema.optional().meta({
    description: "The cluster's namespace; the configured cluster namespace when absent.",
  }),
});
export const ClusterParamsSchema = z.object({ name: ClusterNameSchema });
export { ClusterNameParamsSchema };

const ComponentSchema = z.object({
  name: z.string().describe('The component (`falkordb`, `falkordb-sent`) or sharding (`shard`) name'),
  kind: z.enum(['component', 'sharding']).describe('A plain component, or a sharding (one component per shard)'),
  phase: z.string().describe("KubeBlocks' phase of the component (Creating, Running, Updating, Stopped, Failed…)"),
  replicas: z.number().int().describe('Pods of the component (of each shard, for a sharding)'),
  shards: z.number().int().optional().describe('Number of shards; only for a sharding'),
  serviceVersion: z.string().describe('The FalkorDB version the component runs'),
  cpu: z.string().describe('CPU request of each pod, a Kubernetes quantity'),
  memory: z.string().describe('Memory request of each pod, a Kubernetes quantity'),
  storage: z.string().describe("Size of each pod's data volume; '' without one"),
  storageClass: z.string().optional().describe("The data volume's StorageClass, when the template names one"),
});
const ResourceAmountsSchema = z.object({
  cpu: z
    .string()
    .regex(/^[0-9]+m?$/)
    .optional()
    .describe('Whole cores or millicores (`2`, `500m`)'),
  memory: z
    .string()
    .regex(/^[0-9]+(Mi|Gi)?$/)
    .optional()
    .describe('Bytes, Mi or Gi (`512Mi`)'),
});
/** The FalkorDB Enterprise admin API's Cluster, with the normalised record's fields alongside. */
const CLUSTER_CREATED = '2026-11-20T09:15:02Z';
/** A replicated deployment (data component and sentinel), as GET /api/clusters/{clusterName} answers it. */
export const CLUSTER_EXAMPLE = {
  name: 'orders',
  namespace: 'graphdb',
  creationTimestamp: CLUSTER_CREATED,
  state: 'Running' as const,
  topology: 'replication' as const,
  replicas: 2,
  version: '4.12.5',
  resources: { requests: { cpu: '1', memory: '2Gi' } },
  persistence: { enabled: true, size: '20Gi', accessMode: 'ReadWriteOnce', storageClass: 'standard' },
  sentinel: { enabled: true, replicas: 3 },
  sharding: { enabled: false },
  terminationPolicy: 'Delete',
  status: { state: 'Running', ready: true, replicas: 5 },
  phase: 'Running',
  createdAt: CLUSTER_CREATED,
  components: [
    {
      name: 'falkordb',
      kind: 'component' as const,
      phase: 'Running',
      replicas: 2,
      serviceVersion: '4.12.5',
      cpu: '1',
      memory: '2Gi',
      storage: '20Gi',
      storageClass: 'standard',
    },
    {
      name: 'falkordb-sent',
      kind: 'component' as const,
      phase: 'Running',
      replicas: 3,
      serviceVersion: '4.12.5',
      cpu: '200m',
      memory: '256Mi',
      storage: '1Gi',
    },
  ],
};

export const ClusterSchema = z
  .object({
    name: z.string().describe('The deployment (KubeBlocks Cluster) name'),
    namespace: z.string().describe('Its Kubernetes namespace'),
    creationTimestamp: timestamp('When the Cluster object was created').optional(),
    state: z
      .enum(['Pending', 'Running', 'Stopping', 'Stopped', 'Deleting', 'Failed', 'Degraded', 'Unknown'])
      .describe("The phase in the admin API's words (Creating is Pending, Abnormal is Degraded)"),
    topology: z
      .enum(['standalone', 'replication', 'cluster'])
      .describe('One server, primary and replicas with a sentinel, or sharded'),
    replicas: z.number().int().describe('Pods of the data component (of each shard when sharded)'),
    version: z.string().describe("The data component's FalkorDB version; '' when unknown"),
    resources: z
      .object({
        requests: ResourceAmountsSchema.optional().describe('What each data pod is guaranteed'),
        limits: ResourceAmountsSchema.optional().describe('What each data pod may use at most'),
      })
      .optional()
      .describe('CPU and memory of each data pod'),
    persistence: z
      .object({
        enabled: z.boolean().describe('Whether the data pods have a volume'),
        size: z.string().optional().describe('Size of each data volume (`20Gi`)'),
        storageClass: z.string().optional().describe('The StorageClass of the volumes; the default one when absent'),
        accessMode: z.string().optional().describe('Always ReadWriteOnce'),
      })
      .optional()
      .describe("The data component's volumes"),
    sentinel: z
      .object({
        enabled: z.boolean().describe('Whether the deployment has a sentinel component'),
        replicas: z.number().int().min(1).optional().describe('Sentinel pods'),
      })
      .describe('The sentinel that elects a new primary (replication topology)'),
    sharding: z
      .object({
        enabled: z.boolean().describe('Whether the data is split over shards'),
        shardCount: z.number().int().min(3).optional().describe('Number of shards'),
        replicas: z.number().int().min(2).optional().describe('Pods of each shard'),
      })
      .describe('Shards of the cluster topology'),
    terminationPolicy: z
      .string()
      .optional()
      .describe('What deleting the deployment does to its data: DoNotTerminate, Delete or WipeOut'),
    status: z
      .object({
        state: z.string().describe('The same as `state`'),
        ready: z.boolean().describe('True when the deployment is Running'),
        replicas: z.number().int().describe('Pods of every component, shards counted'),
      })
      .describe('State at a glance'),
    phase: z.string().describe("KubeBlocks' Cluster.status.phase"),
    createdAt: timestamp('When the Cluster object was created'),
    components: z.array(ComponentSchema).describe("The deployment's components and shardings, as KubeBlocks runs them"),
  })
  .meta({
    id: 'Cluster',
    description: "A FalkorDB deployment: a KubeBlocks Cluster in the admin API's shape, with its components",
    examples: [CLUSTER_EXAMPLE],
  });
export const ClusterListSchema = z
  .object({
    clusters: z.array(ClusterSchema).describe('The deployments the caller may list'),
    total: z.number().int().describe('How many deployments the answer holds'),
  })
  .meta({ examples: [{ clusters: [CLUSTER_EXAMPLE], total: 1 }] });

const podExample = (index: number, role: string) => ({
  name: `orders-falkordb-${index}`,
  namespace: 'graphdb',
  status: 'Running',
  ready: true,
  restartCount: 0,
  age: '8d',
  role,
  hostname: `orders-falkordb-${index}`,
  ports: [{ name: 'redis', port: 6379, protocol: 'TCP' }],
  cpuPercent: null,
  memoryPercent: null,
  dns: `orders-falkordb-${index}.orders-falkordb-headless.graphdb.svc.cluster.local`,
});

export const PodListSchema = z
  .object({
    pods: z
      .array(
        z.object({
          name: z.string().describe('The Pod name'),
          namespace: z.string().describe('Its namespace'),
          status: z
            .string()
            .describe(
              "The Pod's phase (Pending, Running…), a waiting container's reason (`CrashLoopBackOff`) or Terminating",
            ),
          ready: z.boolean().describe('Whether every container is ready'),
          restartCount: z.number().int().describe('Container restarts, summed over its containers'),
          age: z.string().describe('Time since the Pod was created, as kubectl prints it (`45s`, `12m`, `5h`, `3d`)'),
          role: z.string().describe("KubeBlocks' role label (`primary`, `secondary`); '' when it has none"),
          shardId: z.string().optional().describe('The shard it belongs to, in a sharded deployment'),
          hostname: z.string().describe("The Pod's hostname"),
          ports: z
            .array(
              z.object({
                name: z.string().optional().describe('The port name'),
                port: z.number().int().describe('The container port'),
                protocol: z.string().optional().describe('TCP or UDP'),
              }),
            )
            .describe('The ports its containers declare'),
          cpuPercent: z.number().nullable().describe('Always null here: GET …/metrics reports usage'),
          memoryPercent: z.number().nullable().describe('Always null here: GET …/metrics reports usage'),
          dns: z.string().describe("The Pod's DNS name through the component's headless Service"),
        }),
      )
      .describe("The deployment's Pods"),
    total: z.number().int().describe('How many Pods the answer holds'),
  })
  .meta({ examples: [{ pods: [podExample(0, 'primary'), podExample(1, 'secondary')], total: 2 }] });

const CpuSchema = z
  .string()
  .regex(/^[0-9]+m?$/, 'must be whole cores or millicores (e.g. 2 or 500m)')
  .describe('Whole cores or millicores (`2`, `500m`)');
const MemorySchema = z
  .string()
  .regex(/^[0-9]+(Mi|Gi)?$/, 'must be bytes, Mi or Gi (e.g. 512Mi)')
  .describe('Bytes, Mi or Gi (`512Mi`)');
const AmountsSchema = z.object({ cpu: CpuSchema.optional(), memory: MemorySchema.optional() });
const ResourcesSchema = z.object({
  requests: AmountsSchema.optional().describe('What each pod is guaranteed'),
  limits: AmountsSchema.optional().describe('What each pod may use at most'),
});
const StorageSizeSchema = z
  .string()
  .regex(/^[1-9][0-9]*(Mi|Gi|Ti)$/, 'must be a size in Mi, Gi or Ti (e.g. 20Gi)')
  .describe('Size of each volume in Mi, Gi or Ti (`20Gi`)');
const PersistenceSchema = z.object({
  enabled: z.boolean().describe('Whether each pod gets a volume'),
  storageClass: z
    .string()
    .regex(OBJECT_NAME, 'must be a StorageClass name')
    .optional()
    .describe('The StorageClass of the volumes; the default one when absent'),
  size: StorageSizeSchema.optional(),
  accessMode: z.literal('ReadWriteOnce').optional().describe('Only ReadWriteOnce'),
});
const TolerationSchema = z.strictObject({
  key: z.string().max(253).optional().describe('The taint key it matches; every key when absent (with Exists)'),
  operator: z.enum(['Equal', 'Exists']).optional().describe('Equal (the default) compares `value`; Exists does not'),
  value: z.string().max(63).optional().describe('The taint value, with operator Equal'),
  effect: z
    .enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute'])
    .optional()
    .describe('The taint effect it matches; every effect when absent'),
  tolerationSeconds: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('With NoExecute: how long the pod stays bound after the taint appears'),
});
const StringMapSchema = z.record(z.string().max(317), z.string().max(4096));
const SchedulingPolicySchema = z.strictObject({
  nodeSelector: StringMapSchema.optional().describe('Node labels the pods need'),
  tolerations: z.array(TolerationSchema).max(50).optional().describe('Node taints the pods tolerate'),
});
/** One Service of a component (KubeBlocks ClusterComponentService): how the deployment is reached. */
const ServiceSpecSchema = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(25)
    .regex(DNS_LABEL_CHARACTERS, 'must be a Kubernetes name of at most 25 characters')
    .describe("The Service name, unique among the component's Services"),
  serviceType: z.enum(['ClusterIP', 'NodePort', 'LoadBalancer']).describe('The Kubernetes Service type'),
  annotations: StringMapSchema.optional().describe("Annotations of the Service (a cloud load balancer's settings)"),
  podService: z.boolean().optional().describe('One Service per pod instead of one for the component'),
});
const ServicesSchema = z
  .array(ServiceSpecSchema)
  .max(8)
  .refine((services) => new Set(services.map((service) => service.name)).size === services.length, {
    message: 'service names must be unique',
  })
  .describe('Extra Services through which the component is reached');
const LabelsSchema = StringMapSchema.optional().describe('Labels of the Cluster object');
const AnnotationsSchema = StringMapSchema.optional().describe('Annotations of the Cluster object');
const TerminationPolicySchema = z
  .enum(['DoNotTerminate', 'Delete', 'WipeOut'])
  .optional()
  .describe(
    'What deleting the deployment does: refuse (DoNotTerminate), delete the volumes (Delete), and the backups too (WipeOut)',
  );

/** POST /api/clusters/: the FalkorDB Enterprise admin API's structured spec (what this server cannot apply yet is refused, 422). */
export const CreateClusterBodySchema = z
  .object({
    name: z
      .string()
      .min(1)
      .max(63)
      .regex(DNS_LABEL_CHARACTERS, 'must be a Kubernetes name')
      .describe("The new deployment's name"),
    namespace: z
      .string()
      .min(1)
      .max(63)
      .regex(DNS_LABEL_CHARACTERS, 'must be a Kubernetes namespace name')
      .describe('The namespace to create it in (one MANAGED_NAMESPACES allows)'),
    labels: LabelsSchema,
    annotations: AnnotationsSchema,
    spec: z
      .looseObject({
        replicas: z.number().int().min(1).max(10).optional().describe('Pods of the data component'),
        version: z.string().min(1).max(63).optional().describe("The FalkorDB version; KubeBlocks' default when absent"),
        topology: z
          .enum(['standalone', 'replication', 'cluster'])
          .optional()
          .describe('One server, primary and replicas with a sentinel, or sharded'),
        resources: ResourcesSchema.optional().describe('CPU and memory of each data pod'),
        persistence: PersistenceSchema.optional().describe('The data volumes'),
        schedulingPolicy: SchedulingPolicySchema.optional().describe('Where the data pods may run'),
        services: ServicesSchema.optional(),
        disableExporter: z.boolean().optional().describe('Leave out the Prometheus exporter sidecar'),
        sentinel: z
          .looseObject({
            enabled: z.boolean().describe('Whether to run a sentinel (replication topology)'),
            replicas: z.number().int().min(1).max(9).optional().describe('Sentinel pods (odd, 3 or more)'),
            resources: ResourcesSchema.optional().describe('CPU and memory of each sentinel pod'),
            persistence: PersistenceSchema.optional().describe('The sentinel volumes'),
            services: ServicesSchema.optional(),
            schedulingPolicy: SchedulingPolicySchema.optional().describe('Where the sentinel pods may run'),
          })
          .optional()
          .describe('The sentinel, for the replication topology'),
        sharding: z
          .looseObject({
            enabled: z.boolean().describe('Whether to shard (cluster topology)'),
            shardCount: z.number().int().min(3).max(100).optional().describe('Number of shards'),
            replicas: z.number().int().min(2).max(10).optional().describe('Pods of each shard'),
            resources: ResourcesSchema.optional().describe('CPU and memory of each shard pod'),
            persistence: PersistenceSchema.optional().describe('The shard volumes'),
            services: ServicesSchema.optional(),
            schedulingPolicy: SchedulingPolicySchema.optional().describe('Where the shard pods may run'),
          })
          .optional()
          .describe('The shards, for the cluster topology'),
        terminationPolicy: TerminationPolicySchema,
      })
      .describe('What to deploy'),
  })
  .meta({
    examples: [
      {
        name: 'orders',
        namespace: 'graphdb',
        labels: { team: 'payments' },
        spec: {
          topology: 'replication',
          version: '4.12.5',
          replicas: 2,
          resources: { requests: { cpu: '1', memory: '2Gi' }, limits: { cpu: '2', memory: '4Gi' } },
          persistence: { enabled: true, size: '20Gi', storageClass: 'standard' },
          sentinel: { enabled: true, replicas: 3 },
          terminationPolicy: 'Delete',
        },
      },
    ],
  });
export type CreateClusterBody = z.infer<typeof CreateClusterBodySchema>;

export const DeleteClusterQuerySchema = NamespaceQuerySchema.extend({
  cascade: queryBoolean(trueOrFalse().optional()).describe(
    'Accepted for the real API and not used: the terminationPolicy decides what is deleted',
  ),
  gracePeriodSeconds: queryInteger(wholeNumber(0, 86_400).optional()).describe(
    'Seconds the Kubernetes API waits before deleting the Cluster object (its default when absent)',
  ),
});

const MANIFEST_EXAMPLE = [
  'apiVersion: apps.kubeblocks.io/v1',
  'kind: Cluster',
  'metadata:',
  '  name: orders',
  '  namespace: graphdb',
  'spec:',
  '  clusterDef: falkordb',
  '  topology: standalone',
  '  terminationPolicy: Delete',
  '  componentSpecs:',
  '    - name: falkordb',
  '      serviceVersion: 4.12.5',
  '      replicas: 1',
  '      resources:',
  '        requests: { cpu: "1", memory: 2Gi }',
  '      volumeClaimTemplates:',
  '        - name: data',
  '          spec:',
  '            accessModes: [ReadWriteOnce]',
  '            resources: { requests: { storage: 20Gi } }',
  '',
].join('\n');

/** A manifest of at most 256 KiB. */
export const YamlBodySchema = z
  .object({ yaml: z.string().min(1).max(262_144).describe('A KubeBlocks Cluster manifest (apps.kubeblocks.io/v1)') })
  .meta({ examples: [{ yaml: MANIFEST_EXAMPLE }] });
export const YamlSchema = z
  .object({ yaml: z.string().describe('The stored Cluster object as YAML, without managedFields') })
  .meta({ examples: [{ yaml: MANIFEST_EXAMPLE }] });

/** GET /api/clusters/schema: the create form's JSON Schema. */
export const ClusterFormSchemaSchema = z
  .object({
    schema: z
      .record(z.string(), z.unknown())
      .describe('The JSON Schema (draft 2020-12) of the body POST /api/clusters/ accepts'),
  })
  .meta({
    examples: [
      {
        schema: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          properties: {
            name: {
              type: 'string',
              minLength: 1,
              maxLength: 63,
              pattern: DNS_LABEL_CHARACTERS.source,
              description: "The new deployment's name",
            },
            namespace: { type: 'string', minLength: 1, maxLength: 63, description: 'The namespace to create it in' },
            spec: {
              type: 'object',
              description: 'What to deploy',
              properties: {
                topology: {
                  type: 'string',
                  enum: ['standalone', 'replication', 'cluster'],
                  description: 'One server, primary and replicas with a sentinel, or sharded',
                },
              },
            },
          },
          required: ['name', 'namespace', 'spec'],
        },
      },
    ],
  });

export const ClusterConfigSchema = z
  .object({
    configMapName: z.string().describe("The ConfigMap the parameters were read from; '' in embedded mode (CONFIG GET)"),
    parameters: z
      .array(
        z.object({
          key: z.string().min(1).describe('The redis.conf directive'),
          value: z.string().describe('Its value as the file writes it'),
        }),
      )
      .describe('One entry per directive, in file order; directives holding credentials left out'),
  })
  .meta({
    examples: [
      {
        configMapName: 'orders-falkordb-falkordb-config',
        parameters: [
          { key: 'maxmemory', value: '1610612736' },
          { key: 'maxmemory-policy', value: 'noeviction' },
          { key: 'appendonly', value: 'yes' },
          { key: 'loadmodule', value: '/FalkorDB/bin/src/falkordb.so THREAD_COUNT 4' },
        ],
      },
    ],
  });

export const CredentialsSchema = z
  .object({
    hostname: z.string().describe("The address to connect to (the data component's Service)"),
    port: z.number().int().describe('Its port'),
    username: z.string().describe('The default account'),
    password: z.string().describe('Its password'),
    internalHostname: z.string().optional().describe("The Service's DNS name inside the Kubernetes cluster"),
    externalHostname: z.string().optional().describe('An address outside the Kubernetes cluster, when there is one'),
  })
  .meta({
    examples: [
      {
        hostname: 'orders-falkordb.graphdb.svc.cluster.local',
        port: 6379,
        username: 'default',
        password: 'kT9vQ2mW7xLp4RzA',
        internalHostname: 'orders-falkordb.graphdb.svc.cluster.local',
      },
    ],
  });

/** PATCH /api/clusters/{clusterName}: the real body; what this server cannot apply yet is refused (422). */
export const PatchClusterBodySchema = z
  .looseObject({
    replicas: z.number().int().min(1).max(10).optional().describe('Pods of the data component'),
    resources: ResourcesSchema.optional().describe('CPU and memory of each data pod'),
    persistence: PersistenceSchema.optional().describe('The data volumes (their size only grows)'),
    services: ServicesSchema.optional(),
    disableExporter: z.boolean().optional().describe('Leave out the Prometheus exporter sidecar'),
    sentinel: z
      .looseObject({
        replicas: z.number().int().min(1).max(9).optional().describe('Sentinel pods (odd, 3 or more)'),
        resources: ResourcesSchema.optional().describe('CPU and memory of each sentinel pod'),
        services: ServicesSchema.optional(),
      })
      .optional()
      .describe('The sentinel component'),
    sharding: z
      .looseObject({
        shardCount: z.number().int().min(3).max(100).optional().describe('Number of shards'),
        replicas: z.number().int().min(2).max(10).optional().describe('Pods of each shard'),
        resources: ResourcesSchema.optional().describe('CPU and memory of each shard pod'),
        persistence: PersistenceSchema.optional().describe('The shard volumes (their size only grows)'),
        services: ServicesSchema.optional(),
      })
      .optional()
      .describe('The shards of a sharded deployment'),
    terminationPolicy: TerminationPolicySchema,
    labels: LabelsSchema,
    annotations: AnnotationsSchema,
  })
  .meta({
    examples: [
      {
        replicas: 3,
        resources: { requests: { cpu: '2', memory: '4Gi' }, limits: { cpu: '2', memory: '4Gi' } },
        labels: { team: 'payments' },
      },
    ],
  });
export type PatchClusterBody = z.infer<typeof PatchClusterBodySchema>;
