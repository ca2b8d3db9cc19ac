// Diagnostics, its export and health, and the support package, over local files (embedded) and the
// Kubernetes API double. The package is opened and every file scanned for planted secrets.
import { beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, ADMIN, useAdminApp } from '../support/admin.js';
import { TEST_SECRETS } from '../support/app.js';
import { operationKey, realOperations, validatorOf } from '../support/conformance/real-operations.js';
import { CLUSTERS_V1, standalone } from '../support/kube/kubeblocks-fixtures.js';
import { readZip } from '../support/zip-reader.js';

const REAL = new Map(realOperations().map((operation) => [operationKey(operation), operation]));

function expectRealShape(method: string, path: string, status: number, body: unknown): void {
  const schema = REAL.get(`${method} ${path}`)?.responses[String(status)]?.['application/json'];
  expect(schema, `${method} ${path} ${status} in the reference`).toBeDefined();
  const validate = validatorOf(schema!);
  expect(validate(body), `${method} ${path}: ${JSON.stringify(validate.errors)}`).toBe(true);
}

const CLIENT_SECRET = 'planted-alpha-client-secret-0123456789';
const PRIVATE_KEY = '-----BEGIN PRIVATE KEY-----\nplanted-private-key-material-0123456789\n-----END PRIVATE KEY-----\n';
const ROUTES = [
  { method: 'GET' as const, url: '/api/admin/diagnostics/' },
  { method: 'GET' as const, url: '/api/admin/diagnostics/export' },
  { method: 'GET' as const, url: '/api/admin/diagnostics/health' },
  { method: 'POST' as const, url: '/api/admin/diagnostics/support-package', payload: {} },
];

describe.each(ADAPTERS)('diagnostics (%s)', (adapter) => {
  const t = useAdminApp({ adapter, kubeBlocks: adapter !== 'embedded' });
  const admin = t.as('admin');
  beforeAll(() => {
    t.kube?.put(CLUSTERS_V1, 'graphdb-system', standalone('alpha', 'graphdb-system'));
  });

  it('GET /api/admin/diagnostics/ answers versions, host, health and recent errors', async () => {
    t.app.log.error({ reqId: 'planted-request' }, 'planted failure for diagnostics');
    const res = await admin.inject({ method: 'GET', url: '/api/admin/diagnostics' });
    expect(res.statusCode).toBe(200);
    expectRealShape('GET', '/api/admin/diagnostics/', 200, res.json());
    const body = res.json<{
      server: { version: string; nodeVersion: string; cpus: number };
      versions: unknown;
      health: { status: string; checks: Record<string, string>; notApplicable?: string[] };
      resources: { totalClusters: number; recentActivityCount: number };
      recentErrors: { msg: string; reqId?: string; level: number }[];
    }>();
    expect(body.server).toMatchObject({ version: '0.1.0', nodeVersion: process.version });
    expect(body.versions).toEqual({ server: { version: '0.1.0', namespace: 'graphdb-system' } });
    expect(body.health).toMatchObject({
      status: 'healthy',
      checks: { k8sApi: 'healthy', kubeBlocks: 'healthy', database: 'healthy' },
    });
    expect(body.health.notApplicable).toEqual(adapter === 'embedded' ? ['k8sApi', 'kubeBlocks'] : undefined);
    expect(body.resources.totalClusters).toBe(adapter === 'embedded' ? 0 : 1);
    expect(body.resources.recentActivityCount).toBeGreaterThan(0);
    expect(body.recentErrors.at(-1)).toMatchObject({
      msg: 'planted failure for diagnostics',
      reqId: 'planted-request',
      level: 50,
    });
  });

  it('exports the diagnostics as a JSON attachment, and answers HealthStatus', async () => {
    const res = await admin.inject({ method: 'GET', url: '/api/admin/diagnostics/export' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="diagnostics-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z\.json"$/,
    );
    expectRealShape('GET', '/api/admin/diagnostics/export', 200, res.json());
    expect(Date.parse(res.json<{ timestamp: string }>().timestamp)).not.toBeNaN();

    const health = await admin.inject({ method: 'GET', url: '/api/admin/diagnostics/health' });
    expect(health.statusCode).toBe(200);
    expectRealShape('GET', '/api/admin/diagnostics/health', 200, health.json());
  });

  it('every diagnostics route needs admin:read: 401 without a session, 403 for an operator or a viewer', async () => {
    for (const route of ROUTES) {
      expect((await t.app.inject(route)).statusCode, route.url).toBe(401);
      for (const role of ['operator', 'viewer'] as const) {
        const res = await t.as(role).inject(route);
        expect(res.statusCode, `${role} ${route.url}`).toBe(403);
        expect(res.json()).toEqual({
          statusCode: 403,
          error: 'Forbidden',
          message: 'Insufficient permissions for admin:read in namespace graphdb-system',
          code: 'forbidden',
        });
      }
    }
  });

  it('the support package holds diagnostics, settings, deployments, logs and metrics, and no secret', async () => {
    const patch = await admin.inject({
      method: 'PATCH',
      url: '/api/settings/',
      payload: {
        alpha_oauth: {
          client_id: 'alpha-client',
          client_secret_secret_ref: 'graphdb-settings-alpha',
          client_secret: CLIENT_SECRET,
        },
        alpha_workspace: { private_key_secret_ref: 'graphdb-settings-workspace', private_key: PRIVATE_KEY },
      },
    });
    expect(patch.statusCode, patch.body).toBe(200);
    const jwt = t.sessions.admin.slice('token='.length);
    // A request carrying the session cookie was logged (the access log), and lines that try to leak each secret.
    t.app.log.info({ headers: { cookie: t.sessions.admin, authorization: `Bearer ${jwt}` } }, 'planted cookie line');
    t.app.log.warn(`planted text ${TEST_SECRETS.SESSION_SECRET} ${CLIENT_SECRET} ${ADMIN.password}`);
    t.app.log.warn({ detail: { nested: PRIVATE_KEY } }, 'planted key line');

    const res = await admin.inject({
      method: 'POST',
      url: '/api/admin/diagnostics/support-package',
      payload: {
        issueDescription: 'Queries time out',
        contactEmail: 'ops@corp.example',
        includeLogs: true,
        includeMetrics: true,
        logTailLines: 2000,
        auditLimit: 10,
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="graphdb-support-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z\.zip"$/,
    );
    const files = new Map((await readZip(res.rawPayload)).map((entry) => [entry.name, entry.data.toString('utf8')]));
    expect([...files.keys()].sort()).toEqual([
      'audit.json',
      'clusters.json',
      'diagnostics.json',
      'logs/server.log',
      'manifest.json',
      'metrics.txt',
      'settings.json',
    ]);
    const planted = [
      CLIENT_SECRET,
      PRIVATE_KEY,
      JSON.stringify(PRIVATE_KEY).slice(1, -1),
      'planted-private-key-material-0123456789',
      TEST_SECRETS.SESSION_SECRET,
      TEST_SECRETS.AUTH_SECRET,
      TEST_SECRETS.ENCRYPTION_KEY,
      ADMIN.password,
      jwt,
    ];
    for (const [name, text] of files)
      for (const secret of planted) expect(text, `${name} holds a secret`).not.toContain(secret);

    const log = files.get('logs/server.log')!;
    expect(log).toContain('planted cookie line');
    expect(log).toContain('planted text [Redacted] [Redacted] [Redacted]');
    expect(log).toContain('request completed');
    const settings = JSON.parse(files.get('settings.json')!) as { alpha_oauth: Record<string, string> };
    expect(settings.alpha_oauth).toEqual({
      client_id: 'alpha-client',
      redirect_uri: '',
      client_secret_secret_ref: 'graphdb-settings-alpha',
    });
    const clusters = JSON.parse(files.get('clusters.json')!) as { clusters: { name: string; namespace: string }[] };
    expect(clusters.clusters.map((c) => `${c.namespace}/${c.name}`)).toEqual(
      adapter === 'embedded' ? [] : ['graphdb-system/alpha'],
    );
    expect(files.get('metrics.txt')).toContain('graphdb_http_requests_total');
    const manifest = JSON.parse(files.get('manifest.json')!) as { request: Record<string, unknown>; notes: string[] };
    expect(manifest.request).toMatchObject({ issueDescription: 'Queries time out', contactEmail: 'ops@corp.example' });
    // The latest audit entries (the settings change above among them), at most auditLimit of them.
    const audit = JSON.parse(files.get('audit.json')!) as { action: string; resourceType?: string }[];
    expect(audit.length).toBeGreaterThan(0);
    expect(audit.length).toBeLessThanOrEqual(10);
    expect(audit.some((entry) => entry.resourceType === 'settings')).toBe(true);
  });

  it('bounds the package and refuses bad bodies (400)', async () => {
    const small = await admin.inject({
      method: 'POST',
      url: '/api/admin/diagnostics/support-package',
      payload: { logTailLines: 3, includeMetrics: false, clusters: [{ name: 'missing', namespace: 'graphdb-system' }] },
    });
    expect(small.statusCode).toBe(200);
    const files = new Map((await readZip(small.rawPayload)).map((entry) => [entry.name, entry.data.toString('utf8')]));
    expect(files.get('logs/server.log')!.trimEnd().split('\n')).toHaveLength(3);
    expect(files.has('metrics.txt')).toBe(false);
    expect(JSON.parse(files.get('clusters.json')!)).toEqual({ clusters: [], total: 0 });
    expect(files.get('manifest.json')).toContain('Deployment graphdb-system/missing was not found');
    const quiet = await admin.inject({
      method: 'POST',
      url: '/api/admin/diagnostics/support-package',
      payload: { includeLogs: false },
    });
    expect((await readZip(quiet.rawPayload)).map((entry) => entry.name)).not.toContain('logs/server.log');

    for (const payload of [
      { extra: true },
      { logTailLines: 2001 },
      { logTailLines: -1 },
      { logTailLines: 1.5 },
      { auditLimit: 1001 },
      { contactEmail: 'not-an-address' },
      { clusters: [{ name: 'x' }] },
      { includeLogs: 'yes' },
      { issueDescription: 'x'.repeat(10_001) },
    ]) {
      const bad = await admin.inject({ method: 'POST', url: '/api/admin/diagnostics/support-package', payload });
      expect(bad.statusCode, JSON.stringify(payload)).toBe(400);
      expect(bad.json(), JSON.stringify(payload)).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    }
  });

  if (adapter === 'kubernetes') {
    it('health is degraded (200) while the Kubernetes API or KubeBlocks fail', async () => {
      t.kube!.failRequests({ pathIncludes: '/clusters' }, 500, 'InternalError', 'etcd is unhappy');
      try {
        const res = await admin.inject({ method: 'GET', url: '/api/admin/diagnostics/health' });
        expect(res.statusCode).toBe(200);
        expectRealShape('GET', '/api/admin/diagnostics/health', 200, res.json());
        expect(res.json()).toMatchObject({
          status: 'degraded',
          checks: { k8sApi: 'healthy', kubeBlocks: 'unhealthy', database: 'healthy' },
          error: expect.stringMatching(/^kubeBlocks: /) as unknown,
        });
        t.kube!.failRequests({ pathIncludes: '/version' }, 500, 'InternalError', 'down');
        const both = await admin.inject({ method: 'GET', url: '/api/admin/diagnostics/health' });
        expect(both.json()).toMatchObject({
          status: 'degraded',
          checks: { k8sApi: 'unhealthy', kubeBlocks: 'unhealthy' },
        });
        // The diagnostics still answer, counting no deployments.
        const diagnostics = await admin.inject({ method: 'GET', url: '/api/admin/diagnostics/' });
        expect(diagnostics.statusCode).toBe(200);
        expect(diagnostics.json()).toMatchObject({ resources: { totalClusters: 0 }, health: { status: 'degraded' } });
      } finally {
        t.kube!.clearFaults();
      }
    });
  }

  if (adapter === 'embedded') {
    // Last: the token store is closed for good.
    it('health is unhealthy (503) when the token store does not answer', async () => {
      await t.tokenStore.close();
      const res = await admin.inject({ method: 'GET', url: '/api/admin/diagnostics/health' });
      expect(res.statusCode).toBe(503);
      expectRealShape('GET', '/api/admin/diagnostics/health', 503, res.json());
      expect(res.json()).toMatchObject({
        status: 'unhealthy',
        checks: { database: 'unhealthy' },
        error: 'database: the token store is not connected',
      });
    });
  }
});
