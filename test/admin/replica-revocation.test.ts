// Two replicas sharing the user store (the Kubernetes API double) and the token store's Redis (the change channel):
// a session ends at once on replica B when its user is disabled, deleted, demoted or gets a new password on replica
// A. Both replicas keep their user list for 10 minutes (SETTINGS_REFRESH_MS), so only the channel's announcement
// can make B re-read it within the test's 2 seconds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeConfig } from '../../src/platform/kubernetes/kube-config.js';
import { createKubeAdminStores } from '../../src/platform/kubernetes/kube-stores.js';
import { ADMIN, login, NAMESPACE, sessionCookie, useAdminApp } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { eventually, sleep } from '../support/wait.js';

const REFRESH = { SETTINGS_REFRESH_MS: '600000', PUBLIC_ORIGIN: 'https://admin.corp.example' };
/** Far below the refresh interval: the pub/sub message only has to cross the loopback. */
const AT_ONCE_MS = 2000;

const a = useAdminApp({
  adapter: 'kubernetes',
  env: { ...REFRESH, LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: '1000' },
  roles: ['admin'],
});
let b: TestApp;
let adminOnA: string;
let adminOnB: string;

// Replica B is another start of the server on A's stores, so it is started here, after A.
beforeAll(async () => {
  b = await startTestApp({
    // The same FalkorDB is the token store of both: their change channel.
    falkordb: a.falkordb,
    env: { ...REFRESH, LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: '1000' },
    deps: {
      adminStores: createKubeAdminStores(
        loadKubeConfig({ kind: 'kubeconfig', path: a.kube!.kubeconfigPath }),
        NAMESPACE,
      ),
    },
  });
  adminOnA = a.sessions.admin;
  adminOnB = await login(b.app, ADMIN.email, ADMIN.password);
});
afterAll(() => b?.close());

const validateOnB = (cookie: string) => b.app.inject({ method: 'GET', url: '/api/auth/validate', headers: { cookie } });
const onA = (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, cookie = adminOnA) =>
  a.app.inject({ method, url, headers: { cookie }, ...(payload === undefined ? {} : { payload: payload as never }) });

/** A new user with a session signed in on B (and already checked there, so B holds the user list in memory). */
async function userWithSessionOnB(email: string, role = 'operator'): Promise<{ password: string; onB: string }> {
  const password = `${email.split('@')[0]}-password-1`;
  const created = await onA('POST', '/api/users/', { email, role, password });
  expect(created.statusCode, created.body).toBe(201);
  // The announcement crosses Redis in a few milliseconds; B knows the user once it has arrived.
  await eventually(
    async () =>
      (await b.app.inject({ method: 'GET', url: `/api/users/${email}`, headers: { cookie: adminOnB } })).statusCode ===
      200,
    AT_ONCE_MS,
  );
  const onB = await login(b.app, email, password);
  expect((await validateOnB(onB)).statusCode).toBe(200);
  return { password, onB };
}

async function endsAtOnceOnB(onB: string): Promise<void> {
  await eventually(async () => (await validateOnB(onB)).statusCode === 401, AT_ONCE_MS, {
    detail: () => 'the session still works on replica B',
  });
  expect((await validateOnB(onB)).json()).toEqual({
    statusCode: 401,
    error: 'Unauthorized',
    message: 'Session expired or invalid',
    code: 'unauthenticated',
  });
}

describe('session revocation across replicas', () => {
  it('keeps a session working on B through a rename on A, and sees nothing the channel does not announce', async () => {
    const { onB } = await userWithSessionOnB('steady@corp.example');
    expect((await onA('PATCH', '/api/users/steady@corp.example', { name: 'Renamed' })).statusCode).toBe(200);
    // B re-read the list on A's announcement: the session goes on, under the new name.
    await eventually(
      async () => (await validateOnB(onB)).json<{ user?: { name: string } }>().user?.name === 'Renamed',
      AT_ONCE_MS,
    );
    // The control: the same store edited without an announcement (kubectl) is not seen on B within the window, so
    // the revocations below are the channel's doing, not a re-read.
    const secret = a.kube!.get('secrets', NAMESPACE, 'graphdb-admin-users')!;
    const data = secret.data as Record<string, string>;
    const users = JSON.parse(Buffer.from(data['users.json']!, 'base64').toString('utf8')) as {
      email: string;
      disabled: boolean;
    }[];
    users.find((user) => user.email === 'steady@corp.example')!.disabled = true;
    a.kube!.put('secrets', NAMESPACE, {
      ...secret,
      data: { ...data, 'users.json': Buffer.from(JSON.stringify(users)).toString('base64') },
    });
    await sleep(AT_ONCE_MS); // the window itself is the point
    expect((await validateOnB(onB)).statusCode).toBe(200);
  });

  it('ends it when the user is disabled on A', async () => {
    const { onB } = await userWithSessionOnB('disabled@corp.example');
    expect((await onA('PATCH', '/api/users/disabled@corp.example', { status: 'disabled' })).statusCode).toBe(200);
    await endsAtOnceOnB(onB);
  });

  it('ends it when the user is deleted on A', async () => {
    const { onB } = await userWithSessionOnB('deleted@corp.example');
    expect((await onA('DELETE', '/api/users/deleted@corp.example')).statusCode).toBe(204);
    await endsAtOnceOnB(onB);
  });

  it('ends it when the user is demoted on A', async () => {
    const { onB } = await userWithSessionOnB('demoted@corp.example');
    expect((await onA('PATCH', '/api/users/demoted@corp.example', { role: 'viewer' })).statusCode).toBe(200);
    await endsAtOnceOnB(onB);
  });

  it('ends it when the user changes their password on A, keeping the renewed session that changed it', async () => {
    const { password, onB } = await userWithSessionOnB('changer@corp.example');
    const onAOwn = await login(a.app, 'changer@corp.example', password);
    const changed = await onA(
      'PATCH',
      '/api/users/me/password',
      { currentPassword: password, newPassword: 'changer-password-2' },
      onAOwn,
    );
    expect(changed.statusCode, changed.body).toBe(200);
    await endsAtOnceOnB(onB);
    expect((await validateOnB(sessionCookie(changed))).statusCode).toBe(200);
  });

  it('ends it when an admin resets the password on A', async () => {
    const { onB } = await userWithSessionOnB('reset@corp.example');
    const reset = await onA('POST', '/api/users/reset@corp.example/reset-password', {});
    expect(reset.statusCode, reset.body).toBe(200);
    await endsAtOnceOnB(onB);
    // The temporary password signs in on B, into a session that must change it first.
    const temporary = await login(b.app, 'reset@corp.example', reset.json<{ tempPassword: string }>().tempPassword);
    const clusters = await b.app.inject({ method: 'GET', url: '/api/clusters', headers: { cookie: temporary } });
    expect(clusters.json<{ message: string }>().message).toBe('Password change required');
  });
});
