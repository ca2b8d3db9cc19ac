// System facts, metrics, search and licensing: embedded mode (the embedded deployment, no Kubernetes) and
// the Kubernetes API double (cluster-scoped reads only in multi-cluster mode). Every body is checked against the
// FalkorDB Enterprise admin API's response schema.
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterPort } from '../../src/platform/clusters/cluster-port.js';
import { graphModuleVersion } from '../../src/platform/falkordb/server-commands.js';
import { ADMIN, useAdminApp } from '../support/admin.js';
import { startTestApp } from '../support/app.js';
import { operationKey, realOperations, validatorOf } from '../support/conformance/real-operations.js';
import {
  startTestFalkorDB,
  testEmbeddedDeployment,
  type TestEmbeddedDeployment,
  type TestFalkorDB,
} from '../support/falkordb.js';
import { CLUSTERS_V1, standalone } from '../support/kube/kubeblocks-fixtures.js';

const REAL = new Map(realOperations().map((operation) => [operationKey(operation), operation]));

/** The body has the FalkorDB Enterprise admin API's shape for this operation and status. */
function expectRealShape(method: string, path: string, status: number, body: unknown): void {
  const schema = REAL.get(`${method} ${path}`)?.responses[String(status)]?.['application/json'];
  expect(schema, `${method} ${path} ${status} in the reference`).toBeDefined();
  const validate = validatorOf(schema!);
  expect(validate(body), `${method} ${path}: ${JSON.stringify(validate.errors)}`).toBe(true);
}

describe('/health and /ready (public)', () => {
  it('answer the real bodies without a session; /ready is 503 when a check fails, as /readyz', async () => {
    const t = await startTestApp({
      deps: { readinessChecks: [{ name: 'broken', check: () => Promise.reject(new Error('down')) }] },
    });
    try {
      const health = await t.app.inject({ method: 'GET', url: '/health' });
      expect(health.statusCode).toBe(200);
      expect(health.json()).toMatchObject({ status: 'ok', version: '0.1.0', uptime: expect.any(Number) as unknown });
      expect(Date.parse(health.json<{ timestamp: string }>().timestamp)).not.toBeNaN();
      expectRealShape('GET', '/health', 200, health.json());
      const ready = await t.app.inject({ method: 'GET', url: '/ready' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ status: 'not ready', checks: { broken: { ok: false } } });
      expectRealShape('GET', '/ready', 200, ready.json());
      expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
    } finally {
      await t.close();
    }
  });
});

describe('system routes in embedded mode', () => {
  let falkordb: TestFalkorDB;
  let clusters: ClusterPort;
  let deployment: TestEmbeddedDeployment | undefined;
  let moduleVersion: number;
  beforeAll(async () => {
    falkordb = await startTestFalkorDB({ dataDir: await mkdtemp(path.join(os.tmpdir(), 'gdb-system-')) });
    const control = createClient({ url: falkordb.url });
    control.on('error', () => undefined);
    await control.connect();
    moduleVersion = graphModuleVersion(await control.sendCommand(['MODULE', 'LIST']))!;
    await control.close();
    deployment = testEmbeddedDeployment(falkordb, 'graphdb-system');
    clusters = deployment.clusters;
  });
  afterAll(async () => {
    await deployment?.close();
    await falkordb.stop();
  });
  const t = useAdminApp(() => ({ falkordb, clusters }));
  const admin = t.as('admin');
  const viewer = t.as('viewer');

  it('lists the embedded deployment’s namespace, its FalkorDB version and no StorageClasses', async () => {
    const namespaces = await viewer.inject({ method: 'GET', url: '/api/system/namespaces' });
    expect(namespaces.statusCode).toBe(200);
    expectRealShape('GET', '/api/system/namespaces', 200, namespaces.json());
    expect(namespaces.json()).toMatchObject({
      namespaces: [{ name: 'graphdb-system', status: 'Active', createdAt: falkordb.startedAt.toISOString() }],
      total: 1,
    });

    const versions = await viewer.inject({ method: 'GET', url: '/api/system/falkordb-versions' });
    expect(versions.statusCode).toBe(200);
    expectRealShape('GET', '/api/system/falkordb-versions', 200, versions.json());
    const text = `${Math.floor(moduleVersion / 10000)}.${Math.floor(moduleVersion / 100) % 100}.${moduleVersion % 100}`;
    expect(versions.json()).toEqual({
      versions: [
        {
          name: 'falkordb',
          falkordbVersion: text,
          releases: [{ version: text, stable: true }],
          componentDefinitions: [{ name: 'falkordb-embedded', version: text }],
          createdAt: falkordb.startedAt.toISOString(),
        },
      ],
      total: 1,
    });

    const classes = await viewer.inject({ method: 'GET', url: '/api/system/storage-classes' });
    expect(classes.statusCode).toBe(200);
    expectRealShape('GET', '/api/system/storage-classes', 200, classes.json());
    expect(classes.json()).toMatchObject({ storageClasses: [], total: 0, notes: [expect.stringMatching(/Embedded/)] });
  });

  it('reports capacity from the host and this server as support', async () => {
    const res = await viewer.inject({ method: 'GET', url: '/api/system/cluster-resources' });
    expect(res.statusCode).toBe(200);
    expectRealShape('GET', '/api/system/cluster-resources', 200, res.json());
    const body = res.json<{
      cpu: { total: number };
      memory: { total: number; usedBySupport: number };
      scope: unknown;
      supportBreakdown: { component: string; podCount: number }[];
      availableForDeployments: { limitingResource: string };
    }>();
    expect(body.cpu.total).toBe(os.availableParallelism());
    expect(body.memory.total).toBe(os.totalmem());
    expect(body.memory.usedBySupport).toBeGreaterThan(0);
    expect(body.scope).toEqual({ mode: 'namespace-filtered', namespaces: ['graphdb-system'] });
    expect(body.supportBreakdown).toEqual([
      expect.objectContaining({ component: 'graphdb-admin-server', podCount: 1 }),
    ]);
    expect(['cpu', 'memory']).toContain(body.availableForDeployments.limitingResource);
  });

  it('GET /api/metrics/ answers host usage and deployment health', async () => {
    const res = await viewer.inject({ method: 'GET', url: '/api/metrics/' });
    expect(res.statusCode).toBe(200);
    expectRealShape('GET', '/api/metrics/', 200, res.json());
    const body = res.json<{ cpu: { count: number }; memory: { total: number }; clusters: unknown; cpuUsage: number }>();
    expect(body.cpu.count).toBe(os.availableParallelism());
    expect(body.memory.total).toBe(os.totalmem());
    expect(body.cpuUsage).toBeGreaterThanOrEqual(0);
    expect(body.clusters).toEqual({ total: 1, healthy: 1, unhealthy: 0 });
    expect((await admin.inject({ method: 'GET', url: '/api/metrics' })).statusCode).toBe(200);
  });

  it('needs a session for every system route', async () => {
    for (const url of [
      '/api/system/namespaces',
      '/api/system/falkordb-versions',
      '/api/system/storage-classes',
      '/api/system/cluster-resources',
      '/api/metrics/',
      '/api/search/',
      '/api/admin/licensing/status',
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(401);
      expect(res.json(), url).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
    }
  });

  it('searches what the caller may list, bounded by limit', async () => {
    const all = await admin.inject({ method: 'GET', url: '/api/search/?q=VIEWER' });
    expect(all.statusCode).toBe(200);
    expectRealShape('GET', '/api/search/', 200, all.json());
    const found = all.json<{ query: string; total: number; items: { type: string; name: string }[] }>();
    expect(found.query).toBe('VIEWER');
    expect(found.items.map((item) => `${item.type}:${item.name}`).sort()).toEqual([
      'role:viewer',
      'user:viewer@corp.example',
    ]);

    const everything = await admin.inject({ method: 'GET', url: '/api/search?limit=2' });
    const page = everything.json<{ total: number; items: unknown[] }>();
    expect(page.items).toHaveLength(2);
    expect(page.total).toBe(1 + 3 + 3); // the embedded deployment, three users, three roles

    // A viewer may list deployments but neither users nor roles.
    const asViewer = (await viewer.inject({ method: 'GET', url: '/api/search/' })).json<{
      items: { type: string; id: string; namespace?: string }[];
    }>();
    expect(asViewer.items).toEqual([
      expect.objectContaining({ type: 'cluster', id: 'graphdb-system/embedded', namespace: 'graphdb-system' }),
    ]);
    const users = await admin.inject({
      method: 'GET',
      url: `/api/search/?types=user&q=${encodeURIComponent(ADMIN.email)}`,
    });
    expect(users.json()).toMatchObject({ total: 1, items: [{ type: 'user', name: ADMIN.email }] });
    expect((await admin.inject({ method: 'GET', url: '/api/search/?types=backup' })).json()).toMatchObject({
      total: 0,
      items: [],
    });

    for (const query of [
      'limit=0',
      'limit=201',
      'limit=x',
      'limit=1e2',
      'limit=%205',
      `q=${'a'.repeat(257)}`,
      'types=cluster,bogus',
      'namespace=Bad_NS',
    ]) {
      const bad = await admin.inject({ method: 'GET', url: `/api/search/?${query}` });
      expect(bad.statusCode, query).toBe(400);
      expect(bad.json(), query).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    }
  });

  it('licensing: nothing to license (admin:read), activation refused with 422 (admin:update)', async () => {
    const status = await admin.inject({ method: 'GET', url: '/api/admin/licensing/status' });
    expect(status.statusCode).toBe(200);
    expectRealShape('GET', '/api/admin/licensing/status', 200, status.json());
    expect(status.json()).toEqual({
      state: 'disabled',
      message: expect.stringMatching(/No licence is needed/) as unknown,
      edition: 'community',
      limits: { cpuCores: 'unlimited', memoryGB: 'unlimited', deployments: 'unlimited', users: 'unlimited' },
      usage: { cpuCores: 0, memoryGB: 0, deployments: 1, users: 3 },
      violations: [],
    });

    const activate = await admin.inject({
      method: 'POST',
      url: '/api/admin/licensing/activate',
      payload: { license: 'falkor.license.v1.payload.signature' },
    });
    expect(activate.statusCode).toBe(422);
    expect(activate.json()).toEqual({
      statusCode: 422,
      error: 'Unprocessable Entity',
      message:
        'This server needs no licence: licensing is disabled and nothing is limited, so there is nothing to activate',
      code: 'unprocessable',
    });
    for (const payload of [{}, { license: '' }, { license: 7 }]) {
      const bad = await admin.inject({ method: 'POST', url: '/api/admin/licensing/activate', payload });
      expect(bad.statusCode, JSON.stringify(payload)).toBe(400);
      expectRealShape('POST', '/api/admin/licensing/activate', 400, bad.json());
    }

    const denied = await viewer.inject({ method: 'GET', url: '/api/admin/licensing/status' });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      message: 'Insufficient permissions for admin:read in namespace graphdb-system',
      code: 'forbidden',
    });
    const operatorActivate = await t
      .as('operator')
      .inject({ method: 'POST', url: '/api/admin/licensing/activate', payload: { license: 'x' } });
    expect(operatorActivate.json<{ message: string }>().message).toBe(
      'Insufficient permissions for admin:update in namespace graphdb-system',
    );
  });
});

const COMPONENT_VERSIONS = 'apps.kubeblocks.io/v1/componentversions';
const STORAGE_CLASSES = 'storage.k8s.io/v1/storageclasses';

describe('system routes over the Kubernetes API double', () => {
  const t = useAdminApp({ adapter: 'kubernetes', kubeBlocks: true });
  const admin = t.as('admin');
  const viewer = t.as('viewer');
  const clusterScopedReads = () =>
    t.kube!.requests.filter((request) =>
      /\/api\/v1\/namespaces$|\/storageclasses|\/componentversions/.test(request.path),
    );

  beforeAll(() => {
    const kube = t.kube!;
    kube.put(CLUSTERS_V1, 'graphdb-system', standalone('alpha', 'graphdb-system'));
    kube.put(CLUSTERS_V1, 'team-a', standalone('beta', 'team-a'));
    for (const name of ['graphdb-system', 'team-a'])
      kube.put('namespaces', '', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, labels: { team: name } },
        status: { phase: 'Active' },
      });
    kube.put(STORAGE_CLASSES, '', {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'fast', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'ebs.csi.aws.com',
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'WaitForFirstConsumer',
      allowVolumeExpansion: true,
    });
    kube.put(COMPONENT_VERSIONS, '', {
      apiVersion: 'apps.kubeblocks.io/v1',
      kind: 'ComponentVersion',
      metadata: { name: 'falkordb' },
      spec: {
        compatibilityRules: [{ compDefs: ['falkordb-1'], releases: ['4.12.5', '4.8.0'] }],
        releases: [
          { name: '4.8.0', serviceVersion: '4.8.0', images: { falkordb: 'falkordb/falkordb:v4.8.0' } },
          { name: '4.12.5', serviceVersion: '4.12.5', images: { falkordb: 'falkordb/falkordb:v4.12.5' } },
        ],
      },
    });
  });

  it('outside multi-cluster mode reads nothing cluster-scoped and answers what it knows', async () => {
    const namespaces = await viewer.inject({ method: 'GET', url: '/api/system/namespaces' });
    expect(namespaces.statusCode).toBe(200);
    expectRealShape('GET', '/api/system/namespaces', 200, namespaces.json());
    const alpha = t.kube!.get(CLUSTERS_V1, 'graphdb-system', 'alpha')!;
    expect(namespaces.json()).toEqual({
      namespaces: [{ name: 'graphdb-system', status: 'Unknown', createdAt: alpha.metadata.creationTimestamp }],
      total: 1,
      notes: [expect.stringMatching(/multi-cluster mode/)],
    });

    const versions = await viewer.inject({ method: 'GET', url: '/api/system/falkordb-versions' });
    expectRealShape('GET', '/api/system/falkordb-versions', 200, versions.json());
    expect(versions.json()).toMatchObject({
      versions: [
        { name: 'falkordb', falkordbVersion: '4.12.5', releases: [{ version: '4.12.5' }], componentDefinitions: [] },
      ],
      total: 1,
    });

    const classes = await viewer.inject({ method: 'GET', url: '/api/system/storage-classes' });
    expectRealShape('GET', '/api/system/storage-classes', 200, classes.json());
    expect(classes.json()).toMatchObject({
      storageClasses: [],
      total: 0,
      notes: [expect.stringMatching(/multiClusterRbac/)],
    });

    const resources = await viewer.inject({ method: 'GET', url: '/api/system/cluster-resources' });
    expectRealShape('GET', '/api/system/cluster-resources', 200, resources.json());
    expect(resources.json()).toMatchObject({
      cpu: { total: 0, usedByDeployments: 0.5 },
      memory: { total: 0, usedByDeployments: 0.5 * 2 ** 30 },
      storage: { capacityKnown: false, total: null, usedByDeployments: 20 * 2 ** 30 },
      availableForDeployments: { limitingResource: 'unknown', storage: null },
      scope: { mode: 'namespace-filtered', namespaces: ['graphdb-system'] },
    });
    expect(clusterScopedReads()).toEqual([]);
  });

  it('in multi-cluster mode lists Namespaces, StorageClasses and ComponentVersions', async () => {
    const patch = await admin.inject({
      method: 'PATCH',
      url: '/api/settings/',
      payload: { features: { multi_cluster_mode: true } },
    });
    expect(patch.statusCode).toBe(200);

    const namespaces = await viewer.inject({ method: 'GET', url: '/api/system/namespaces' });
    expectRealShape('GET', '/api/system/namespaces', 200, namespaces.json());
    expect(namespaces.json()).toMatchObject({
      namespaces: [
        { name: 'graphdb-system', status: 'Active', labels: { team: 'graphdb-system' } },
        { name: 'team-a', status: 'Active' },
      ],
      total: 2,
    });

    const classes = await viewer.inject({ method: 'GET', url: '/api/system/storage-classes' });
    expectRealShape('GET', '/api/system/storage-classes', 200, classes.json());
    expect(classes.json()).toEqual({
      storageClasses: [
        {
          name: 'fast',
          provisioner: 'ebs.csi.aws.com',
          reclaimPolicy: 'Delete',
          volumeBindingMode: 'WaitForFirstConsumer',
          allowVolumeExpansion: true,
          isDefault: true,
          createdAt: t.kube!.get(STORAGE_CLASSES, '', 'fast')!.metadata.creationTimestamp,
        },
      ],
      total: 1,
    });

    const versions = await viewer.inject({ method: 'GET', url: '/api/system/falkordb-versions' });
    expectRealShape('GET', '/api/system/falkordb-versions', 200, versions.json());
    expect(versions.json()).toMatchObject({
      versions: [
        {
          name: 'falkordb',
          falkordbVersion: '4.12.5',
          releases: [{ version: '4.12.5' }, { version: '4.8.0' }],
          componentDefinitions: [{ name: 'falkordb-1', version: '4.12.5', image: 'falkordb/falkordb:v4.12.5' }],
        },
      ],
      total: 1,
    });

    const resources = await viewer.inject({ method: 'GET', url: '/api/system/cluster-resources' });
    expect(resources.json()).toMatchObject({
      cpu: { usedByDeployments: 1 },
      scope: { mode: 'cluster-wide', namespaces: null },
    });
    const metrics = await viewer.inject({ method: 'GET', url: '/api/metrics/' });
    expect(metrics.json()).toMatchObject({ clusters: { total: 2, healthy: 2, unhealthy: 0 } });
  });

  it('a refused cluster-scoped read is a 500 naming what to grant', async () => {
    t.kube!.failRequests({ pathIncludes: '/storageclasses' }, 403, 'Forbidden', 'storageclasses is forbidden');
    try {
      const res = await viewer.inject({ method: 'GET', url: '/api/system/storage-classes' });
      expect(res.statusCode).toBe(500);
      expect(res.json<{ message: string }>().message).toMatch(/may not list storageclasses/);
    } finally {
      t.kube!.clearFaults();
      await admin.inject({
        method: 'PATCH',
        url: '/api/settings/',
        payload: { features: { multi_cluster_mode: false } },
      });
    }
  });
});
