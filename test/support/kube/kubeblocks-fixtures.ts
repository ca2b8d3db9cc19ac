// Cluster objects shaped like the FalkorDB addon's examples (standalone, replication, cluster topologies), and a
// tiny controller that moves OpsRequests through their phases the way KubeBlocks does.
import type { KubeApiDouble, KubeObject } from './kube-api-double.js';

export const CLUSTERS_V1 = 'apps.kubeblocks.io/v1/clusters';
export const OPS_V1 = 'operations.kubeblocks.io/v1alpha1/opsrequests';
export const CLUSTERS_V1ALPHA1 = 'apps.kubeblocks.io/v1alpha1/clusters';
export const OPS_V1ALPHA1 = 'apps.kubeblocks.io/v1alpha1/opsrequests';

const labels = { 'clusterdefinition.kubeblocks.io/name': 'falkordb' };
const resources = (cpu: string, memory: string) => ({ limits: { cpu, memory }, requests: { cpu, memory } });
const storage = (size: string) => [
  { name: 'data', spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } } } },
];

/** A FalkorDB Cluster of the addon: the metadata and spec fields every topology shares, and the rest of its spec. */
function falkordbCluster(
  apiVersion: string,
  name: string,
  namespace: string,
  spec: Record<string, unknown>,
  status: Record<string, unknown>,
): KubeObject {
  const definition =
    apiVersion === 'apps.kubeblocks.io/v1' ? { clusterDef: 'falkordb' } : { clusterDefinitionRef: 'falkordb' };
  return {
    apiVersion,
    kind: 'Cluster',
    metadata: { name, namespace, labels },
    spec: { ...definition, topology: spec.topology, terminationPolicy: 'Delete', ...spec },
    status,
  };
}

/** A component (or sharding template) of the addon's version, with equal requests and limits. */
const component = (
  name: string,
  replicas: number,
  [cpu, memory]: [string, string],
  size: string,
  componentDef?: string,
) => ({
  name,
  ...(componentDef ? { componentDef } : {}),
  serviceVersion: '4.12.5',
  replicas,
  resources: resources(cpu, memory),
  volumeClaimTemplates: storage(size),
});

export function standalone(name: string, namespace: string, phase = 'Running'): KubeObject {
  return falkordbCluster(
    'apps.kubeblocks.io/v1',
    name,
    namespace,
    { topology: 'standalone', componentSpecs: [component('falkordb', 1, ['0.5', '0.5Gi'], '20Gi')] },
    { phase, components: { falkordb: { phase } } },
  );
}

/**
 * A standalone Cluster as the YAML text a caller sends to POST /api/clusters/yaml, with extra lines for its metadata
 * or its one component (indented as they go there). The tests' own manifest: the OpenAPI example in
 * src/admin/clusters/schemas.ts documents the route and is not what these tests send.
 */
export function standaloneManifest(
  name: string,
  namespace: string,
  extra: { terminationPolicy?: string; metadata?: string[]; component?: string[] } = {},
): string {
  return [
    'apiVersion: apps.kubeblocks.io/v1',
    'kind: Cluster',
    'metadata:',
    `  name: ${name}`,
    `  namespace: ${namespace}`,
    ...(extra.metadata ?? []),
    'spec:',
    '  clusterDef: falkordb',
    '  topology: standalone',
    `  terminationPolicy: ${extra.terminationPolicy ?? 'Delete'}`,
    '  componentSpecs:',
    '    - name: falkordb',
    '      serviceVersion: 4.12.5',
    '      replicas: 1',
    ...(extra.component ?? []),
    '',
  ].join('\n');
}

export function replication(name: string, namespace: string): KubeObject {
  return falkordbCluster(
    'apps.kubeblocks.io/v1',
    name,
    namespace,
    {
      topology: 'replication',
      componentSpecs: [
        component('falkordb', 2, ['1', '2Gi'], '20Gi'),
        component('falkordb-sent', 3, ['0.2', '0.2Gi'], '1Gi'),
      ],
    },
    { phase: 'Running', components: { falkordb: { phase: 'Running' }, 'falkordb-sent': { phase: 'Running' } } },
  );
}

export function sharded(name: string, namespace: string): KubeObject {
  return falkordbCluster(
    'apps.kubeblocks.io/v1',
    name,
    namespace,
    {
      topology: 'cluster',
      shardings: [
        { name: 'shard', shards: 3, template: component('falkordb', 2, ['1', '1Gi'], '20Gi', 'falkordb-cluster-4') },
      ],
    },
    { phase: 'Running', shardings: { shard: { phase: 'Running' } } },
  );
}

export function legacyReplication(name: string, namespace: string): KubeObject {
  return falkordbCluster(
    'apps.kubeblocks.io/v1alpha1',
    name,
    namespace,
    { topology: 'replication', componentSpecs: [component('falkordb', 2, ['1', '1Gi'], '10Gi', 'falkordb')] },
    { phase: 'Running', components: { falkordb: { phase: 'Running' } } },
  );
}

/** A KubeBlocks 0.9 sharded Cluster: its shards are `spec.shardingSpecs` (1.x calls them `spec.shardings`). */
export function legacySharded(name: string, namespace: string): KubeObject {
  return falkordbCluster(
    'apps.kubeblocks.io/v1alpha1',
    name,
    namespace,
    {
      topology: 'cluster',
      shardingSpecs: [
        { name: 'shard', shards: 3, template: component('shard', 2, ['1', '1Gi'], '10Gi', 'falkordb-cluster') },
      ],
    },
    { phase: 'Running' },
  );
}

/** An OpsRequest status one step on, as the KubeBlocks controller writes it: Pending → Creating → Running (1/2) → Succeed (2/2). */
export function nextOpsStatus(current: unknown): { phase: string; status: Record<string, unknown> } {
  const status = (current ?? {}) as Record<string, unknown>;
  const phase =
    { undefined: 'Pending', Pending: 'Creating', Creating: 'Running', Running: 'Succeed' }[
      String(status.phase) as 'Pending'
    ] ?? 'Succeed';
  const progress = { Pending: '0/2', Creating: '0/2', Running: '1/2', Succeed: '2/2' }[phase];
  // RFC 3339 without fractions, which the real API server's date-time fields accept.
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    phase,
    status: {
      ...status,
      phase,
      progress,
      ...(phase === 'Running' ? { startTimestamp: now } : {}),
      ...(phase === 'Succeed' ? { completionTimestamp: now } : {}),
      conditions: [
        {
          type: phase,
          status: 'True',
          reason: `Ops${phase}`,
          message: `OpsRequest is ${phase}`,
          lastTransitionTime: now,
        },
      ],
    },
  };
}

/** Moves one OpsRequest of the API double a step (see nextOpsStatus). */
export function advanceOpsRequest(kube: KubeApiDouble, resource: string, namespace: string, name: string): string {
  const ops = kube.get(resource, namespace, name)!;
  const { phase, status } = nextOpsStatus(ops.status);
  kube.put(resource, namespace, { ...ops, status });
  return phase;
}
