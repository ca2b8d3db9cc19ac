import { describe, expect, it } from 'vitest';
import type { UserView } from '../../src/admin/users/user-service.js';
import { ADAPTERS, ADMIN, login, sessionCookie, useAdminApp } from '../support/admin.js';

describe.each(ADAPTERS)('admin users by e-mail (%s stores)', (adapter) => {
  // Many sign-ins from one address: the per-address budget is tested in test/reliability/login-limits.test.ts.
  const t = useAdminApp({ adapter, env: { LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: '1000' } });
  const admin = t.as('admin');
  const storedUsers = async () =>
    JSON.parse((await t.backdoor.secret('graphdb-admin-users'))!['users.json']!) as {
      email: string;
      passwordHash?: string;
      mustChangePassword?: boolean;
    }[];
  const list = async (query = '') => {
    const res = await admin.inject({ method: 'GET', url: `/api/users/${query}` });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ users: UserView[]; pagination: Record<string, number> }>();
  };

  it('lists users as the real User objects, never with ids or password hashes, under both spellings', async () => {
    const { users, pagination } = await list();
    expect(users.map((u) => u.email)).toEqual([ADMIN.email, 'operator@corp.example', 'viewer@corp.example']);
    expect(users[0]).toEqual({
      email: ADMIN.email,
      name: 'Administrator',
      role: 'admin',
      source: 'local',
      status: 'active',
      createdAt: expect.any(String) as unknown,
      lastLogin: expect.any(String) as unknown,
      mustChangePassword: false,
    });
    expect(pagination).toEqual({ page: 1, limit: 50, total: 3, totalPages: 1 });
    const bare = await admin.inject({ method: 'GET', url: '/api/users' });
    expect(bare.json()).toEqual({ users, pagination });
    expect(bare.body).not.toContain('scrypt');
    expect(bare.body).not.toMatch(/"id"/);
  });

  it('filters by role and status and pages with page and limit; bad values are 400', async () => {
    expect((await list('?role=viewer')).users.map((u) => u.email)).toEqual(['viewer@corp.example']);
    expect((await list('?role=nobody')).pagination).toEqual({ page: 1, limit: 50, total: 0, totalPages: 0 });
    expect((await list('?status=disabled')).users).toEqual([]);
    const second = await list('?limit=2&page=2');
    expect(second.users.map((u) => u.email)).toEqual(['viewer@corp.example']);
    expect(second.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });
    expect((await list('?limit=2&page=3')).users).toEqual([]);
    for (const query of ['?page=0', '?limit=0', '?limit=101', '?status=gone', '?page=x', '?page=1e0', '?limit=0x10']) {
      const res = await admin.inject({ method: 'GET', url: `/api/users/${query}` });
      expect(res.statusCode, query).toBe(400);
      expect(res.json<{ error: string }>().error).toBe('Bad Request');
    }
  });

  it('creates users (201 User), refusing duplicates (409) and bad input (400) without storing anything', async () => {
    const res = await admin.inject({
      method: 'POST',
      url: '/api/users/',
      payload: { email: 'new@corp.example', name: 'New', role: 'operator', password: 'new-password-1' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({
      email: 'new@corp.example',
      name: 'New',
      role: 'operator',
      source: 'local',
      status: 'active',
      createdAt: expect.any(String) as unknown,
      mustChangePassword: false,
    });
    expect((await storedUsers()).find((u) => u.email === 'new@corp.example')?.passwordHash).toMatch(/^scrypt\$/);
    const invited = await admin.inject({
      method: 'POST',
      url: '/api/users',
      payload: { email: 'sso@corp.example', role: 'viewer', source: 'alpha', status: 'disabled' },
    });
    expect(invited.json()).toMatchObject({
      email: 'sso@corp.example',
      name: 'sso@corp.example',
      source: 'alpha',
      status: 'disabled',
    });
    const dup = await admin.inject({
      method: 'POST',
      url: '/api/users/',
      payload: { email: 'NEW@corp.example', name: 'Dup', role: 'viewer' },
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toEqual({
      statusCode: 409,
      error: 'Conflict',
      message: 'User NEW@corp.example already exists',
      code: 'conflict',
    });
    const before = await t.backdoor.secret('graphdb-admin-users');
    for (const body of [
      { email: 'not-an-email', role: 'viewer' },
      { email: 'x@corp.example', role: 'superuser' },
      { email: 'x@corp.example', role: '' },
      { email: 'x@corp.example', role: 'viewer', password: 'short' },
      { email: 'x@corp.example', name: '', role: 'viewer' },
      { email: 'x@corp.example', role: 'viewer', isAdmin: true },
      { email: 'x@corp.example', role: 'viewer', status: 'sleeping' },
      { email: 'x@corp.example', role: 'viewer', source: 'okta' },
      // A password belongs to local users only.
      { email: 'x@corp.example', role: 'viewer', source: 'beta', password: 'beta-password-1' },
      // RFC 5321 allows 64 characters before the @; a longer address would not pass the documented format.
      { email: `${'a'.repeat(65)}@corp.example`, role: 'viewer' },
    ]) {
      const bad = await admin.inject({ method: 'POST', url: '/api/users/', payload: body });
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
    }
    const unknownRole = await admin.inject({
      method: 'POST',
      url: '/api/users/',
      payload: { email: 'x@corp.example', role: 'superuser' },
    });
    expect(unknownRole.json<{ message: string }>().message).toBe(
      'Unknown role superuser; the roles are listed by GET /api/rbac/roles',
    );
    expect(await t.backdoor.secret('graphdb-admin-users')).toEqual(before);
  });

  it('reads, updates and deletes a user by e-mail, in any case; unknown e-mails are 404, other keys 400', async () => {
    const got = await admin.inject({ method: 'GET', url: '/api/users/New@Corp.Example' });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toMatchObject({ email: 'new@corp.example', role: 'operator' });
    const patched = await admin.inject({
      method: 'PATCH',
      url: '/api/users/new@corp.example',
      payload: { name: 'Renamed', role: 'viewer', status: 'disabled' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({
      email: 'new@corp.example',
      name: 'Renamed',
      role: 'viewer',
      status: 'disabled',
    });
    expect((await list('?status=disabled')).users.map((u) => u.email)).toEqual([
      'new@corp.example',
      'sso@corp.example',
    ]);
    for (const [method, url, payload] of [
      ['GET', '/api/users/ghost@corp.example', undefined],
      ['PATCH', '/api/users/ghost@corp.example', { name: 'x' }],
      ['DELETE', '/api/users/ghost@corp.example', undefined],
      ['POST', '/api/users/ghost@corp.example/reset-password', {}],
    ] as const) {
      const res = await admin.inject({ method, url, payload });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toEqual({
        statusCode: 404,
        error: 'Not Found',
        message: 'User ghost@corp.example not found',
        code: 'not_found',
      });
    }
    for (const [method, url, payload] of [
      ['GET', '/api/users/00000000-0000-4000-8000-000000000000', undefined],
      ['PATCH', '/api/users/not-an-email', { name: 'x' }],
      ['PATCH', '/api/users/new@corp.example', { disabled: true }],
      ['PATCH', '/api/users/new@corp.example', { password: 'new-password-2' }],
      ['PATCH', '/api/users/new@corp.example', { role: 'root' }],
      ['PATCH', '/api/users/new@corp.example', { status: 'paused' }],
    ] as const) {
      const res = await admin.inject({ method, url, payload });
      expect(res.statusCode, `${method} ${url} ${JSON.stringify(payload)}`).toBe(400);
    }
    const removed = await admin.inject({ method: 'DELETE', url: '/api/users/new@corp.example' });
    expect(removed.statusCode).toBe(204);
    expect(removed.body).toBe('');
    expect((await storedUsers()).some((u) => u.email === 'new@corp.example')).toBe(false);
    expect((await admin.inject({ method: 'GET', url: '/api/users/new@corp.example' })).statusCode).toBe(404);
  });

  it('never demotes, disables or deletes the last enabled admin (409)', async () => {
    // Its own role it cannot change at all (403, below); its status and its account it cannot end.
    for (const [method, payload] of [
      ['PATCH', { status: 'disabled' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await admin.inject({ method, url: `/api/users/${ADMIN.email}`, payload });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({
        statusCode: 409,
        error: 'Conflict',
        message: 'The last enabled admin cannot be demoted, disabled or deleted',
        code: 'conflict',
      });
    }
    await admin.inject({
      method: 'POST',
      url: '/api/users/',
      payload: { email: 'admin2@corp.example', name: 'Second', role: 'admin', password: 'admin2-password' },
    });
    // Nobody changes their own role (docs/admin-roles.md, escalation rules): another admin must.
    const own = await admin.inject({
      method: 'PATCH',
      url: `/api/users/${ADMIN.email}`,
      payload: { role: 'operator' },
    });
    expect(own.statusCode).toBe(403);
    expect(own.json<{ message: string }>().message).toBe(
      'Users cannot change their own role: another user with the right must do it',
    );
    const second = t.withCookie(await login(t.app, 'admin2@corp.example', 'admin2-password'));
    const demoted = await second.inject({
      method: 'PATCH',
      url: `/api/users/${ADMIN.email}`,
      payload: { role: 'operator' },
    });
    expect(demoted.statusCode).toBe(200);
    // The new role ends the demoted user's sessions; signed in again, they are an operator.
    expect((await admin.inject({ method: 'GET', url: '/api/users/' })).statusCode).toBe(401);
    const asOperator = t.withCookie(await login(t.app, ADMIN.email, ADMIN.password));
    expect((await asOperator.inject({ method: 'GET', url: '/api/users/' })).statusCode).toBe(403);
    expect((await second.inject({ method: 'DELETE', url: '/api/users/admin2@corp.example' })).statusCode).toBe(409);
    expect(
      (await second.inject({ method: 'PATCH', url: `/api/users/${ADMIN.email}`, payload: { role: 'admin' } }))
        .statusCode,
    ).toBe(200);
    t.sessions.admin = await login(t.app, ADMIN.email, ADMIN.password);
    expect((await admin.inject({ method: 'DELETE', url: '/api/users/admin2@corp.example' })).statusCode).toBe(204);
  });

  it('requires users:list/get/create/update/delete in the server namespace', async () => {
    const forbidden = (action: string) => ({
      statusCode: 403,
      error: 'Forbidden',
      message: `Insufficient permissions for users:${action} in namespace graphdb-system`,
      code: 'forbidden',
    });
    const operator = t.as('operator');
    expect((await operator.inject({ method: 'GET', url: '/api/users/' })).json()).toEqual(forbidden('list'));
    expect((await operator.inject({ method: 'GET', url: `/api/users/${ADMIN.email}` })).json()).toEqual(
      forbidden('get'),
    );
    expect(
      (
        await t
          .as('viewer')
          .inject({ method: 'POST', url: '/api/users/', payload: { email: 'v2@corp.example', role: 'admin' } })
      ).json(),
    ).toEqual(forbidden('create'));
    expect(
      (
        await operator.inject({ method: 'PATCH', url: '/api/users/viewer@corp.example', payload: { role: 'admin' } })
      ).json(),
    ).toEqual(forbidden('update'));
    expect(
      (
        await operator.inject({ method: 'POST', url: '/api/users/viewer@corp.example/reset-password', payload: {} })
      ).json(),
    ).toEqual(forbidden('update'));
    expect((await operator.inject({ method: 'DELETE', url: '/api/users/viewer@corp.example' })).json()).toEqual(
      forbidden('delete'),
    );
    expect((await t.app.inject({ method: 'GET', url: '/api/users/' })).statusCode).toBe(401);
  });

  it('resets a password: a random temporary one answered once, stored as its scrypt hash, sessions ended, change required', async () => {
    const viewer = await login(t.app, 'viewer@corp.example', 'viewer-password-1');
    const res = await admin.inject({
      method: 'POST',
      url: '/api/users/viewer@corp.example/reset-password',
      payload: {},
    });
    expect(res.statusCode, res.body).toBe(200);
    const { message, tempPassword } = res.json<{ message: string; tempPassword: string }>();
    expect(message).toBe('Password reset successfully');
    expect(tempPassword).toMatch(/^[\w-]{24}$/);
    expect(res.headers['cache-control']).toBe('no-store');
    const again = (
      await admin.inject({ method: 'POST', url: '/api/users/viewer@corp.example/reset-password', payload: {} })
    ).json<{ tempPassword: string }>().tempPassword;
    expect(again).not.toBe(tempPassword);
    const stored = (await storedUsers()).find((u) => u.email === 'viewer@corp.example')!;
    expect(stored.mustChangePassword).toBe(true);
    expect(JSON.stringify(await t.backdoor.secret('graphdb-admin-users'))).not.toContain(again);
    expect(t.logs.text).not.toContain(again);
    // The old session and the old password are over; the temporary one signs in.
    expect((await t.withCookie(viewer).inject({ method: 'GET', url: '/api/auth/validate' })).statusCode).toBe(401);
    const old = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'viewer@corp.example', password: 'viewer-password-1' },
    });
    expect(old.statusCode).toBe(401);
    const signedIn = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'viewer@corp.example', password: again },
    });
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json()).toMatchObject({ email: 'viewer@corp.example', mustChangePassword: true });
    expect(
      (await admin.inject({ method: 'POST', url: '/api/users/sso@corp.example/reset-password', payload: {} })).json(),
    ).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'User sso@corp.example signs in with alpha and has no password to reset',
      code: 'invalid_request',
    });
    expect(
      (
        await admin.inject({
          method: 'POST',
          url: '/api/users/viewer@corp.example/reset-password',
          payload: { password: 'x' },
        })
      ).statusCode,
    ).toBe(400);
  });

  it('lets a session that must change its password only validate, read its profile, change it and sign out', async () => {
    const { tempPassword } = (
      await admin.inject({ method: 'POST', url: '/api/users/viewer@corp.example/reset-password', payload: {} })
    ).json<{ tempPassword: string }>();
    const cookie = await login(t.app, 'viewer@corp.example', tempPassword);
    const me = t.withCookie(cookie);
    expect((await me.inject({ method: 'GET', url: '/api/auth/validate' })).json()).toMatchObject({
      valid: true,
      user: { email: 'viewer@corp.example', mustChangePassword: true },
    });
    expect((await me.inject({ method: 'GET', url: '/api/users/me/' })).json()).toMatchObject({
      email: 'viewer@corp.example',
      mustChangePassword: true,
    });
    for (const [method, url] of [
      ['GET', '/api/clusters'],
      ['GET', '/api/settings/'],
      ['GET', '/api/users/'],
      ['GET', '/api/users/viewer@corp.example'],
    ] as const) {
      const res = await me.inject({ method, url });
      expect(res.json(), url).toEqual({
        statusCode: 403,
        error: 'Forbidden',
        message: 'Password change required',
        code: 'forbidden',
      });
    }
    const changed = await me.inject({
      method: 'PATCH',
      url: '/api/users/me/password',
      payload: { currentPassword: tempPassword, newPassword: 'viewer-password-1' },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toEqual({ message: 'Password changed successfully' });
    const renewed = t.withCookie(sessionCookie(changed));
    expect((await renewed.inject({ method: 'GET', url: '/api/users/me' })).json()).toMatchObject({
      mustChangePassword: false,
    });
    expect((await renewed.inject({ method: 'GET', url: '/api/clusters' })).statusCode).toBe(200);
    expect((await me.inject({ method: 'GET', url: '/api/auth/validate' })).statusCode).toBe(401);
    t.sessions.viewer = await login(t.app, 'viewer@corp.example', 'viewer-password-1');
  });

  it("changes one's own password: 401 for a wrong current one, 400 for a short new one, other sessions ended", async () => {
    const here = await login(t.app, 'operator@corp.example', 'operator-password-1');
    const elsewhere = await login(t.app, 'operator@corp.example', 'operator-password-1');
    const me = t.withCookie(here);
    const change = (payload: unknown) => me.inject({ method: 'PATCH', url: '/api/users/me/password', payload });
    const wrong = await change({ currentPassword: 'not-my-password', newPassword: 'operator-password-2' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      message: 'Current password is incorrect',
      code: 'unauthenticated',
    });
    expect(wrong.headers['set-cookie']).toBeUndefined();
    for (const payload of [
      { currentPassword: 'operator-password-1', newPassword: 'short' },
      { currentPassword: '', newPassword: 'operator-password-2' },
      { newPassword: 'operator-password-2' },
      { currentPassword: 'operator-password-1', newPassword: 'operator-password-1' },
    ])
      expect((await change(payload)).statusCode, JSON.stringify(payload)).toBe(400);
    expect((await t.withCookie(elsewhere).inject({ method: 'GET', url: '/api/auth/validate' })).statusCode).toBe(200);
    const ok = await change({ currentPassword: 'operator-password-1', newPassword: 'operator-password-2' });
    expect(ok.statusCode, ok.body).toBe(200);
    for (const cookie of [here, elsewhere])
      expect((await t.withCookie(cookie).inject({ method: 'GET', url: '/api/auth/validate' })).statusCode).toBe(401);
    expect((await t.withCookie(sessionCookie(ok)).inject({ method: 'GET', url: '/api/users/me/' })).statusCode).toBe(
      200,
    );
    t.sessions.operator = await login(t.app, 'operator@corp.example', 'operator-password-2');
    expect(t.logs.text).not.toContain('operator-password-2');
    const sso = await admin.inject({
      method: 'PATCH',
      url: '/api/users/sso@corp.example',
      payload: { status: 'active' },
    });
    expect(sso.statusCode).toBe(200);
  });
});

describe('GET /api/auth/config', () => {
  const t = useAdminApp({
    env: {
      OAUTH_PROVIDER: 'beta',
      BETA_CLIENT_ID: 'env-beta',
      BETA_CLIENT_SECRET: 'env-beta-secret',
      BETA_TENANT_ID: 'tenant-1',
    },
  });
  const config = async () =>
    (await t.app.inject({ method: 'GET', url: '/api/auth/config' })).json<{ methods: Record<string, unknown>[] }>();

  it('offers local sign-in and the providers configured by settings or, failing that, the environment', async () => {
    expect(await config()).toEqual({
      methods: [
        { type: 'local', enabled: true },
        { type: 'beta', enabled: true, clientId: 'env-beta' },
      ],
    });
    const patch = (payload: unknown) => t.as('admin').inject({ method: 'PATCH', url: '/api/settings/', payload });
    expect(
      (await patch({ alpha_oauth: { client_id: 'alpha-from-settings', client_secret_secret_ref: 'alpha-oauth' } }))
        .statusCode,
    ).toBe(200);
    expect(
      (
        await patch({
          beta_oauth: {
            client_id: 'beta-from-settings',
            tenant_id: 'tenant-2',
            client_secret_secret_ref: 'beta-oauth',
          },
        })
      ).statusCode,
    ).toBe(200);
    expect(await config()).toEqual({
      methods: [
        { type: 'local', enabled: true },
        { type: 'alpha', enabled: true, clientId: 'alpha-from-settings' },
        { type: 'beta', enabled: true, clientId: 'beta-from-settings' },
      ],
    });
    await patch({ features: { oauth2_enabled: false } });
    expect((await config()).methods.slice(1).map((m) => m.enabled)).toEqual([false, false]);
    expect(JSON.stringify(await config())).not.toContain('env-beta-secret');
  });
});
