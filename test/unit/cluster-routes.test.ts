import { describe, expect, it } from 'vitest';
import { clusterListJson } from '../../src/admin/clusters/cluster-routes.js';
import { ClusterListSchema } from '../../src/admin/clusters/schemas.js';
import { toApiCluster } from '../../src/admin/clusters/cluster-view.js';
import type { ClusterRecord, ComponentRecord } from '../../src/platform/clusters/cluster-records.js';
import { objectVersionOf } from '../../src/platform/kubernetes/kubeblocks.js';

const component = (overrides: Partial<ComponentRecord> = {}): ComponentRecord => ({
  name: 'falkordb',
  kind: 'component',
  phase: 'Running',
  replicas: 1,
  serviceVersion: '4.12.5',
  cpu: '500m',
  memory: '1Gi',
  storage: '20Gi',
  ...overrides,
});

const record = (name: string, overrides: Partial<ClusterRecord> = {}): ClusterRecord => ({
  name,
  namespace: 'graphdb-system',
  phase: 'Running',
  topology: 'standalone',
  terminationPolicy: 'Delete',
  createdAt: '2026-11-27T10:00:00Z',
  components: [component()],
  ...overrides,
});

/** What the route's response serializer wrote for the same records. */
const serialized = (records: ClusterRecord[]) =>
  JSON.stringify(ClusterListSchema.encode({ clusters: records.map(toApiCluster), total: records.length }));

describe('the cluster list text', () => {
  it("is the list schema's serialization, for every kind of deployment and for none", () => {
    const records = [
      record('solo'),
      record('pair', {
        topology: 'replication',
        components: [component({ replicas: 2 }), component({ name: 'falkordb-sent', replicas: 3, storageClass: 'x' })],
      }),
      record('shards', {
        topology: 'cluster',
        phase: 'Abnormal',
        terminationPolicy: '',
        createdAt: '',
        components: [component({ kind: 'sharding', shards: 3, replicas: 2, cpu: '', memory: '' })],
      }),
      record('quoted "name"\u2028', { phase: 'Creating' }),
    ];
    expect(clusterListJson(records)).toBe(serialized(records));
    expect(JSON.parse(clusterListJson(records))).toEqual(JSON.parse(serialized(records)));
    expect(clusterListJson([])).toBe(serialized([]));
  });

  it("is each record's own: a new record of the same deployment shows its new state", () => {
    const running = record('db');
    expect(clusterListJson([running])).toBe(serialized([running]));
    const failed = record('db', { phase: 'Failed' });
    expect(clusterListJson([failed])).toBe(serialized([failed]));
    const both = JSON.parse(clusterListJson([running, failed])) as { clusters: { state: string }[] };
    expect(both.clusters.map((c) => c.state)).toEqual(['Running', 'Failed']);
  });
});

describe('objectVersionOf', () => {
  const object = (metadata: Record<string, unknown>, apiVersion: unknown = 'apps.kubeblocks.io/v1') => ({
    apiVersion,
    metadata,
  });

  it('names an object version by API version, uid and resourceVersion', () => {
    const key = objectVersionOf(object({ uid: 'u1', resourceVersion: '7' }));
    expect(key).toBeDefined();
    expect(objectVersionOf(object({ uid: 'u1', resourceVersion: '7' }))).toBe(key);
    expect(objectVersionOf(object({ uid: 'u1', resourceVersion: '8' }))).not.toBe(key);
    expect(objectVersionOf(object({ uid: 'u2', resourceVersion: '7' }))).not.toBe(key);
    expect(objectVersionOf(object({ uid: 'u1', resourceVersion: '7' }, 'apps.kubeblocks.io/v1alpha1'))).not.toBe(key);
  });

  it('names none when a part is missing or not text', () => {
    expect(objectVersionOf(object({ resourceVersion: '7' }))).toBeUndefined();
    expect(objectVersionOf(object({ uid: 'u1' }))).toBeUndefined();
    expect(objectVersionOf(object({ uid: 'u1', resourceVersion: 7 }))).toBeUndefined();
    expect(objectVersionOf(object({ uid: '', resourceVersion: '7' }))).toBeUndefined();
    expect(objectVersionOf(object({ uid: 'u1', resourceVersion: '7' }, null))).toBeUndefined();
    expect(objectVersionOf({ metadata: { uid: 'u1', resourceVersion: '7' } })).toBeUndefined();
    expect(objectVersionOf(null)).toBeUndefined();
    expect(objectVersionOf('text')).toBeUndefined();
  });
});
