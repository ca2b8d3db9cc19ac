// The admin user list is served from memory between reads of its Secret (SETTINGS_REFRESH_MS): session checks
// cost no Kubernetes request, changes made here apply at once, changes made elsewhere after the interval, and
// an unreachable API server leaves the last good copy in force. Requests are counted on the API double.
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN, login, startAdminTestApp, type AdminTestApp } from '../support/admin.js';

const REFRESH_MS = 60_000;
const USERS_SECRET_PATH = '/secrets/graphdb-admin-users';

let t: AdminTestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Each test starts its own app, on a clock of its own; no shared app would do. */
async function start(clock: { now: number }): Promise<AdminTestApp> {
  t = await startAdminTestApp('kubernetes', { env: { SETTINGS_REFRESH_MS: String(REFRESH_MS) }, now: () => clock.now });
  return t;
}

const secretReads = (app: AdminTestApp) =>
  app.kube!.requests.filter((r) => r.method === 'GET' && r.path.endsWith(USERS_SECRET_PATH)).length;
const validate = (app: AdminTestApp, cookie: string) =>
  app.app.inject({ method: 'GET', url: '/api/auth/validate', headers: { cookie } });

/** Rewrites the stored user list the way another replica (or `kubectl edit`) would. */
function editUsersBehindTheServersBack(
  app: AdminTestApp,
  change: (users: { email: string; disabled: boolean }[]) => void,
): void {
  const secret = app.kube!.get('secrets', 'graphdb-system', 'graphdb-admin-users')!;
  const data = secret.data as Record<string, string>;
  const users = JSON.parse(Buffer.from(data['users.json']!, 'base64').toString('utf8')) as {
    email: string;
    disabled: boolean;
  }[];
  change(users);
  app.kube!.put('secrets', 'graphdb-system', {
    ...secret,
    data: { ...data, 'users.json': Buffer.from(JSON.stringify(users)).toString('base64') },
  });
}

describe('admin user list in memory', () => {
  it('checks sessions without reading the Secret again within the refresh interval', async () => {
    const clock = { now: Date.now() };
    const app = await start(clock);
    const cookie = await login(app.app, ADMIN.email, ADMIN.password);
    const before = secretReads(app);
    for (let i = 0; i < 20; i++) expect((await validate(app, cookie)).statusCode).toBe(200);
    expect(secretReads(app)).toBe(before);
    clock.now += REFRESH_MS;
    expect((await validate(app, cookie)).statusCode).toBe(200);
    expect(secretReads(app)).toBe(before + 1);
  });

  it('applies a change made through this server at once', async () => {
    const clock = { now: Date.now() };
    const app = await start(clock);
    const admin = await login(app.app, ADMIN.email, ADMIN.password);
    const created = await app.app.inject({
      method: 'POST',
      url: '/api/users',
      headers: { cookie: admin },
      payload: { email: 'op@corp.example', name: 'Op', role: 'operator', password: 'op-password-1' },
    });
    expect(created.statusCode).toBe(201);
    const operator = await login(app.app, 'op@corp.example', 'op-password-1');
    expect(
      (
        await app.app.inject({
          method: 'PATCH',
          url: '/api/users/op@corp.example',
          headers: { cookie: admin },
          payload: { status: 'disabled' },
        })
      ).statusCode,
    ).toBe(200);
    expect((await validate(app, operator)).statusCode).toBe(401);
  });

  it('sees a change made elsewhere once the refresh interval has passed', async () => {
    const clock = { now: Date.now() };
    const app = await start(clock);
    const admin = await login(app.app, ADMIN.email, ADMIN.password);
    await app.app.inject({
      method: 'POST',
      url: '/api/users',
      headers: { cookie: admin },
      payload: { email: 'v@corp.example', name: 'V', role: 'viewer', password: 'viewer-password-1' },
    });
    const viewer = await login(app.app, 'v@corp.example', 'viewer-password-1');
    editUsersBehindTheServersBack(app, (users) => {
      users.find((u) => u.email === 'v@corp.example')!.disabled = true;
    });
    expect((await validate(app, viewer)).statusCode).toBe(200);
    clock.now += REFRESH_MS;
    expect((await validate(app, viewer)).json()).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      message: 'Session expired or invalid',
      code: 'unauthenticated',
    });
  });

  it('keeps serving the last good copy while the Secret cannot be read', async () => {
    const clock = { now: Date.now() };
    const app = await start(clock);
    const cookie = await login(app.app, ADMIN.email, ADMIN.password);
    app.kube!.failRequests(
      { method: 'GET', pathIncludes: USERS_SECRET_PATH },
      503,
      'ServiceUnavailable',
      'etcd is down',
    );
    clock.now += REFRESH_MS;
    const before = secretReads(app);
    const res = await validate(app, cookie);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ user: { email: string } }>().user.email).toBe(ADMIN.email);
    // It did try the store (the client may retry a 503), and fell back to the copy it had.
    expect(secretReads(app)).toBeGreaterThan(before);
    expect(app.logs.text).toContain('serving the last good copy');
  });
});
