import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadKubeConfig } from '../../src/platform/kubernetes/kube-config.js';
import { createKubeBlocksClusters } from '../../src/platform/kubernetes/kubeblocks.js';
import { sessionsForEveryRole, startAdminTestApp, type AdminTestApp } from '../support/admin.js';
import type { KubeObject } from '../support/kube/kube-api-double.js';
import {
  advanceOpsRequest,
  CLUSTERS_V1,
  CLUSTERS_V1ALPHA1,
  legacyReplication,
  OPS_V1,
  OPS_V1ALPHA1,
  replication,
  sharded,
  standalone,
} from '../support/kube/kubeblocks-fixtures.js';
import { sharedClusterReads } from '../support/cluster-reads.js';

const NS = 'graphdb-system';

describe('clusters on KubeBlocks 1.x', () => {
  let t: AdminTestApp;
  let sessions: Record<'admin' | 'operator' | 'viewer', string>;
  beforeAll(async () => {
    t = await startAdminTestApp('kubernetes', { kubeBlocks: true, crds: [CLUSTERS_V1, OPS_V1] });
    sessions = await sessionsForEveryRole(t.app);
    const kube = t.kube!;
    kube.put(CLUSTERS_V1, NS, standalone('solo', NS));
    kube.put(CLUSTERS_V1, NS, replication('pair', NS));
    kube.put(CLUSTERS_V1, NS, sharded('shards', NS));
    kube.put(CLUSTERS_V1, NS, standalone('sleepy', NS, 'Stopped'));
    kube.put(CLUSTERS_V1, 'team-b', standalone('elsewhere', 'team-b'));
    kube.put(CLUSTERS_V1, NS, {
      ...standalone('redis-thing', NS),
      metadata: { name: 'redis-thing', namespace: NS, labels: { 'clusterdefinition.kubeblocks.io/name': 'redis' } },
    });
    kube.put(CLUSTERS_V1, NS, {
      apiVersion: 'apps.kubeblocks.io/v1',
      kind: 'Cluster',
      metadata: { name: 'broken', namespace: NS, labels: { 'clusterdefinition.kubeblocks.io/name': 'falkordb' } },
      spec: { componentSpecs: 'not-a-list' },
    });
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/',
      headers: { cookie: sessions.admin },
      payload: { features: { multi_cluster_mode: false } },
    });
  });

  const call = (method: 'GET' | 'POST', url: string, payload?: unknown, cookie = sessions.operator) =>
    t.app.inject({ method, url, headers: { cookie }, ...(payload === undefined ? {} : { payload: payload as never }) });
  const opsRequests = () =>
    t.kube!.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/opsrequests')).length;
  const lastOps = (name: string) => t.kube!.get(OPS_V1, NS, name)!;

  it('asks for its namespace through the label selector, skipping objects that do not parse', async () => {
    const res = await call('GET', '/api/clusters', undefined, sessions.viewer);
    expect(res.json<{ clusters: { name: string }[] }>().clusters.map((c) => c.name)).not.toContain('broken');
    expect(t.kube!.requests).toContainEqual(
      expect.objectContaining({ method: 'GET', path: `/apis/apps.kubeblocks.io/v1/namespaces/${NS}/clusters` }),
    );
  });

  sharedClusterReads(() => ({
    app: t.app,
    namespace: NS,
    adminCookie: sessions.admin,
    operatorCookie: sessions.operator,
    viewerCookie: sessions.viewer,
  }));

  it('keeps every cluster route in its namespace while multi_cluster_mode is off (404, no Kubernetes call elsewhere)', async () => {
    const before = t.kube!.requests.length;
    const routes: [method: 'GET' | 'POST', url: string, payload?: unknown][] = [
      ['GET', '/api/clusters/elsewhere?namespace=team-b'],
      ['GET', '/api/clusters/elsewhere/operations?namespace=team-b'],
      ['POST', '/api/clusters/elsewhere/restart?namespace=team-b', {}],
      ['POST', '/api/clusters/elsewhere/start?namespace=team-b'],
      ['POST', '/api/clusters/elsewhere/stop?namespace=team-b'],
      ['POST', '/api/clusters/elsewhere/scale?namespace=team-b', { replicas: 3 }],
      ['POST', '/api/clusters/elsewhere/reconfigure?namespace=team-b', { parameters: { TIMEOUT: 1000 } }],
    ];
    for (const [method, url, payload] of routes) {
      const res = await call(method, url, payload, sessions.admin);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(404);
      expect(res.json()).toEqual({
        statusCode: 404,
        error: 'Not Found',
        message: 'Cluster elsewhere not found in namespace team-b',
      });
    }
    expect(t.kube!.requests.slice(before).filter((r) => r.path.includes('/namespaces/team-b/'))).toEqual([]);
    // The list already answered nothing there; asking for the cluster namespace itself is unaffected.
    expect((await call('GET', '/api/clusters?namespace=team-b')).json()).toEqual({ clusters: [] });
    expect((await call('GET', `/api/clusters/solo?namespace=${NS}`)).statusCode).toBe(200);
    // Invalid input is still reported as such.
    expect(
      (await call('POST', '/api/clusters/elsewhere/scale?namespace=team-b', { replicas: 0 }, sessions.admin))
        .statusCode,
    ).toBe(400);

    await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/',
      headers: { cookie: sessions.admin },
      payload: { features: { multi_cluster_mode: true } },
    });
    expect((await call('GET', '/api/clusters/elsewhere?namespace=team-b')).statusCode).toBe(200);
    const restarted = await call('POST', '/api/clusters/elsewhere/restart?namespace=team-b', {});
    expect(restarted.statusCode, restarted.body).toBe(202);
    expect((await call('GET', '/api/clusters/elsewhere/operations?namespace=team-b')).statusCode).toBe(200);
  });

  it('restarts with an OpsRequest labelled for the cluster, named by generateName, answering 202 at once', async () => {
    const res = await call('POST', '/api/clusters/pair/restart', {});
    expect(res.statusCode, res.body).toBe(202);
    const { operation } = res.json<{ operation: string }>();
    expect(operation).toMatch(/^pair-restart-[a-z0-9]{5}$/);
    const ops = lastOps(operation);
    expect(ops.metadata.labels).toEqual({
      'app.kubernetes.io/instance': 'pair',
      'operations.kubeblocks.io/ops-type': 'Restart',
    });
    expect(ops.spec).toEqual({
      clusterName: 'pair',
      type: 'Restart',
      restart: [{ componentName: 'falkordb' }, { componentName: 'falkordb-sent' }],
    });
  });

  it('turns target replicas into scale-out/in deltas, shards into absolute counts, and resources into a second operation', async () => {
    const out = await call('POST', '/api/clusters/pair/scale', { component: 'falkordb', replicas: 3 });
    expect(lastOps(out.json<{ operation: string }>().operation).spec).toEqual({
      clusterName: 'pair',
      type: 'HorizontalScaling',
      horizontalScaling: [{ componentName: 'falkordb', scaleOut: { replicaChanges: 1 } }],
    });
    const inward = await call('POST', '/api/clusters/pair/scale', { component: 'falkordb', replicas: 1 });
    expect(lastOps(inward.json<{ operation: string }>().operation).spec).toMatchObject({
      horizontalScaling: [{ componentName: 'falkordb', scaleIn: { replicaChanges: 1 } }],
    });
    const shards = await call('POST', '/api/clusters/shards/scale', { shards: 5 });
    expect(lastOps(shards.json<{ operation: string }>().operation).spec).toMatchObject({
      horizontalScaling: [{ componentName: 'shard', shards: 5 }],
    });
    const both = await call('POST', '/api/clusters/solo/scale', { replicas: 2, cpu: '500m', memory: '1Gi' });
    const names = both.json<{ operations: string[] }>().operations;
    expect(names).toHaveLength(2);
    expect(lastOps(names[1]!).spec).toEqual({
      clusterName: 'solo',
      type: 'VerticalScaling',
      verticalScaling: [
        { componentName: 'falkordb', requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '500m', memory: '1Gi' } },
      ],
    });
  });

  it('reconfigures with string values, refusing unknown keys unless asked to apply them', async () => {
    const res = await call('POST', '/api/clusters/solo/reconfigure', { parameters: { TIMEOUT: 1000, CMD_INFO: 'no' } });
    expect(res.statusCode, res.body).toBe(202);
    expect(lastOps(res.json<{ operation: string }>().operation).spec).toEqual({
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
    });
    const forced = await call('POST', '/api/clusters/solo/reconfigure', {
      parameters: { maxmemory: '1gb' },
      allowUnknownParameters: true,
    });
    expect(forced.statusCode).toBe(202);
  });

  it.each([
    [
      '/api/clusters/pair/scale',
      { component: 'nope', replicas: 2 },
      400,
      'Component nope does not exist in cluster pair (components: falkordb, falkordb-sent)',
    ],
    ['/api/clusters/pair/scale', { replicas: 0 }, 400, 'replicas must be at least 1'],
    ['/api/clusters/pair/scale', { replicas: -2 }, 400, 'replicas must be at least 1'],
    [
      '/api/clusters/pair/scale',
      { cpu: 'lots' },
      400,
      'cpu must be a Kubernetes quantity such as 500m, 2 or 4Gi (got "lots")',
    ],
    [
      '/api/clusters/pair/scale',
      { replicas: 2, shards: 2 },
      400,
      'Component falkordb is not sharded; shards apply only to a sharding',
    ],
    ['/api/clusters/pair/scale', {}, 400, 'Give replicas, shards, cpu or memory'],
    ['/api/clusters/pair/reconfigure', { parameters: {} }, 400, 'Give at least one parameter to change'],
    [
      '/api/clusters/pair/reconfigure',
      { parameters: { maxmemory: '1gb' } },
      400,
      'Unknown FalkorDB parameter maxmemory; set allowUnknownParameters to true to apply it anyway',
    ],
    [
      '/api/clusters/pair/restart',
      { components: ['ghost'] },
      400,
      'Component ghost does not exist in cluster pair (components: falkordb, falkordb-sent)',
    ],
    [
      '/api/clusters/sleepy/restart',
      {},
      409,
      'Cluster sleepy is Stopped; a restart needs it to be Running or Failed or Abnormal',
    ],
    ['/api/clusters/solo/start', undefined, 409, 'Cluster solo is Running; starting needs it to be Stopped'],
    ['/api/clusters/missing/restart', {}, 404, `Cluster missing not found in namespace ${NS}`],
  ])('refuses POST %s %j with %i, creating no OpsRequest', async (url, body, status, message) => {
    const before = opsRequests();
    const res = await call('POST', url, body);
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json<{ message: string }>().message).toContain(message);
    expect(opsRequests()).toBe(before);
  });

  it('starts a stopped cluster and stops a running one', async () => {
    expect((await call('POST', '/api/clusters/sleepy/start')).statusCode).toBe(202);
    const stop = await call('POST', '/api/clusters/solo/stop');
    expect(lastOps(stop.json<{ operation: string }>().operation).spec).toEqual({ clusterName: 'solo', type: 'Stop' });
  });

  it('reports operations newest first with phase, progress, timestamps and message as the controller advances them', async () => {
    t.kube!.put(CLUSTERS_V1, NS, standalone('tracked', NS));
    const first = (await call('POST', '/api/clusters/tracked/restart', {})).json<{ operation: string }>().operation;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const second = (await call('POST', '/api/clusters/tracked/reconfigure', { parameters: { TIMEOUT: 5 } })).json<{
      operation: string;
    }>().operation;
    const phases: string[] = [];
    for (let i = 0; i < 4; i++) phases.push(advanceOpsRequest(t.kube!, OPS_V1, NS, first));
    expect(phases).toEqual(['Pending', 'Creating', 'Running', 'Succeed']);
    const res = await call('GET', '/api/clusters/tracked/operations', undefined, sessions.viewer);
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
    const denied = await call('POST', '/api/clusters/solo/restart', {}, sessions.viewer);
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      message: `Insufficient permissions for clusters:update in namespace ${NS}`,
    });
    // Another namespace is asked about only in multi-cluster mode (without it: 404, see above).
    await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/',
      headers: { cookie: sessions.admin },
      payload: { features: { multi_cluster_mode: true } },
    });
    const deniedOther = await call('POST', '/api/clusters/elsewhere/restart?namespace=team-b', {}, sessions.viewer);
    expect(deniedOther.json<{ message: string }>().message).toBe(
      'Insufficient permissions for clusters:update in namespace team-b',
    );
    expect((await call('POST', '/api/clusters/solo/restart', {}, sessions.operator)).statusCode).toBe(202);
    expect((await t.app.inject({ method: 'GET', url: '/api/clusters' })).statusCode).toBe(401);
  });

  it('surfaces a 422 from the API server as 422', async () => {
    t.kube!.failRequests(
      { method: 'POST', pathIncludes: '/opsrequests' },
      422,
      'Invalid',
      'OpsRequest.operations.kubeblocks.io "x" is invalid: spec.type: Unsupported value',
    );
    const res = await call('POST', '/api/clusters/solo/restart', {});
    expect(res.statusCode).toBe(422);
    expect(res.json<{ message: string }>().message).toContain('is invalid');
  });
});

describe('clusters on KubeBlocks 0.9 (v1alpha1)', () => {
  let t: AdminTestApp;
  let admin: string;
  beforeAll(async () => {
    t = await startAdminTestApp('kubernetes', { kubeBlocks: true, crds: [CLUSTERS_V1ALPHA1, OPS_V1ALPHA1] });
    admin = (await sessionsForEveryRole(t.app)).admin;
    t.kube!.put(CLUSTERS_V1ALPHA1, NS, legacyReplication('old', NS));
  });
  afterAll(() => t.close());

  it('detects the API version at the first request when start-up could not', async () => {
    const port = createKubeBlocksClusters(
      loadKubeConfig({ kind: 'kubeconfig', path: t.kube!.kubeconfigPath }),
      pino({ level: 'silent' }),
    );
    expect((await port.list({ namespace: NS })).map((c) => c.name)).toEqual(['old']);
  });

  it('detects the older API and speaks its dialect', async () => {
    const list = await t.app.inject({ method: 'GET', url: '/api/clusters', headers: { cookie: admin } });
    expect(list.json<{ clusters: { name: string; components: { replicas: number }[] }[] }>().clusters).toMatchObject([
      { name: 'old', topology: 'replication', components: [{ replicas: 2, storage: '10Gi' }] },
    ]);
    const scale = await t.app.inject({
      method: 'POST',
      url: '/api/clusters/old/scale',
      headers: { cookie: admin },
      payload: { replicas: 4 },
    });
    expect(scale.statusCode, scale.body).toBe(202);
    const ops: KubeObject = t.kube!.get(OPS_V1ALPHA1, NS, scale.json<{ operation: string }>().operation)!;
    expect(ops.apiVersion).toBe('apps.kubeblocks.io/v1alpha1');
    expect(ops.spec).toEqual({
      clusterName: 'old',
      type: 'HorizontalScaling',
      horizontalScaling: [{ componentName: 'falkordb', replicas: 4 }],
    });
    const reconfigure = await t.app.inject({
      method: 'POST',
      url: '/api/clusters/old/reconfigure',
      headers: { cookie: admin },
      payload: { parameters: { TIMEOUT: 10 } },
    });
    expect(t.kube!.get(OPS_V1ALPHA1, NS, reconfigure.json<{ operation: string }>().operation)!.spec).toMatchObject({
      reconfigure: {
        componentName: 'falkordb',
        configurations: [
          { name: 'falkordb-config', keys: [{ key: 'redis.conf', parameters: [{ key: 'TIMEOUT', value: '10' }] }] },
        ],
      },
    });
  });
});
