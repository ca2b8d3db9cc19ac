import { mkdtemp, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { decodeJwt, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { writeInitialAdminPassword } from '../../src/platform/stores/file-stores.js';
import { startTestApp, TEST_SECRETS } from '../support/app.js';
import { ADAPTERS, ADMIN, login, sessionCookie, startAdminTestApp, useAdminApp } from '../support/admin.js';

describe.each(ADAPTERS)('sessions (%s stores)', (adapter) => {
  // The account backoff would answer before the per-address-and-e-mail limit under test here. No sessions at start:
  // the suite counts the users and the sign-ins from a fresh start.
  const t = useAdminApp({ adapter, env: { LOGIN_FAILURES_BEFORE_BACKOFF: '100' }, roles: [] });

  const validate = (cookie?: string) =>
    t.app.inject({ method: 'GET', url: '/api/auth/validate', headers: cookie ? { cookie } : {} });

  it('bootstraps the first admin with a scrypt hash in the user store', async () => {
    const stored = await t.backdoor.secret('graphdb-admin-users');
    const users = JSON.parse(stored!['users.json']!) as { email: string; role: string; passwordHash: string }[];
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({ email: ADMIN.email, role: 'admin' });
    expect(users[0]!.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(stored!['users.json']).not.toContain(ADMIN.password);
  });

  it('signs in with the documented cookie and JWT, and answers the real User with the session JWT in token', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: ADMIN.email.toUpperCase(), password: ADMIN.password },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json<Record<string, unknown>>();
    expect(body).toEqual({
      email: ADMIN.email,
      name: 'Administrator',
      role: 'admin',
      source: 'local',
      status: 'active',
      createdAt: expect.any(String) as unknown,
      lastLogin: expect.any(String) as unknown,
      mustChangePassword: false,
      token: expect.any(String) as unknown,
    });
    expect(res.headers['cache-control']).toBe('no-store');
    // The admin API's `token`, and over HTTPS the same session under `__Host-token` (cross-site.test.ts).
    const headers = [res.headers['set-cookie']].flat().map(String);
    expect(headers).toHaveLength(2);
    expect(headers[0]).toMatch(
      /^token=[\w-]+\.[\w-]+\.[\w-]+; Max-Age=28800; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
    );
    expect(headers[1]).toMatch(
      /^__Host-token=[\w-]+\.[\w-]+\.[\w-]+; Max-Age=28800; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
    );
    const jwt = sessionCookie(res).slice('token='.length);
    expect(body.token).toBe(jwt);
    const claims = decodeJwt(jwt);
    expect(claims).toMatchObject({
      sub: expect.any(String) as unknown,
      email: ADMIN.email,
      role: 'admin',
      provider: 'local',
      iss: 'graphdb-server',
      aud: 'graphdb-admin',
    });
    expect(claims.exp! - claims.iat!).toBe(28800);
    // The body's token works as the cookie, for clients that read it instead of Set-Cookie.
    expect((await validate(`token=${String(body.token)}`)).json()).toEqual({
      valid: true,
      user: Object.fromEntries(Object.entries(body).filter(([key]) => key !== 'token')),
    });
    expect(t.logs.text).not.toContain(ADMIN.password);
    expect(t.logs.text).not.toContain(jwt);
  });

  it('answers 401 "Invalid email or password" for every kind of failure', async () => {
    const admin = await login(t.app, ADMIN.email, ADMIN.password);
    await t.app.inject({
      method: 'POST',
      url: '/api/users',
      headers: { cookie: admin },
      payload: { email: 'off@corp.example', name: 'Off', role: 'viewer', password: 'off-password-1' },
    });
    await t.app.inject({
      method: 'PATCH',
      url: '/api/users/off@corp.example',
      headers: { cookie: admin },
      payload: { status: 'disabled' },
    });
    await t.app.inject({
      method: 'POST',
      url: '/api/users',
      headers: { cookie: admin },
      payload: { email: 'sso@corp.example', name: 'SSO only', role: 'viewer' },
    });
    for (const [email, password] of [
      [ADMIN.email, 'wrong-password'],
      ['nobody@corp.example', 'whatever-password'],
      ['off@corp.example', 'off-password-1'],
      ['sso@corp.example', 'anything-at-all'],
    ]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({
        statusCode: 401,
        error: 'Unauthorized',
        message: 'Invalid email or password',
        code: 'unauthenticated',
      });
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('validates a session against the user store, so role changes and disabling apply at once', async () => {
    const admin = await login(t.app, ADMIN.email, ADMIN.password);
    await t.app.inject({
      method: 'POST',
      url: '/api/users',
      headers: { cookie: admin },
      payload: { email: 'op@corp.example', name: 'Op', role: 'operator', password: 'op-password-1' },
    });
    const op = await login(t.app, 'op@corp.example', 'op-password-1');
    const before = await validate(op);
    expect(before.statusCode).toBe(200);
    expect(before.json()).toEqual({ valid: true, user: expect.objectContaining({ role: 'operator' }) as unknown });
    await t.app.inject({
      method: 'PATCH',
      url: '/api/users/op@corp.example',
      headers: { cookie: admin },
      payload: { role: 'viewer' },
    });
    // The session granted as operator is over; a new one carries the new role.
    expect((await validate(op)).statusCode).toBe(401);
    const asViewer = await login(t.app, 'op@corp.example', 'op-password-1');
    expect((await validate(asViewer)).json<{ user: { role: string } }>().user.role).toBe('viewer');
    await t.app.inject({
      method: 'PATCH',
      url: '/api/users/op@corp.example',
      headers: { cookie: admin },
      payload: { status: 'disabled' },
    });
    const disabled = await validate(asViewer);
    expect(disabled.statusCode).toBe(401);
  });

  it('answers 401 without a cookie, with an expired JWT, and with a forged or mis-addressed one', async () => {
    const missing = await validate();
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      message: 'Authentication required',
      code: 'unauthenticated',
    });
    const admin = await login(t.app, ADMIN.email, ADMIN.password);
    const claims = decodeJwt(admin.slice('token='.length));
    const key = new TextEncoder().encode(TEST_SECRETS.SESSION_SECRET);
    const sign = (payload: Record<string, unknown>, secret = key) =>
      new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).sign(secret);
    const now = Math.floor(Date.now() / 1000);
    for (const jwt of [
      await sign({ ...claims, iat: now - 7200, exp: now - 60 }),
      await sign({ ...claims, aud: 'someone-else' }),
      await sign({ ...claims, iss: 'another-issuer' }),
      await sign(claims, new TextEncoder().encode('not-the-session-secret-not-the-session-secret')),
      // Correctly signed but without an expiry: it would never end.
      await sign(Object.fromEntries(Object.entries(claims).filter(([name]) => name !== 'exp'))),
      'not.a.jwt',
    ]) {
      const res = await validate(`token=${jwt}`);
      expect(res.statusCode).toBe(401);
      expect(res.json<{ error: string }>().error).toBe('Unauthorized');
    }
    expect((await validate(admin)).statusCode).toBe(200);
  });

  it('logs out by clearing the cookie with the same attributes, idempotently', async () => {
    const admin = await login(t.app, ADMIN.email, ADMIN.password);
    for (const headers of [{ cookie: admin }, {}]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: true, message: 'Logged out' });
      const cleared = [res.headers['set-cookie']].flat().map(String);
      expect(cleared).toEqual(
        ['token', '__Host-token'].map(
          (name) =>
            `${name}=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax`,
        ),
      );
    }
  });

  // Sign-ins from their own client addresses, so these tests do not spend the others' sign-in budget.
  const loginFrom = async (remoteAddress: string, email: string, password: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password },
      remoteAddress,
    });
    expect(res.statusCode, res.body).toBe(200);
    return sessionCookie(res);
  };

  it('ends every session of the user at logout, so a copied cookie stops working too', async () => {
    const here = await loginFrom('10.1.0.1', ADMIN.email, ADMIN.password);
    const elsewhere = await loginFrom('10.1.0.2', ADMIN.email, ADMIN.password);
    expect((await validate(elsewhere)).statusCode).toBe(200);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie: here } })).statusCode,
    ).toBe(200);
    for (const cookie of [here, elsewhere]) expect((await validate(cookie)).statusCode).toBe(401);
    const stored = JSON.parse((await t.backdoor.secret('graphdb-admin-users'))!['users.json']!) as {
      email: string;
      sessionVersion?: number;
    }[];
    expect(stored.find((user) => user.email === ADMIN.email)!.sessionVersion).toBeGreaterThan(0);
    expect((await validate(await loginFrom('10.1.0.1', ADMIN.email, ADMIN.password))).statusCode).toBe(200);
  });

  it("ends a user's sessions when an admin resets their password or changes their role or status, and renews the admin's own", async () => {
    const admin = await loginFrom('10.1.0.3', ADMIN.email, ADMIN.password);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/users/',
      headers: { cookie: admin },
      payload: { email: 'revoked@corp.example', name: 'Revoked', role: 'viewer', password: 'viewer-password-1' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const url = '/api/users/revoked@corp.example';
    let password = 'viewer-password-1';
    const changes: [string, string, unknown][] = [
      ['POST', `${url}/reset-password`, {}],
      ['PATCH', url, { role: 'operator' }],
      ['PATCH', url, { status: 'disabled' }],
    ];
    for (const [method, target, payload] of changes) {
      const viewer = await loginFrom('10.1.0.4', 'revoked@corp.example', password);
      expect((await validate(viewer)).statusCode).toBe(200);
      const res = await t.app.inject({
        method: method as 'POST' | 'PATCH',
        url: target,
        headers: { cookie: admin },
        payload: payload as never,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect((await validate(viewer)).statusCode, JSON.stringify(payload)).toBe(401);
      password = res.json<{ tempPassword?: string }>().tempPassword ?? password;
    }
    // A rename alone ends nothing.
    await t.app.inject({ method: 'PATCH', url, headers: { cookie: admin }, payload: { status: 'active' } });
    const viewer = await loginFrom('10.1.0.4', 'revoked@corp.example', password);
    await t.app.inject({ method: 'PATCH', url, headers: { cookie: admin }, payload: { name: 'Renamed' } });
    expect((await validate(viewer)).statusCode).toBe(200);
    // An admin changing their own password keeps working: the response carries a renewed session.
    const own = await t.app.inject({
      method: 'PATCH',
      url: '/api/users/me/password',
      headers: { cookie: admin },
      remoteAddress: '10.1.0.3',
      payload: { currentPassword: ADMIN.password, newPassword: 'root-password-456' },
    });
    expect(own.statusCode, own.body).toBe(200);
    expect((await validate(admin)).statusCode).toBe(401);
    const renewed = sessionCookie(own);
    expect((await validate(renewed)).statusCode).toBe(200);
    const back = await t.app.inject({
      method: 'PATCH',
      url: '/api/users/me/password',
      headers: { cookie: renewed },
      remoteAddress: '10.1.0.3',
      payload: { currentPassword: 'root-password-456', newPassword: ADMIN.password },
    });
    expect(back.statusCode, back.body).toBe(200);
  });

  it('limits sign-in attempts to 10 a minute per client and e-mail, answering 429 in the admin shape', async () => {
    const attempt = (email: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email, password: 'bad-password' },
        remoteAddress: '10.9.8.7',
      });
    for (let i = 0; i < 10; i++) expect((await attempt('victim@corp.example')).statusCode).toBe(401);
    const limited = await attempt('victim@corp.example');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({
      statusCode: 429,
      error: 'Too Many Requests',
      message: expect.stringMatching(/^Too many sign-in attempts; try again in \d+ seconds$/) as unknown,
      code: 'rate_limited',
    });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await attempt('someone-else@corp.example')).statusCode).toBe(401);
  });

  it('answers 403 when local sign-in is disabled', async () => {
    const admin = await login(t.app, ADMIN.email, ADMIN.password);
    // Local sign-in may be turned off only while an OAuth provider is configured (settings.test.ts).
    const off = await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/',
      headers: { cookie: admin },
      payload: {
        features: { local_users_enabled: false },
        alpha_oauth: { client_id: 'alpha-client', client_secret_secret_ref: 'alpha-oauth' },
      },
    });
    expect(off.statusCode, off.body).toBe(200);
    try {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: ADMIN.email, password: ADMIN.password },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        statusCode: 403,
        error: 'Forbidden',
        message: 'Local sign-in is disabled',
        code: 'forbidden',
      });
      const config = await t.app.inject({ method: 'GET', url: '/api/auth/config' });
      expect(config.json<{ methods: unknown[] }>().methods[0]).toEqual({ type: 'local', enabled: false });
    } finally {
      await t.app.inject({
        method: 'PATCH',
        url: '/api/settings/',
        headers: { cookie: admin },
        payload: { features: { local_users_enabled: true } },
      });
    }
  });
});

describe('session cookie over plain http, and the embedded first admin', () => {
  it('leaves out Secure when the public origin is http', async () => {
    // Its own app: the public origin is the point of the test.
    const t = await startAdminTestApp('embedded', { env: { PUBLIC_ORIGIN: 'http://localhost:3000' } });
    try {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: ADMIN.email, password: ADMIN.password },
      });
      expect(String(res.headers['set-cookie'])).not.toContain('Secure');
      expect(String(res.headers['set-cookie'])).toContain('HttpOnly');
    } finally {
      await t.close();
    }
  });

  it('writes a generated first-admin password to a 0600 file when none is configured', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-first-admin-'));
    const t = await startTestApp({
      deps: { firstAdmin: { writeGeneratedPassword: (password) => writeInitialAdminPassword(dataDir, password) } },
    });
    try {
      const file = path.join(dataDir, 'initial-admin-password');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const password = (await readFile(file, 'utf8')).trim();
      expect(password.length).toBeGreaterThanOrEqual(20);
      expect(t.logs.text).toContain(file);
      expect(t.logs.text).not.toContain(password);
      await login(t.app, 'admin@localhost', password);
    } finally {
      await t.close();
    }
  });
});
