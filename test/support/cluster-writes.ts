// Cluster writes that must behave the same on the Kubernetes API double and on a real API server: both suites seed
// the clusters of cluster-reads.ts, then run these. What the server asked Kubernetes for is read back from what was
// stored (the double's objects, or the real API server's), so a write is checked by its effect, not by its answer.
import type { FastifyInstance } from 'fastify';
import { expect, it } from 'vitest';
import type { KubeObject } from './kube/kube-api-double.js';
import { standalone } from './kube/kubeblocks-fixtures.js';
import { setMultiClusterMode, type ClusterReadContext } from './cluster-reads.js';

export interface ClusterWriteContext extends ClusterReadContext {
  /** An OpsRequest of the cluster namespace, as stored. */
  opsRequest: (name: string) => Promise<KubeObject>;
  /** How many OpsRequests the server has created in the cluster namespace so far. */
  opsRequestCount: () => Promise<number>;
  /** Adds a Cluster, with its status, as KubeBlocks would have it. */
  addCluster: (cluster: KubeObject) => Promise<void>;
  /** Moves an OpsRequest of the cluster namespace one phase on, as the KubeBlocks controller does; returns the phase. */
  advanceOpsRequest: (name: string) => Promise<string>;
  /** What the store adds to every OpsRequest spec: the real CRD's schema defaults (the double adds none). */
  opsSpecDefaults?: Record<string, unknown>;
}

type Method = 'GET' | 'POST';

function caller(app: () => FastifyInstance) {
  return (method: Method, url: string, payload: unknown, cookie: string) =>
    app().inject({ method, url, headers: { cookie }, ...(payload === undefined ? {} : { payload: payload as never }) });
}

const operation = (res: { json<T>(): T }) => res.json<{ operation: string }>().operation;

export function sharedClusterWrites(context: () => ClusterWriteContext): void {
  const inject = caller(() => context().app);
  const call = (method: Method, url: string, payload?: unknown, as: 'operator' | 'viewer' = 'operator') =>
    inject(method, url, payload, context().sessions[as]);
  const ops = (name: string) => context().opsRequest(name);
  /** An OpsRequest spec as stored: what the server sent, with the store's defaults. */
  const stored = (spec: Record<string, unknown>) => ({ ...context().opsSpecDefaults, ...spec });

  it('restarts with an OpsRequest labelled for the cluster, named by generateName, answering 202 at once', async () => {
    const res = await call('POST', '/api/clusters/pair/restart', {});
    expect(res.statusCode, res.body).toBe(202);
    const name = operation(res);
    expect(name).toMatch(/^pair-restart-[a-z0-9]{5}$/);
    const created = await ops(name);
    expect(created.metadata.labels).toEqual({
      'app.kubernetes.io/instance': 'pair',
      'operations.kubeblocks.io/ops-type': 'Restart',
    });
    expect(created.spec).toEqual(
      stored({
        clusterName: 'pair',
        type: 'Restart',
        restart: [{ componentName: 'falkordb' }, { componentName: 'falkordb-sent' }],
      }),
    );
  });

  it('turns target replicas into scale-out/in deltas, shards into absolute counts, and resources into a second operation', async () => {
    const out = await call('POST', '/api/clusters/pair/scale', { component: 'falkordb', replicas: 3 });
    expect(out.statusCode, out.body).toBe(202);
    expect((await ops(operation(out))).spec).toEqual(
      stored({
        clusterName: 'pair',
        type: 'HorizontalScaling',
        horizontalScaling: [{ componentName: 'falkordb', scaleOut: { replicaChanges: 1 } }],
      }),
    );
    const inward = await call('POST', '/api/clusters/pair/scale', { component: 'falkordb', replicas: 1 });
    expect((await ops(operation(inward))).spec).toMatchObject({
      horizontalScaling: [{ componentName: 'falkordb', scaleIn: { replicaChanges: 1 } }],
    });
    const shards = await call('POST', '/api/clusters/shards/scale', { shards: 5 });
    expect(shards.statusCode, shards.body).toBe(202);
    expect((await ops(operation(shards))).spec).toMatchObject({
      horizontalScaling: [{ componentName: 'shard', shards: 5 }],
    });
    const both = await call('POST', '/api/clusters/solo/scale', { replicas: 2, cpu: '500m', memory: '1Gi' });
    expect(both.statusCode, both.body).toBe(202);
    const names = both.json<{ operations: string[] }>().operations;
    expect(names).toHaveLength(2);
    expect((await ops(names[1]!)).spec).toEqual(
      stored({
        clusterName: 'solo',
        type: 'VerticalScaling',
        verticalScaling: [
          {
            componentName: 'falkordb',
            requests: { cpu: '500m', memory: '1Gi' },
            limits: { cpu: '500m', memory: '1Gi' },
          },
        ],
      }),
    );
  });

  // KubeBlocks 1.x's OpsRequest CRD refuses an entry with shards and scaleOut/scaleIn together (a CEL rule), so a
  // change of both the shard count and the replicas per shard is two HorizontalScaling operations, shards first.
  it('scales the shard count and the replicas per shard of a sharding together as two operations', async () => {
    const before = await context().opsRequestCount();
    const res = await call('POST', '/api/clusters/shards/scale', { shards: 4, replicas: 3 });
    expect(res.statusCode, res.body).toBe(202);
    const names = res.json<{ operations: string[] }>().operations;
    expect(names).toHaveLength(2);
    expect(await context().opsRequestCount()).toBe(before + 2);
    expect((await ops(names[0]!)).spec).toEqual(
      stored({
        clusterName: 'shards',
        type: 'HorizontalScaling',
        horizontalScaling: [{ componentName: 'shard', shards: 4 }],
      }),
    );
    expect((await ops(names[1]!)).spec).toEqual(
      stored({
        clusterName: 'shards',
        type: 'HorizontalScaling',
        horizontalScaling: [{ componentName: 'shard', scaleOut: { replicaChanges: 1 } }],
      }),
    );
  });

  it('reconfigures with string values, refusing unknown keys unless asked to apply them', async () => {
    const res = await call('POST', '/api/clusters/solo/reconfigure', { parameters: { TIMEOUT: 1000, CMD_INFO: 'no' } });
    expect(res.statusCode, res.body).toBe(202);
    expect((await ops(operation(res))).spec).toEqual(
      stored({
        clusterName: 'solo',
        type: 'Reconfiguring',
        reconfigures: [
          {
            componentName: 'falkordb',
            parameters: [
              { key: 'TIMEOUT', value: '1000' },
              { key: 'CMD_INFO', value: 'no' },
            ],
          },
        ],
      }),
    );
    const forced = await call('POST', '/api/clusters/solo/reconfigure', {
      parameters: { maxmemory: '1gb' },
      allowUnknownParameters: true,
    });
    expect(forced.statusCode).toBe(202);
  });

  const refusals: [url: string, body: unknown, status: number, message: (namespace: string) => string][] = [
    [
      '/api/clusters/pair/scale',
      { component: 'nope', replicas: 2 },
      400,
      () => 'Component nope does not exist in cluster pair (components: falkordb, falkordb-sent)',
    ],
    ['/api/clusters/pair/scale', { replicas: 0 }, 400, () => 'replicas must be at least 1'],
    ['/api/clusters/pair/scale', { replicas: -2 }, 400, () => 'replicas must be at least 1'],
    [
      '/api/clusters/pair/scale',
      { cpu: 'lots' },
      400,
      () => 'cpu must be a Kubernetes quantity such as 500m, 2 or 4Gi (got "lots")',
    ],
    [
      '/api/clusters/pair/scale',
      { replicas: 2, shards: 2 },
      400,
      () => 'Component falkordb is not sharded; shards apply only to a sharding',
    ],
    ['/api/clusters/pair/scale', {}, 400, () => 'Give replicas, shards, cpu or memory'],
    ['/api/clusters/pair/reconfigure', { parameters: {} }, 400, () => 'Give at least one parameter to change'],
    [
      '/api/clusters/pair/reconfigure',
      { parameters: { maxmemory: '1gb' } },
      400,
      () => 'Unknown FalkorDB parameter maxmemory; set allowUnknownParameters to true to apply it anyway',
    ],
    [
      '/api/clusters/pair/restart',
      { components: ['ghost'] },
      400,
      () => 'Component ghost does not exist in cluster pair (components: falkordb, falkordb-sent)',
    ],
    [
      '/api/clusters/sleepy/restart',
      {},
      409,
      () => 'Cluster sleepy is Stopped; a restart needs it to be Running or Failed or Abnormal',
    ],
    ['/api/clusters/solo/start', undefined, 409, () => 'Cluster solo is Running; starting needs it to be Stopped'],
    ['/api/clusters/missing/restart', {}, 404, (namespace) => `Cluster missing not found in namespace ${namespace}`],
  ];
  it.each(refusals)('refuses POST %s %j with %i, creating no OpsRequest', async (url, body, status, message) => {
    const before = await context().opsRequestCount();
    const res = await call('POST', url, body);
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json<{ message: string }>().message).toContain(message(context().namespace));
    expect(await context().opsRequestCount()).toBe(before);
  });

  it('starts a stopped cluster and stops a running one', async () => {
    expect((await call('POST', '/api/clusters/sleepy/start')).statusCode).toBe(202);
    const stop = await call('POST', '/api/clusters/solo/stop');
    expect((await ops(operation(stop))).spec).toEqual(stored({ clusterName: 'solo', type: 'Stop' }));
  });

  it('reports operations newest first with phase, progress, timestamps and message as the controller advances them', async () => {
    const { namespace, addCluster, advanceOpsRequest } = context();
    await addCluster(standalone('tracked', namespace));
    const first = operation(await call('POST', '/api/clusters/tracked/restart', {}));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const second = operation(await call('POST', '/api/clusters/tracked/reconfigure', { parameters: { TIMEOUT: 5 } }));
    const phases: string[] = [];
    for (let i = 0; i < 4; i++) phases.push(await advanceOpsRequest(first));
    expect(phases).toEqual(['Pending', 'Creating', 'Running', 'Succeed']);
    const res = await call('GET', '/api/clusters/tracked/operations', undefined, 'viewer');
    expect(res.statusCode).toBe(200);
    const operations = res.json<{ operations: Record<string, unknown>[] }>().operations;
    expect(operations.map((o) => o.name)).toEqual([second, first]);
    expect(operations[1]).toMatchObject({
      type: 'Restart',
      phase: 'Succeed',
      progress: '2/2',
      message: 'OpsRequest is Succeed',
      startedAt: expect.any(String) as unknown,
      completedAt: expect.any(String) as unknown,
    });
    expect(operations[0]).toMatchObject({
      type: 'Reconfiguring',
      phase: 'Pending',
      progress: '0/0',
      completedAt: null,
    });
  });

  it('lets a viewer read but not change clusters (403 with the seed message), and an operator change them', async () => {
    const { app, sessions, namespace } = context();
    const denied = await call('POST', '/api/clusters/solo/restart', {}, 'viewer');
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      message: `Insufficient permissions for clusters:update in namespace ${namespace}`,
    });
    // Another namespace is asked about only in multi-cluster mode (without it: 404).
    await setMultiClusterMode(app, sessions.admin, true);
    const deniedOther = await call('POST', '/api/clusters/elsewhere/restart?namespace=team-b', {}, 'viewer');
    expect(deniedOther.json<{ message: string }>().message).toBe(
      'Insufficient permissions for clusters:update in namespace team-b',
    );
    expect((await call('POST', '/api/clusters/solo/restart', {})).statusCode).toBe(202);
    expect((await app.inject({ method: 'GET', url: '/api/clusters' })).statusCode).toBe(401);
  });
}

export interface LegacyClusterWriteContext {
  app: FastifyInstance;
  adminCookie: string;
  /** An OpsRequest (apps.kubeblocks.io/v1alpha1) of the cluster namespace, as stored. */
  opsRequest: (name: string) => Promise<KubeObject>;
  /** How many OpsRequests the server has created in the cluster namespace so far. */
  opsRequestCount: () => Promise<number>;
  /** What the store adds to every OpsRequest spec: the real CRD's schema defaults (the double adds none). */
  opsSpecDefaults?: Record<string, unknown>;
}

/**
 * KubeBlocks 0.9 (v1alpha1 only): both suites seed the replicated cluster `old` (legacyReplication) and the sharded
 * `oldshards` (legacySharded), then run these.
 */
export function sharedLegacyClusterWrites(context: () => LegacyClusterWriteContext): void {
  it('detects the older API (v1 clusters are not served) and speaks its dialect', async () => {
    const { app, adminCookie, opsRequest, opsSpecDefaults } = context();
    const call = caller(() => app);
    const list = await call('GET', '/api/clusters', undefined, adminCookie);
    expect(list.json<{ clusters: unknown[] }>().clusters).toMatchObject([
      { name: 'old', topology: 'replication', components: [{ replicas: 2, storage: '10Gi' }] },
      {
        name: 'oldshards',
        topology: 'cluster',
        components: [{ name: 'shard', kind: 'sharding', shards: 3, replicas: 2, storage: '10Gi' }],
      },
    ]);
    const scale = await call('POST', '/api/clusters/old/scale', { replicas: 4 }, adminCookie);
    expect(scale.statusCode, scale.body).toBe(202);
    const scaled = await opsRequest(operation(scale));
    expect(scaled.apiVersion).toBe('apps.kubeblocks.io/v1alpha1');
    expect(scaled.spec).toEqual({
      ...opsSpecDefaults,
      clusterName: 'old',
      type: 'HorizontalScaling',
      horizontalScaling: [{ componentName: 'falkordb', replicas: 4 }],
    });
    const reconfigure = await call(
      'POST',
      '/api/clusters/old/reconfigure',
      { parameters: { TIMEOUT: 10 } },
      adminCookie,
    );
    expect(reconfigure.statusCode, reconfigure.body).toBe(202);
    expect((await opsRequest(operation(reconfigure))).spec).toMatchObject({
      reconfigure: {
        componentName: 'falkordb',
        configurations: [
          { name: 'falkordb-config', keys: [{ key: 'redis.conf', parameters: [{ key: 'TIMEOUT', value: '10' }] }] },
        ],
      },
    });
  });

  it('refuses a shard count on 0.9 with 422, creating nothing: its OpsRequest has no shards, which the schema would drop', async () => {
    const { app, adminCookie, opsRequest, opsRequestCount, opsSpecDefaults } = context();
    const call = caller(() => app);
    const before = await opsRequestCount();
    const res = await call('POST', '/api/clusters/oldshards/scale', { shards: 4, replicas: 3 }, adminCookie);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toEqual({
      statusCode: 422,
      error: 'Unprocessable Entity',
      message:
        'KubeBlocks 0.9 cannot change the shard count of shard with an OpsRequest; change spec.shardingSpecs of cluster oldshards instead',
    });
    expect(await opsRequestCount()).toBe(before);
    // The replicas of every shard still scale the 0.9 way (an absolute count).
    const replicas = await call('POST', '/api/clusters/oldshards/scale', { replicas: 3 }, adminCookie);
    expect(replicas.statusCode, replicas.body).toBe(202);
    expect((await opsRequest(operation(replicas))).spec).toEqual({
      ...opsSpecDefaults,
      clusterName: 'oldshards',
      type: 'HorizontalScaling',
      horizontalScaling: [{ componentName: 'shard', replicas: 3 }],
    });
  });
}
