// The Helm chart's RBAC on a real API server: what the server does is allowed, and requests outside it are denied
// (403) by the real RBAC authorizer. The requests are made with the server's own credentials (the chart's service
// account); the end-to-end part runs the admin API and reads the API server's audit log of that identity.
import { ApiException, CoreV1Api, CustomObjectsApi, KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectKubeBlocks } from '../../src/platform/kubernetes/kubeblocks-api.js';
import type { ActorRequest } from '../support/actor.js';
import { useAdminApp, type AdminRole } from '../support/admin.js';
import { startChartApiServer, type ChartApiServer } from '../support/kube/chart-apiserver.js';
import { standalone } from '../support/kube/kubeblocks-fixtures.js';
import type { AuditRecord } from '../support/kube/real-apiserver.js';
import { realCrdFile } from '../support/kube/kubeblocks-crds.js';
import { createWithStatus } from '../support/kube/real-kubeblocks.js';
import { eventually } from '../support/wait.js';

const NS = 'graphdb-system';
const KUBEBLOCKS_1X = () =>
  ['apps.kubeblocks.io/v1/clusters', 'operations.kubeblocks.io/v1alpha1/opsrequests'].map(realCrdFile);
const CLUSTERS = { group: 'apps.kubeblocks.io', version: 'v1', plural: 'clusters' };
const OPS = { group: 'operations.kubeblocks.io', version: 'v1alpha1', plural: 'opsrequests' };
const opsBody = (namespace: string) => ({
  apiVersion: 'operations.kubeblocks.io/v1alpha1',
  kind: 'OpsRequest',
  metadata: { generateName: 'solo-restart-', namespace },
  spec: { clusterName: 'solo', type: 'Restart', restart: [{ componentName: 'falkordb' }] },
});

/** The HTTP status a request ends with (2xx as 200). */
async function statusOf(request: () => Promise<unknown>): Promise<number> {
  try {
    await request();
    return 200;
  } catch (error) {
    if (error instanceof ApiException) return error.code;
    throw error;
  }
}

type Call = (api: { core: CoreV1Api; custom: CustomObjectsApi }) => Promise<unknown>;

describe("the chart's namespaced RBAC (default values) on a real API server", () => {
  let env: ChartApiServer;
  let api: { core: CoreV1Api; custom: CustomObjectsApi };
  let serverConfig: KubeConfig;
  beforeAll(async () => {
    env = await startChartApiServer({ crds: KUBEBLOCKS_1X(), namespaces: ['team-b'] });
    await createWithStatus(env.api.admin, standalone('solo', NS));
    await createWithStatus(env.api.admin, standalone('other', 'team-b'));
    await env.api.admin.makeApiClient(CoreV1Api).createNamespacedSecret({
      namespace: 'team-b',
      body: { metadata: { name: 'foreign' }, stringData: { key: 'value' } },
    });
    serverConfig = new KubeConfig();
    serverConfig.loadFromFile(env.serverKubeconfigPath);
    api = { core: serverConfig.makeApiClient(CoreV1Api), custom: serverConfig.makeApiClient(CustomObjectsApi) };
  });
  afterAll(() => env?.close());

  it('binds the Roles to the service account the chart runs the server as', () => {
    expect(env.serverUser).toBe('system:serviceaccount:graphdb-system:graphdb-admin-server');
    expect(
      env.rbac
        .map((o: KubernetesObject) => `${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`)
        .sort(),
    ).toEqual([
      `Role/${NS}/graphdb-admin-server`,
      `Role/${NS}/graphdb-admin-server-kubeblocks`,
      `RoleBinding/${NS}/graphdb-admin-server`,
      `RoleBinding/${NS}/graphdb-admin-server-kubeblocks`,
    ]);
  });

  // What the server does, in the order a fresh install does it; each must get past RBAC (404 is an answer).
  it.each<[string, Call, number]>([
    [
      'get the settings ConfigMap (absent)',
      ({ core }) => core.readNamespacedConfigMap({ name: 'graphdb-admin-settings', namespace: NS }),
      404,
    ],
    [
      'create the settings ConfigMap',
      ({ core }) =>
        core.createNamespacedConfigMap({
          namespace: NS,
          body: { metadata: { name: 'graphdb-admin-settings' }, data: { 'settings.json': '{}' } },
        }),
      200,
    ],
    [
      'update the settings ConfigMap',
      async ({ core }) =>
        core.replaceNamespacedConfigMap({
          name: 'graphdb-admin-settings',
          namespace: NS,
          body: await core.readNamespacedConfigMap({ name: 'graphdb-admin-settings', namespace: NS }),
        }),
      200,
    ],
    [
      'get the RBAC ConfigMap (absent)',
      ({ core }) => core.readNamespacedConfigMap({ name: 'graphdb-rbac', namespace: NS }),
      404,
    ],
    [
      'create the RBAC ConfigMap',
      ({ core }) =>
        core.createNamespacedConfigMap({
          namespace: NS,
          body: { metadata: { name: 'graphdb-rbac' }, data: { 'rbac.json': '{}' } },
        }),
      200,
    ],
    [
      'update the RBAC ConfigMap',
      async ({ core }) =>
        core.replaceNamespacedConfigMap({
          name: 'graphdb-rbac',
          namespace: NS,
          body: await core.readNamespacedConfigMap({ name: 'graphdb-rbac', namespace: NS }),
        }),
      200,
    ],
    [
      'get a Secret (absent)',
      ({ core }) => core.readNamespacedSecret({ name: 'graphdb-admin-users', namespace: NS }),
      404,
    ],
    [
      'create a Secret',
      ({ core }) =>
        core.createNamespacedSecret({
          namespace: NS,
          body: { metadata: { name: 'graphdb-admin-users' }, stringData: { 'users.json': '[]' } },
        }),
      200,
    ],
    [
      'update a Secret',
      async ({ core }) =>
        core.replaceNamespacedSecret({
          name: 'graphdb-admin-users',
          namespace: NS,
          body: await core.readNamespacedSecret({ name: 'graphdb-admin-users', namespace: NS }),
        }),
      200,
    ],
    [
      'list the clusters of its namespace',
      ({ custom }) => custom.listNamespacedCustomObject({ ...CLUSTERS, namespace: NS }),
      200,
    ],
    [
      'get a cluster',
      ({ custom }) => custom.getNamespacedCustomObject({ ...CLUSTERS, namespace: NS, name: 'solo' }),
      200,
    ],
    [
      'create an OpsRequest',
      ({ custom }) => custom.createNamespacedCustomObject({ ...OPS, namespace: NS, body: opsBody(NS) }),
      200,
    ],
    [
      'list OpsRequests',
      ({ custom }) =>
        custom.listNamespacedCustomObject({ ...OPS, namespace: NS, labelSelector: 'app.kubernetes.io/instance=solo' }),
      200,
    ],
    [
      // A cluster's rendered configuration (GET …/config), found by its label in the cluster namespace.
      'list the ConfigMaps of a cluster in its namespace',
      ({ core }) => core.listNamespacedConfigMap({ namespace: NS, labelSelector: 'app.kubernetes.io/instance=solo' }),
      200,
    ],
  ])('allows the server to %s', async (_what, call, status) => {
    expect(await statusOf(() => call(api))).toBe(status);
  });

  it.each<[string, Call]>([
    ['list Secrets', ({ core }) => core.listNamespacedSecret({ namespace: NS })],
    ['delete a Secret', ({ core }) => core.deleteNamespacedSecret({ name: 'graphdb-admin-users', namespace: NS })],
    [
      'read a Secret in another namespace',
      ({ core }) => core.readNamespacedSecret({ name: 'foreign', namespace: 'team-b' }),
    ],
    [
      'list ConfigMaps in another namespace',
      ({ core }) =>
        core.listNamespacedConfigMap({ namespace: 'team-b', labelSelector: 'app.kubernetes.io/instance=other' }),
    ],
    [
      'get a ConfigMap with another name',
      ({ core }) => core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: NS }),
    ],
    [
      'delete the settings ConfigMap',
      ({ core }) => core.deleteNamespacedConfigMap({ name: 'graphdb-admin-settings', namespace: NS }),
    ],
    [
      'delete the RBAC ConfigMap',
      ({ core }) => core.deleteNamespacedConfigMap({ name: 'graphdb-rbac', namespace: NS }),
    ],
    // Pods are listed (and their logs read) in the cluster namespace only; never read one by one or changed.
    ['list pods in another namespace', ({ core }) => core.listNamespacedPod({ namespace: 'team-b' })],
    ['get a pod', ({ core }) => core.readNamespacedPod({ name: 'solo-falkordb-0', namespace: NS })],
    ['delete a pod', ({ core }) => core.deleteNamespacedPod({ name: 'solo-falkordb-0', namespace: NS })],
    [
      'read the log of a pod in another namespace',
      ({ core }) => core.readNamespacedPodLog({ name: 'other-falkordb-0', namespace: 'team-b' }),
    ],
    ['create a namespace', ({ core }) => core.createNamespace({ body: { metadata: { name: 'sneaky' } } })],
    [
      'create a Cluster in another namespace',
      ({ custom }) =>
        custom.createNamespacedCustomObject({
          ...CLUSTERS,
          namespace: 'team-b',
          body: { ...standalone('mine', 'team-b'), status: undefined },
        }),
    ],
    [
      'delete a Cluster in another namespace',
      ({ custom }) => custom.deleteNamespacedCustomObject({ ...CLUSTERS, namespace: 'team-b', name: 'other' }),
    ],
    [
      'list clusters in another namespace',
      ({ custom }) => custom.listNamespacedCustomObject({ ...CLUSTERS, namespace: 'team-b' }),
    ],
    ['list clusters in every namespace', ({ custom }) => custom.listClusterCustomObject(CLUSTERS)],
    [
      'create an OpsRequest in another namespace',
      ({ custom }) => custom.createNamespacedCustomObject({ ...OPS, namespace: 'team-b', body: opsBody('team-b') }),
    ],
    ['delete OpsRequests', ({ custom }) => custom.deleteCollectionNamespacedCustomObject({ ...OPS, namespace: NS })],
  ])('denies the server to %s (403 from the API server)', async (_what, call) => {
    expect(await statusOf(() => call(api))).toBe(403);
  });

  // Detection reads discovery, which every authenticated identity may, not a list across namespaces.
  it('detects the KubeBlocks API version with the namespaced Role', async () => {
    expect(await detectKubeBlocks(serverConfig)).toEqual({
      clusterVersion: 'v1',
      opsGroup: 'operations.kubeblocks.io',
    });
  });
});

describe('the chart with settingsSecretNames: Secrets restricted by name on a real API server', () => {
  let env: ChartApiServer;
  let core: CoreV1Api;
  beforeAll(async () => {
    env = await startChartApiServer({
      crds: KUBEBLOCKS_1X(),
      values: { 'adminServer.settingsSecretNames': '{graphdb-settings-alpha}' },
    });
    const admin = env.api.admin.makeApiClient(CoreV1Api);
    for (const name of ['graphdb-settings-alpha', 'graphdb-admin-server'])
      await admin.createNamespacedSecret({ namespace: NS, body: { metadata: { name }, stringData: { key: 'value' } } });
    const serverConfig = new KubeConfig();
    serverConfig.loadFromFile(env.serverKubeconfigPath);
    core = serverConfig.makeApiClient(CoreV1Api);
  });
  afterAll(() => env?.close());

  const read = (name: string) => () => core.readNamespacedSecret({ name, namespace: NS });
  const replace = (name: string) => async () =>
    core.replaceNamespacedSecret({ name, namespace: NS, body: { metadata: { name }, stringData: { key: 'changed' } } });

  it('lets the server read and update its user store and the named settings Secrets, and create Secrets', async () => {
    expect(await statusOf(read('graphdb-admin-users'))).toBe(404);
    expect(
      await statusOf(() =>
        core.createNamespacedSecret({
          namespace: NS,
          body: { metadata: { name: 'graphdb-admin-users' }, stringData: { 'users.json': '[]' } },
        }),
      ),
    ).toBe(200);
    expect(await statusOf(read('graphdb-settings-alpha'))).toBe(200);
    expect(await statusOf(replace('graphdb-settings-alpha'))).toBe(200);
  });

  it("denies reading or changing any other Secret, the chart's own included", async () => {
    expect(await statusOf(read('graphdb-admin-server'))).toBe(403);
    expect(await statusOf(replace('graphdb-admin-server'))).toBe(403);
  });
});

describe('the server end to end on a real API server: its audited requests against the chart RBAC', () => {
  const t = useAdminApp({
    adapter: 'kube-apiserver',
    kubeBlocks: true,
    namespaces: ['team-b'],
    chartValues: { 'adminServer.multiClusterRbac': 'true' },
  });
  let audit: AuditRecord[];
  beforeAll(async () => {
    await createWithStatus(t.real!.api.admin, standalone('solo', NS));
    const succeeds = async (role: AdminRole, request: ActorRequest) => {
      const res = await t.as(role).inject(request);
      expect(res.statusCode, `${request.method} ${request.url}: ${res.body}`).toBeLessThan(300);
    };
    await succeeds('admin', {
      method: 'PATCH',
      url: '/api/settings/',
      payload: { alpha_oauth: { client_id: 'c', client_secret_secret_ref: 'alpha-oauth', client_secret: 'one' } },
    });
    await succeeds('admin', {
      method: 'PATCH',
      url: '/api/settings/',
      payload: { alpha_oauth: { client_secret: 'two' }, features: { multi_cluster_mode: true } },
    });
    // Roles as data: the RBAC ConfigMap is read by every permission check, created and then updated here.
    await succeeds('admin', {
      method: 'POST',
      url: '/api/rbac/roles',
      payload: { name: 'team-b-reader', rules: [{ resource: 'clusters', actions: ['list'], namespace: 'team-b' }] },
    });
    await succeeds('admin', {
      method: 'PUT',
      url: '/api/rbac/roles/team-b-reader',
      payload: { rules: [{ resource: 'clusters', actions: ['list', 'get'], namespace: 'team-b' }] },
    });
    await succeeds('admin', { method: 'POST', url: '/api/rbac/reload' });
    await succeeds('operator', { method: 'GET', url: '/api/settings/' });
    await succeeds('operator', { method: 'GET', url: '/api/clusters' });
    await succeeds('operator', { method: 'GET', url: '/api/clusters?namespace=team-b' });
    await succeeds('operator', { method: 'POST', url: '/api/clusters/solo/ops/restart', payload: {} });
    await succeeds('operator', { method: 'GET', url: '/api/clusters/solo/ops' });
    await succeeds('operator', { method: 'GET', url: '/api/clusters/solo/pods' });
    // In multi-cluster mode the system routes list cluster-scoped objects through the cluster-reads role.
    for (const url of ['namespaces', 'storage-classes', 'falkordb-versions', 'cluster-resources'])
      await succeeds('viewer', { method: 'GET', url: `/api/system/${url}` });
    // Pod logs and metrics. No kubelet runs here: an unscheduled pod's log is empty (the API server answers
    // 204), and there is no metrics-server (503 naming the metrics API): both after the chart's RBAC let them through.
    await t.real!.api.admin.makeApiClient(CoreV1Api).createNamespacedPod({
      namespace: NS,
      body: {
        metadata: {
          name: 'solo-falkordb-0',
          labels: { 'app.kubernetes.io/instance': 'solo', 'app.kubernetes.io/managed-by': 'kubeblocks' },
        },
        spec: {
          containers: [
            { name: 'falkordb', image: 'falkordb/falkordb' },
            { name: 'metrics', image: 'redis-exporter', ports: [{ name: 'http-metrics', containerPort: 9121 }] },
          ],
        },
      },
    });
    const logs = await t
      .as('viewer')
      .inject({ method: 'GET', url: `/api/clusters/solo/pods/solo-falkordb-0/logs?namespace=${NS}` });
    expect(logs.statusCode, logs.body).toBe(200);
    expect(logs.json()).toEqual({ podName: 'solo-falkordb-0', logs: [] });
    // The configuration KubeBlocks renders for the data component (`<cluster>-<component>-<config spec>`), found by the
    // cluster's label through the chart's `list configmaps`; the password directive never reaches the answer.
    await t.real!.api.admin.makeApiClient(CoreV1Api).createNamespacedConfigMap({
      namespace: NS,
      body: {
        metadata: {
          name: 'solo-falkordb-falkordb-replication-config',
          labels: { 'app.kubernetes.io/instance': 'solo' },
        },
        data: { 'redis.conf': 'maxmemory-policy noeviction\nrequirepass hunter2\nsave 900 1\nsave 300 10\n' },
      },
    });
    const config = await t.as('viewer').inject({ method: 'GET', url: `/api/clusters/solo/config?namespace=${NS}` });
    expect(config.statusCode, config.body).toBe(200);
    expect(config.json()).toEqual({
      configMapName: 'solo-falkordb-falkordb-replication-config',
      parameters: [
        { key: 'maxmemory-policy', value: 'noeviction' },
        { key: 'save', value: '900 1' },
        { key: 'save', value: '300 10' },
      ],
    });
    const metrics = await t.as('viewer').inject({ method: 'GET', url: `/api/clusters/solo/metrics?namespace=${NS}` });
    expect(metrics.statusCode, metrics.body).toBe(503);
    expect(metrics.json()).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      message:
        'The Kubernetes metrics API (metrics.k8s.io/v1beta1) is not served by this cluster; install metrics-server to see CPU and memory usage',
      code: 'unavailable',
    });
    // Pod metrics read the pod's exporter through the pod proxy beside the metrics API (no pod runs here, so the
    // proxy cannot reach it either: the answer is the metrics API's 503 all the same, after RBAC let both through).
    const podMetrics = await t
      .as('viewer')
      .inject({ method: 'GET', url: `/api/clusters/solo/pods/solo-falkordb-0/metrics?namespace=${NS}` });
    expect(podMetrics.statusCode, podMetrics.body).toBe(503);
    const serverAudit = async () => (await t.real!.api.audit()).filter((record) => record.user === t.real!.serverUser);
    // The proxy request runs beside the metrics list; its audit record may land after the 503 was answered.
    await eventually(async () => (await serverAudit()).some((record) => record.subresource === 'proxy'), 10_000);
    audit = await serverAudit();
  });

  it('was never denied: every request of the server identity got past RBAC', () => {
    expect(audit.length).toBeGreaterThan(10);
    expect(audit.filter((record) => record.code === 403 || record.code === 401)).toEqual([]);
  });

  it('uses exactly these verbs on these resources (no watches, no deletes, no lists of Secrets)', () => {
    const used = [
      ...new Set(
        audit.map(
          (r) => `${r.verb} ${r.group ? `${r.group}/` : ''}${r.resource}${r.subresource ? `/${r.subresource}` : ''}`,
        ),
      ),
    ].sort();
    expect(used).toEqual(
      [
        'list apps.kubeblocks.io/clusters',
        'list apps.kubeblocks.io/componentversions',
        'list namespaces',
        'list pods',
        'list configmaps',
        'list storage.k8s.io/storageclasses',
        'create configmaps',
        'create operations.kubeblocks.io/opsrequests',
        'create secrets',
        'get apps.kubeblocks.io/clusters',
        'get operations.kubeblocks.io/opsrequests',
        'get configmaps',
        'get secrets',
        'get pods/log',
        'get pods/proxy',
        'list metrics.k8s.io/pods',
        'list operations.kubeblocks.io/opsrequests',
        'update configmaps',
        'update secrets',
      ].sort(),
    );
  });
});
