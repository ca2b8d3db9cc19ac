// Two replicas sharing the service account store (the Kubernetes API double, or under vitest.kube.config.ts the real
// kube-apiserver with the chart's RBAC) and the token store's Redis (the change channel): a token revoked, or an account disabled or deleted, on replica A stops working on replica B
// within a second. Both keep their copy of the accounts for 10 minutes (SETTINGS_REFRESH_MS), so only the channel's
// announcement can make B re-read it in time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeConfig } from '../../src/platform/kubernetes/kube-config.js';
import { createKubeAdminStores } from '../../src/platform/kubernetes/kube-stores.js';
import { ADAPTERS, NAMESPACE, useAdminApp } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { eventually } from '../support/wait.js';

const REFRESH = { SETTINGS_REFRESH_MS: '600000' };
/** The stores live in Kubernetes: the API double, or the real API server under `npm run test:kube`. */
const ADAPTER = ADAPTERS.includes('kube-apiserver') ? 'kube-apiserver' : 'kubernetes';
const WITHIN_A_SECOND_MS = 1000;

const a = useAdminApp({ adapter: ADAPTER, env: REFRESH, roles: ['admin'] });
let b: TestApp;
let adminOnA: string;

// Replica B is another start of the server on A's stores, so it is started here, after A.
beforeAll(async () => {
  b = await startTestApp({
    falkordb: a.falkordb,
    env: REFRESH,
    deps: {
      adminStores: createKubeAdminStores(
        loadKubeConfig({ kind: 'kubeconfig', path: a.real?.serverKubeconfigPath ?? a.kube!.kubeconfigPath }),
        NAMESPACE,
      ),
    },
  });
  adminOnA = a.sessions.admin;
});
afterAll(() => b?.close());

const onA = (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
  a.app.inject({
    method,
    url,
    headers: { cookie: adminOnA },
    ...(payload === undefined ? {} : { payload: payload as never }),
  });
const onB = (key: string) =>
  b.app.inject({ method: 'GET', url: '/api/clusters/', headers: { authorization: `Bearer ${key}` } });

/** An account with a token made on A and already used on B (so B holds the accounts in memory). */
async function tokenUsedOnB(name: string): Promise<{ id: string; key: string; tokenId: string }> {
  const created = await onA('POST', '/api/serviceaccounts/', { name, role: 'viewer' });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json<{ id: string }>().id;
  const minted = await onA('POST', `/api/serviceaccounts/${id}/tokens`, { name: 'ci', expiresInDays: 7 });
  expect(minted.statusCode, minted.body).toBe(201);
  const { key, token } = minted.json<{ key: string; token: { id: string } }>();
  await eventually(async () => (await onB(key)).statusCode === 200, 2000);
  return { id, key, tokenId: token.id };
}

async function stopsOnBWithinASecond(key: string, started: number): Promise<void> {
  await eventually(async () => (await onB(key)).statusCode === 401, WITHIN_A_SECOND_MS, {
    intervalMs: 20,
    detail: () => 'the token still works on replica B',
  });
  expect(Date.now() - started).toBeLessThan(WITHIN_A_SECOND_MS);
}

describe('service account revocation across replicas', () => {
  it('a token revoked on A stops on B within a second; another token of the account goes on', async () => {
    const { id, key, tokenId } = await tokenUsedOnB('replica-revoke');
    const other = await onA('POST', `/api/serviceaccounts/${id}/tokens`, { name: 'next', expiresInDays: 7 });
    const next = other.json<{ key: string }>().key;
    await eventually(async () => (await onB(next)).statusCode === 200, 2000);
    const started = Date.now();
    expect((await onA('DELETE', `/api/serviceaccounts/${id}/tokens/${tokenId}`)).statusCode).toBe(204);
    await stopsOnBWithinASecond(key, started);
    expect((await onB(next)).statusCode).toBe(200);
  });

  it('an account disabled on A stops on B within a second', async () => {
    const { id, key } = await tokenUsedOnB('replica-disable');
    const started = Date.now();
    expect((await onA('PATCH', `/api/serviceaccounts/${id}`, { disabled: true })).statusCode).toBe(200);
    await stopsOnBWithinASecond(key, started);
  });

  it('an account deleted on A stops on B within a second', async () => {
    const { id, key } = await tokenUsedOnB('replica-delete');
    const started = Date.now();
    expect((await onA('DELETE', `/api/serviceaccounts/${id}`)).statusCode).toBe(204);
    await stopsOnBWithinASecond(key, started);
  });

  it('turning service accounts off on A stops every token on B within a second', async () => {
    const { key } = await tokenUsedOnB('replica-off');
    const started = Date.now();
    expect((await onA('PATCH', '/api/settings/', { service_accounts: { enabled: false } })).statusCode).toBe(200);
    await stopsOnBWithinASecond(key, started);
    expect((await onA('PATCH', '/api/settings/', { service_accounts: { enabled: true } })).statusCode).toBe(200);
  });
});
