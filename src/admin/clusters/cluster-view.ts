// A normalised cluster record in the FalkorDB Enterprise admin API's Cluster shape: what GET
// /api/clusters/ and GET /api/clusters/{clusterName} answer. The record's own fields (phase, components, …) stay
// alongside, since the real shape allows extra properties and the CLI shows them.
import type { ClusterRecord, ComponentRecord } from '../../platform/clusters/cluster-records.js';
import { parseQuantity } from '../../platform/kubernetes/quantities.js';

export type ClusterState =
  'Pending' | 'Running' | 'Stopping' | 'Stopped' | 'Deleting' | 'Failed' | 'Degraded' | 'Unknown';

/** KubeBlocks' Cluster.status.phase → the FalkorDB Enterprise admin API's state (docs/decisions/clusters.md). */
const STATES: Record<string, ClusterState> = {
  Creating: 'Pending',
  Running: 'Running',
  Updating: 'Running',
  Stopping: 'Stopping',
  Stopped: 'Stopped',
  Deleting: 'Deleting',
  Failed: 'Failed',
  Abnormal: 'Degraded',
};

export const stateOf = (phase: string): ClusterState => STATES[phase] ?? 'Unknown';

const isSentinel = (component: ComponentRecord) => component.kind === 'component' && /sent/.test(component.name);

/** The component that holds the data: the sharding, or the first component that is not the sentinel. */
export function dataComponentOf(record: ClusterRecord): ComponentRecord | undefined {
  return record.components.find((c) => c.kind === 'sharding') ?? record.components.find((c) => !isSentinel(c));
}

export function topologyOf(record: ClusterRecord): 'standalone' | 'replication' | 'cluster' {
  if (record.components.some((c) => c.kind === 'sharding') || record.topology === 'cluster') return 'cluster';
  if (record.topology === 'replication' || record.components.some(isSentinel)) return 'replication';
  return 'standalone';
}

/** A CPU quantity as the real shape writes it (`^[0-9]+m?$`): whole cores, or millicores; undefined when unreadable. */
export function cpuOf(quantity: string): string | undefined {
  const match = /^(\d+(?:\.\d+)?)(m?)$/.exec(quantity);
  if (!match) return undefined;
  if (match[2] === 'm') return Number.isInteger(Number(match[1])) ? quantity : undefined;
  const cores = Number(match[1]);
  return Number.isInteger(cores) ? String(cores) : `${Math.round(cores * 1000)}m`;
}

/** A memory quantity as the real shape writes it (`^[0-9]+(Mi|Gi)?$`); undefined when unreadable. */
export function memoryOf(quantity: string): string | undefined {
  const bytes = parseQuantity(quantity, { suffixes: ['', 'Ki', 'Mi', 'Gi', 'Ti', 'k', 'M', 'G'] });
  if (bytes === undefined) return undefined;
  if (bytes % 2 ** 30 === 0) return `${bytes / 2 ** 30}Gi`;
  if (bytes % 2 ** 20 === 0) return `${bytes / 2 ** 20}Mi`;
  return String(Math.ceil(bytes));
}

function resourcesOf(component: ComponentRecord) {
  const cpu = cpuOf(component.cpu);
  const memory = memoryOf(component.memory);
  if (!cpu && !memory) return undefined;
  return { requests: { ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) } };
}

function persistenceOf(component: ComponentRecord) {
  return component.storage
    ? {
        enabled: true,
        size: component.storage,
        accessMode: 'ReadWriteOnce',
        ...(component.storageClass ? { storageClass: component.storageClass } : {}),
      }
    : { enabled: false };
}

export function toApiCluster(record: ClusterRecord) {
  const data = dataComponentOf(record);
  const sentinel = record.components.find(isSentinel);
  const state = stateOf(record.phase);
  const replicas = data?.replicas ?? 0;
  const resources = data ? resourcesOf(data) : undefined;
  const shards = data?.kind === 'sharding' ? (data.shards ?? 1) : undefined;
  return {
    name: record.name,
    namespace: record.namespace,
    ...(record.createdAt ? { creationTimestamp: record.createdAt } : {}),
    state,
    topology: topologyOf(record),
    replicas,
    version: data?.serviceVersion ?? '',
    ...(resources ? { resources } : {}),
    ...(data ? { persistence: persistenceOf(data) } : {}),
    sentinel: sentinel ? { enabled: true, replicas: Math.max(1, sentinel.replicas) } : { enabled: false },
    sharding:
      shards === undefined
        ? { enabled: false }
        : {
            enabled: true,
            ...(shards >= 3 ? { shardCount: shards } : {}),
            ...(replicas >= 2 ? { replicas } : {}),
          },
    ...(record.terminationPolicy ? { terminationPolicy: record.terminationPolicy } : {}),
    status: {
      state,
      ready: state === 'Running',
      replicas: record.components.reduce((sum, c) => sum + c.replicas * (c.shards ?? 1), 0),
    },
    // The normalised record's own fields (the CLI's table).
    phase: record.phase,
    createdAt: record.createdAt,
    components: record.components,
  };
}

export type ApiCluster = ReturnType<typeof toApiCluster>;
