// The Kubernetes API server down, failing half-way through a settings write, or too slow: writes answer 503 with a
// message that says so, nothing is half-written (a Secret before the ConfigMap that names it, never the reverse),
// requests end at KUBERNETES_TIMEOUT_MS instead of hanging, and everything works again once the server is back.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS_CONFIGMAP } from '../../src/platform/kubernetes/kube-stores.js';
import { ADMIN, login, NAMESPACE } from '../support/admin.js';
import type { TestApp } from '../support/app.js';
import { startKubeApiDouble, type KubeApiDouble } from '../support/kube/kube-api-double.js';
import { startKubeReplica } from '../support/kube-app.js';

const KUBE_TIMEOUT_MS = 1000;
const USERS_SECRET = 'graphdb-admin-users';

let kube: KubeApiDouble;
let t: TestApp;
let admin: string;

beforeAll(async () => {
  kube = await startKubeApiDouble();
  t = await startKubeReplica(kube, { timeoutMs: KUBE_TIMEOUT_MS });
  admin = await login(t.app, ADMIN.email, ADMIN.password);
  const first = await patch({
    alpha_oauth: { client_id: 'alpha-client', client_secret_secret_ref: 'alpha-oauth', client_secret: 'first-secret' },
  });
  expect(first.statusCode, first.body).toBe(200);
});
afterAll(async () => {
  await t.close();
  await kube.close();
});
afterEach(async () => {
  kube.clearFaults();
  await kube.setReachable(true);
});

function patch(payload: unknown) {
  return t.app.inject({
    method: 'PATCH',
    url: '/api/settings/',
    headers: { cookie: admin },
    payload: payload as never,
  });
}

const settingsText = () =>
  (kube.get('configmaps', NAMESPACE, SETTINGS_CONFIGMAP)?.data as Record<string, string> | undefined)?.[
    'settings.json'
  ];
const secretValue = (name: string, key: string) => {
  const data = kube.get('secrets', NAMESPACE, name)?.data as Record<string, string> | undefined;
  return data?.[key] === undefined ? undefined : Buffer.from(data[key], 'base64').toString('utf8');
};
const usersText = () => secretValue(USERS_SECRET, 'users.json');

function expect503(res: { statusCode: number; json: <T>() => T; body: string }, message: RegExp): void {
  expect(res.statusCode, res.body).toBe(503);
  expect(res.json()).toEqual({
    statusCode: 503,
    error: 'Service Unavailable',
    message: expect.stringMatching(message) as unknown,
    code: 'unavailable',
  });
}

describe('the Kubernetes API server down (connection refused)', () => {
  it('answers every write 503 at once, writes nothing, and serves writes again once the server is back', async () => {
    const settingsBefore = settingsText();
    const usersBefore = usersText();
    await kube.setReachable(false);
    const unreachable = /^The Kubernetes API server cannot be reached \(/;
    const started = Date.now();
    expect503(await patch({ features: { multi_cluster_mode: true } }), unreachable);
    expect503(
      await patch({ alpha_oauth: { client_secret_secret_ref: 'alpha-down', client_secret: 'down-secret' } }),
      unreachable,
    );
    expect503(
      await t.app.inject({
        method: 'POST',
        url: '/api/users',
        headers: { cookie: admin },
        payload: { email: 'new@corp.example', name: 'New', role: 'viewer' },
      }),
      unreachable,
    );
    expect503(
      await t.app.inject({
        method: 'POST',
        url: '/api/clusters/graph-a/ops/restart',
        headers: { cookie: admin },
        payload: {},
      }),
      unreachable,
    );
    expect503(await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: ADMIN }), unreachable);
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
    // Refused connections fail fast: no request waited for the timeout.
    expect(Date.now() - started).toBeLessThan(KUBE_TIMEOUT_MS * 3);

    await kube.setReachable(true);
    expect(settingsText()).toBe(settingsBefore);
    expect(usersText()).toBe(usersBefore);
    expect(kube.get('secrets', NAMESPACE, 'alpha-down')).toBeUndefined();
    const again = await patch({ features: { multi_cluster_mode: true } });
    expect(again.statusCode, again.body).toBe(200);
    expect(JSON.parse(settingsText()!)).toMatchObject({ features: { multi_cluster_mode: true } });
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    await patch({ features: { multi_cluster_mode: false } });
  });
});

describe('a settings write failing half-way', () => {
  it('keeps the old ConfigMap when its write fails after the Secret was written first', async () => {
    const before = settingsText();
    kube.failRequests(
      { method: 'PUT', pathIncludes: `/configmaps/${SETTINGS_CONFIGMAP}` },
      503,
      'ServiceUnavailable',
      'etcdserver: request timed out',
    );
    const mark = kube.requests.length;
    const res = await patch({
      alpha_oauth: {
        client_id: 'rotated-client',
        client_secret_secret_ref: 'alpha-rotated',
        client_secret: 'rotated-secret',
      },
    });
    expect503(res, /^The Kubernetes API server answered 503 to update configmaps\/graphdb-admin-settings$/);
    // Nothing points at an unwritten value: the ConfigMap is untouched; the new Secret was written before it was tried.
    expect(settingsText()).toBe(before);
    expect(secretValue('alpha-rotated', 'client_secret')).toBe('rotated-secret');
    const writes = kube.requests
      .slice(mark)
      .filter((r) => r.method !== 'GET')
      .map((r) => `${r.method} ${r.path.replace(`/api/v1/namespaces/${NAMESPACE}/`, '')}`);
    expect(writes).toEqual(['POST secrets', `PUT configmaps/${SETTINGS_CONFIGMAP}`]);

    kube.clearFaults();
    const retried = await patch({
      alpha_oauth: {
        client_id: 'rotated-client',
        client_secret_secret_ref: 'alpha-rotated',
        client_secret: 'rotated-secret',
      },
    });
    expect(retried.statusCode, retried.body).toBe(200);
    expect(JSON.parse(settingsText()!)).toMatchObject({
      alpha_oauth: { client_id: 'rotated-client', client_secret_secret_ref: 'alpha-rotated' },
    });
  });

  it('never writes the ConfigMap when the Secret write fails', async () => {
    const before = settingsText();
    kube.failRequests({ pathIncludes: '/secrets' }, 500, 'InternalError', 'etcdserver: leader changed');
    const mark = kube.requests.length;
    const res = await patch({
      features: { oauth2_enabled: true },
      alpha_oauth: { client_secret_secret_ref: 'alpha-third', client_secret: 'third-secret' },
    });
    expect503(res, /^The Kubernetes API server answered 500 to (get|create) secrets\/alpha-third$/);
    expect(settingsText()).toBe(before);
    expect(kube.requests.slice(mark).some((r) => r.path.includes('/configmaps/') && r.method !== 'GET')).toBe(false);
    kube.clearFaults();
    expect(kube.get('secrets', NAMESPACE, 'alpha-third')).toBeUndefined();
  });
});

describe('a slow Kubernetes API server', () => {
  it('ends each request at the Kubernetes timeout with 503 instead of hanging, and releases the settings lock', async () => {
    const before = settingsText();
    kube.delayRequests({ pathIncludes: '/configmaps/' }, KUBE_TIMEOUT_MS * 5);
    kube.delayRequests({ pathIncludes: '/secrets/' }, KUBE_TIMEOUT_MS * 5);
    kube.delayRequests({ pathIncludes: '/version' }, KUBE_TIMEOUT_MS * 5);
    const started = Date.now();
    // Three writes queue on the settings lock: each must give up in turn, so none waits for the slow server.
    const writes = await Promise.all([1, 2, 3].map((n) => patch({ retention: { metrics_retention_days: n } })));
    const slowTimeout = /^The Kubernetes API server did not answer in time$/;
    for (const res of writes) expect503(res, slowTimeout);
    expect(Date.now() - started).toBeLessThan(KUBE_TIMEOUT_MS * 3 + 2000);
    expect503(
      await t.app.inject({
        method: 'POST',
        url: '/api/users',
        headers: { cookie: admin },
        payload: { email: 'slow@corp.example', name: 'Slow', role: 'viewer' },
      }),
      slowTimeout,
    );
    const probe = Date.now();
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
    expect(Date.now() - probe).toBeLessThan(KUBE_TIMEOUT_MS + 1500);
    expect(settingsText()).toBe(before);

    kube.clearFaults();
    const after = await patch({ retention: { metrics_retention_days: 45 } });
    expect(after.statusCode, after.body).toBe(200);
    expect(JSON.parse(settingsText()!)).toMatchObject({ retention: { metrics_retention_days: 45 } });
  });
});
