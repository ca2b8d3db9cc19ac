// Clusters against a real API server with the KubeBlocks CRD fixtures: the label selector, generateName, the status
// subresource, list ordering and CRD schema validation come from the real thing. The server runs as the chart's
// service account; KubeBlocks' side (Cluster objects, OpsRequest progress) is played by the admin.
import { ApiException, CustomObjectsApi, KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sessionsForEveryRole, startAdminTestApp, type AdminTestApp } from '../support/admin.js';
import { legacyReplication, replication, sharded, standalone } from '../support/kube/kubeblocks-fixtures.js';
import { advanceOpsRequest, createWithStatus, readOpsRequest } from '../support/kube/real-kubeblocks.js';
import { sharedClusterReads } from '../support/cluster-reads.js';

const NS = 'graphdb-system';
const OPS_V1 = 'operations.kubeblocks.io/v1alpha1';

describe('clusters on KubeBlocks 1.x, real API server (chart RBAC with multiClusterRbac)', () => {
  let t: AdminTestApp;
  let sessions: Record<'admin' | 'operator' | 'viewer', string>;
  beforeAll(async () => {
    t = await startAdminTestApp('kube-apiserver', {
      kubeBlocks: true,
      namespaces: ['team-b'],
      chartValues: { 'adminServer.multiClusterRbac': 'true' },
    });
    sessions = await sessionsForEveryRole(t.app);
    const admin = t.real!.api.admin;
    await createWithStatus(admin, standalone('solo', NS));
    await createWithStatus(admin, replication('pair', NS));
    await createWithStatus(admin, sharded('shards', NS));
    await createWithStatus(admin, standalone('sleepy', NS, 'Stopped'));
    await createWithStatus(admin, standalone('elsewhere', 'team-b'));
    await createWithStatus(admin, {
      ...standalone('redis-thing', NS),
      metadata: { name: 'redis-thing', namespace: NS, labels: { 'clusterdefinition.kubeblocks.io/name': 'redis' } },
    });
  });
  afterAll(() => t?.close());
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
  const ops = (name: string) => readOpsRequest(t.real!.api.admin, { apiVersion: OPS_V1, namespace: NS, name });
  const opsCount = async () =>
    (
      (await t.real!.api.admin.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
        group: 'operations.kubeblocks.io',
        version: 'v1alpha1',
        namespace: NS,
        plural: 'opsrequests',
      })) as { items: unknown[] }
    ).items.length;

  it('refuses, at the API server, a Cluster that does not match the CRD schema (so the server never lists one)', async () => {
    const broken = {
      apiVersion: 'apps.kubeblocks.io/v1',
      kind: 'Cluster',
      metadata: { name: 'broken', namespace: NS, labels: { 'clusterdefinition.kubeblocks.io/name': 'falkordb' } },
      spec: { terminationPolicy: 'Delete', componentSpecs: 'not-a-list' },
    };
    const error = await KubernetesObjectApi.makeApiClient(t.real!.api.admin)
      .create(broken as KubernetesObject)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiException);
    expect((error as ApiException<string>).code).toBe(422);
  });

  // Listing goes through the real label selector; multi-cluster mode is backed by the chart's ClusterRole (multiClusterRbac).
  sharedClusterReads(() => ({
    app: t.app,
    namespace: NS,
    adminCookie: sessions.admin,
    operatorCookie: sessions.operator,
    viewerCookie: sessions.viewer,
  }));

  it('restarts with an OpsRequest that the API server names from generateName and accepts against its schema', async () => {
    const res = await call('POST', '/api/clusters/pair/restart', {});
    expect(res.statusCode, res.body).toBe(202);
    const { operation } = res.json<{ operation: string }>();
    expect(operation).toMatch(/^pair-restart-[a-z0-9]{5}$/);
    const created = await ops(operation);
    expect(created.metadata.labels).toEqual({
      'app.kubernetes.io/instance': 'pair',
      'operations.kubeblocks.io/ops-type': 'Restart',
    });
    expect(created.spec).toEqual({
      clusterName: 'pair',
      type: 'Restart',
      restart: [{ componentName: 'falkordb' }, { componentName: 'falkordb-sent' }],
    });
  });

  it('scales with deltas, absolute shards and a second operation for resources, all valid for the CRD', async () => {
    const out = await call('POST', '/api/clusters/pair/scale', { component: 'falkordb', replicas: 3 });
    expect(out.statusCode, out.body).toBe(202);
    expect((await ops(out.json<{ operation: string }>().operation)).spec).toEqual({
      clusterName: 'pair',
      type: 'HorizontalScaling',
      horizontalScaling: [{ componentName: 'falkordb', scaleOut: { replicaChanges: 1 } }],
    });
    const inward = await call('POST', '/api/clusters/pair/scale', { component: 'falkordb', replicas: 1 });
    expect((await ops(inward.json<{ operation: string }>().operation)).spec).toMatchObject({
      horizontalScaling: [{ componentName: 'falkordb', scaleIn: { replicaChanges: 1 } }],
    });
    const shards = await call('POST', '/api/clusters/shards/scale', { shards: 5 });
    expect(shards.statusCode, shards.body).toBe(202);
    expect((await ops(shards.json<{ operation: string }>().operation)).spec).toMatchObject({
      horizontalScaling: [{ componentName: 'shard', shards: 5 }],
    });
    const both = await call('POST', '/api/clusters/solo/scale', { replicas: 2, cpu: '500m', memory: '1Gi' });
    expect(both.statusCode, both.body).toBe(202);
    const names = both.json<{ operations: string[] }>().operations;
    expect(names).toHaveLength(2);
    expect((await ops(names[1]!)).spec).toEqual({
      clusterName: 'solo',
      type: 'VerticalScaling',
      verticalScaling: [
        { componentName: 'falkordb', requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '500m', memory: '1Gi' } },
      ],
    });
  });

  it('reconfigures with string values', async () => {
    const res = await call('POST', '/api/clusters/solo/reconfigure', { parameters: { TIMEOUT: 1000, CMD_INFO: 'no' } });
    expect(res.statusCode, res.body).toBe(202);
    expect((await ops(res.json<{ operation: string }>().operation)).spec).toEqual({
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
  });

  it("answers the CRD's own 422 as 422, creating nothing: a component named twice breaks the restart list's map keys", async () => {
    const before = await opsCount();
    const res = await call('POST', '/api/clusters/pair/restart', { components: ['falkordb', 'falkordb'] });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toEqual({
      statusCode: 422,
      error: 'Unprocessable Entity',
      message: expect.stringMatching(
        /^Kubernetes rejected OpsRequest: .*spec\.restart\[1\]: Duplicate value/,
      ) as unknown,
    });
    expect(await opsCount()).toBe(before);
  });

  it('reports operations newest first with phase, progress and message as the controller advances them (status subresource)', async () => {
    await createWithStatus(t.real!.api.admin, standalone('tracked', NS));
    const first = (await call('POST', '/api/clusters/tracked/restart', {})).json<{ operation: string }>().operation;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const second = (await call('POST', '/api/clusters/tracked/reconfigure', { parameters: { TIMEOUT: 5 } })).json<{
      operation: string;
    }>().operation;
    const phases: string[] = [];
    for (let i = 0; i < 4; i++)
      phases.push(await advanceOpsRequest(t.real!.api.admin, { apiVersion: OPS_V1, namespace: NS, name: first }));
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

  it('lets a viewer read but not change clusters, and an operator start and stop them', async () => {
    expect((await call('POST', '/api/clusters/solo/restart', {}, sessions.viewer)).statusCode).toBe(403);
    expect((await call('POST', '/api/clusters/sleepy/start')).statusCode).toBe(202);
    const stop = await call('POST', '/api/clusters/solo/stop');
    expect((await ops(stop.json<{ operation: string }>().operation)).spec).toEqual({
      clusterName: 'solo',
      type: 'Stop',
    });
  });
});

describe('clusters on KubeBlocks 0.9 (v1alpha1), real API server', () => {
  let t: AdminTestApp;
  let admin: string;
  beforeAll(async () => {
    t = await startAdminTestApp('kube-apiserver', {
      kubeBlocks: true,
      crds: ['apps.kubeblocks.io/v1alpha1/clusters', 'apps.kubeblocks.io/v1alpha1/opsrequests'],
      chartValues: { 'adminServer.multiClusterRbac': 'true' },
    });
    admin = (await sessionsForEveryRole(t.app)).admin;
    await createWithStatus(t.real!.api.admin, legacyReplication('old', NS));
  });
  afterAll(() => t?.close());

  it('detects the older API (v1 clusters are not served) and speaks its dialect, valid for its CRD', async () => {
    const list = await t.app.inject({ method: 'GET', url: '/api/clusters', headers: { cookie: admin } });
    expect(list.json<{ clusters: unknown[] }>().clusters).toMatchObject([
      { name: 'old', topology: 'replication', components: [{ replicas: 2, storage: '10Gi' }] },
    ]);
    const scale = await t.app.inject({
      method: 'POST',
      url: '/api/clusters/old/scale',
      headers: { cookie: admin },
      payload: { replicas: 4 },
    });
    expect(scale.statusCode, scale.body).toBe(202);
    const scaled = await readOpsRequest(t.real!.api.admin, {
      apiVersion: 'apps.kubeblocks.io/v1alpha1',
      namespace: NS,
      name: scale.json<{ operation: string }>().operation,
    });
    expect(scaled.apiVersion).toBe('apps.kubeblocks.io/v1alpha1');
    expect(scaled.spec).toEqual({
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
    expect(reconfigure.statusCode, reconfigure.body).toBe(202);
    const reconfigured = await readOpsRequest(t.real!.api.admin, {
      apiVersion: 'apps.kubeblocks.io/v1alpha1',
      namespace: NS,
      name: reconfigure.json<{ operation: string }>().operation,
    });
    expect(reconfigured.spec).toMatchObject({
      reconfigure: {
        componentName: 'falkordb',
        configurations: [
          { name: 'falkordb-config', keys: [{ key: 'redis.conf', parameters: [{ key: 'TIMEOUT', value: '10' }] }] },
        ],
      },
    });
  });
});

describe("clusters with the chart's default (namespaced) RBAC, real API server", () => {
  let t: AdminTestApp;
  let operator: string;
  beforeAll(async () => {
    t = await startAdminTestApp('kube-apiserver', { kubeBlocks: true });
    operator = (await sessionsForEveryRole(t.app)).operator;
    await createWithStatus(t.real!.api.admin, standalone('solo', NS));
  });
  afterAll(() => t?.close());

  // KubeBlocks detection once listed clusters in every namespace, which the chart's default Role does not allow.
  it('lists the clusters of its namespace with the default namespaced Role', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/clusters', headers: { cookie: operator } });
    expect(res.statusCode, res.body).toBe(200);
  });
});
