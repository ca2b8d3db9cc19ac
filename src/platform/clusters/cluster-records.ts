// KubeBlocks Cluster and OpsRequest objects (v1 and v1alpha1) parsed with zod into normalised records.
import { z } from 'zod';
import { INSTANCE_LABEL } from '../../lib/kubernetes-labels.js';

const Quantity = z.union([z.string(), z.number()]).transform(String);
const Resources = z
  .object({ requests: z.record(z.string(), Quantity).optional(), limits: z.record(z.string(), Quantity).optional() })
  .optional();
const VolumeClaims = z
  .array(
    z.object({
      name: z.string(),
      spec: z
        .object({
          resources: z.object({ requests: z.record(z.string(), Quantity).optional() }).optional(),
          storageClassName: z.string().optional(),
        })
        .optional(),
    }),
  )
  .optional();
const ComponentSpec = z.object({
  name: z.string(),
  serviceVersion: z.string().optional(),
  replicas: z.number().int().optional(),
  resources: Resources,
  volumeClaimTemplates: VolumeClaims,
});
const ShardingSpec = z.object({
  name: z.string(),
  shards: z.number().int().optional(),
  template: ComponentSpec.partial({ name: true }),
});

export const RawClusterSchema = z.object({
  apiVersion: z.string(),
  metadata: z.object({
    name: z.string(),
    namespace: z.string(),
    creationTimestamp: z.string().optional(),
    labels: z.record(z.string(), z.string()).optional(),
  }),
  spec: z.object({
    clusterDef: z.string().optional(),
    clusterDefinitionRef: z.string().optional(),
    topology: z.string().optional(),
    terminationPolicy: z.string().optional(),
    componentSpecs: z.array(ComponentSpec).optional(),
    shardings: z.array(ShardingSpec).optional(),
    shardingSpecs: z.array(ShardingSpec).optional(),
  }),
  status: z
    .object({
      phase: z.string().optional(),
      components: z.record(z.string(), z.object({ phase: z.string().optional() })).optional(),
      shardings: z.record(z.string(), z.object({ phase: z.string().optional() })).optional(),
    })
    .optional(),
});

export interface ComponentRecord {
  name: string;
  kind: 'component' | 'sharding';
  phase: string;
  replicas: number;
  shards?: number;
  serviceVersion: string;
  cpu: string;
  memory: string;
  storage: string;
  /** The data volume's StorageClass, when the template names one (the default class otherwise). */
  storageClass?: string;
}

export interface ClusterRecord {
  name: string;
  namespace: string;
  phase: string;
  topology: string;
  terminationPolicy: string;
  createdAt: string;
  components: ComponentRecord[];
}

function component(
  spec: z.infer<typeof ComponentSpec> | z.infer<typeof ShardingSpec>['template'],
  name: string,
  kind: ComponentRecord['kind'],
  phase: string | undefined,
): ComponentRecord {
  const storage = spec.volumeClaimTemplates?.find((claim) => claim.name === 'data') ?? spec.volumeClaimTemplates?.[0];
  return {
    name,
    kind,
    phase: phase ?? 'Unknown',
    replicas: spec.replicas ?? 1,
    serviceVersion: spec.serviceVersion ?? '',
    cpu: spec.resources?.requests?.cpu ?? '',
    memory: spec.resources?.requests?.memory ?? '',
    storage: storage?.spec?.resources?.requests?.storage ?? '',
    ...(storage?.spec?.storageClassName ? { storageClass: storage.spec.storageClassName } : {}),
  };
}

export function toClusterRecord(raw: z.infer<typeof RawClusterSchema>): ClusterRecord {
  const status = raw.status ?? {};
  const shardings = raw.spec.shardings ?? raw.spec.shardingSpecs ?? [];
  return {
    name: raw.metadata.name,
    namespace: raw.metadata.namespace,
    phase: status.phase ?? 'Unknown',
    topology: raw.spec.topology ?? (shardings.length > 0 ? 'cluster' : ''),
    terminationPolicy: raw.spec.terminationPolicy ?? '',
    createdAt: raw.metadata.creationTimestamp ?? '',
    components: [
      ...(raw.spec.componentSpecs ?? []).map((spec) =>
        component(spec, spec.name, 'component', status.components?.[spec.name]?.phase),
      ),
      ...shardings.map((sharding) => ({
        ...component(sharding.template, sharding.name, 'sharding', status.shardings?.[sharding.name]?.phase),
        shards: sharding.shards ?? 1,
      })),
    ],
  };
}

export const RawOpsRequestSchema = z.object({
  metadata: z.object({
    name: z.string(),
    creationTimestamp: z.string().optional(),
    labels: z.record(z.string(), z.string()).optional(),
  }),
  spec: z.object({ type: z.string(), clusterName: z.string().optional(), clusterRef: z.string().optional() }),
  status: z
    .object({
      phase: z.string().optional(),
      progress: z.string().optional(),
      startTimestamp: z.string().optional(),
      completionTimestamp: z.string().optional(),
      conditions: z
        .array(z.object({ message: z.string().optional(), lastTransitionTime: z.string().optional() }))
        .optional(),
    })
    .optional(),
});

export interface OperationRecord {
  name: string;
  /** The cluster the operation acts on. */
  cluster: string;
  type: string;
  phase: string;
  progress: string;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  message: string;
}

export function toOperationRecord(raw: z.infer<typeof RawOpsRequestSchema>): OperationRecord {
  const status = raw.status ?? {};
  const conditions = status.conditions ?? [];
  return {
    name: raw.metadata.name,
    cluster: raw.spec.clusterName ?? raw.spec.clusterRef ?? raw.metadata.labels?.[INSTANCE_LABEL] ?? '',
    type: raw.spec.type,
    phase: status.phase ?? 'Pending',
    progress: status.progress ?? '0/0',
    createdAt: raw.metadata.creationTimestamp ?? '',
    startedAt: status.startTimestamp ?? null,
    completedAt: status.completionTimestamp ?? null,
    message: conditions.at(-1)?.message ?? '',
  };
}
