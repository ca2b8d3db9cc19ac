import { describe, expect, it } from 'vitest';
import { ADAPTERS, ADMIN, login, useAdminApp } from '../support/admin.js';

describe.each(ADAPTERS)('admin users (%s stores)', (adapter) => {
  const t = useAdminApp(adapter);
  const admin = t.as('admin');
  const users = async () =>
    (await admin.inject({ method: 'GET', url: '/api/users' })).json<{
      users: { id: string; email: string; role: string; disabled: boolean }[];
    }>().users;
  const storedUsers = async () =>
    JSON.parse((await t.backdoor.secret('graphdb-admin-users'))!['users.json']!) as {
      email: string;
      passwordHash?: string;
    }[];

  it('lists users with their permissions, and never their password hashes', async () => {
    const res = await admin.inject({ method: 'GET', url: '/api/users' });
    expect(res.statusCode).toBe(200);
    const list = res.json<{ users: Record<string, unknown>[] }>().users;
    expect(list.map((u) => u.email)).toEqual([ADMIN.email, 'operator@corp.example', 'viewer@corp.example']);
    expect(list[0]).toMatchObject({
      role: 'admin',
      provider: 'local',
      disabled: false,
      lastLoginAt: expect.any(String) as unknown,
    });
    expect(res.body).not.toContain('scrypt');
  });

  it('creates users, refusing duplicates (409) and bad input (400)', async () => {
    const res = await admin.inject({
      method: 'POST',
      url: '/api/users',
      payload: {
        email: 'new@corp.example',
        name: 'New',
        role: 'operator',
        password: 'new-password-1',
      },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json<{ user: Record<string, unknown> }>().user).toMatchObject({
      email: 'new@corp.example',
      role: 'operator',
      disabled: false,
      lastLoginAt: null,
    });
    expect((await storedUsers()).find((u) => u.email === 'new@corp.example')?.passwordHash).toMatch(/^scrypt\$/);
    const dup = await admin.inject({
      method: 'POST',
      url: '/api/users',
      payload: { email: 'NEW@corp.example', name: 'Dup', role: 'viewer' },
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toEqual({ statusCode: 409, error: 'Conflict', message: 'User NEW@corp.example already exists' });
    const before = await t.backdoor.secret('graphdb-admin-users');
    for (const body of [
      { email: 'not-an-email', name: 'x', role: 'viewer' },
      { email: 'x@corp.example', name: 'x', role: 'superuser' },
      { email: 'x@corp.example', name: 'x', role: 'viewer', password: 'short' },
      { email: 'x@corp.example', name: '', role: 'viewer' },
      { email: 'x@corp.example', name: 'x', role: 'viewer', isAdmin: true },
      // RFC 5321 allows 64 characters before the @; a longer address would not pass the documented format.
      { email: `${'a'.repeat(65)}@corp.example`, name: 'x', role: 'viewer' },
    ]) {
      const bad = await admin.inject({ method: 'POST', url: '/api/users', payload: body });
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect(await t.backdoor.secret('graphdb-admin-users')).toEqual(before);
  });

  it('updates name, role, password and the disabled flag', async () => {
    const target = (await users()).find((u) => u.email === 'new@corp.example')!;
    const res = await admin.inject({
      method: 'PATCH',
      url: `/api/users/${target.id}`,
      payload: {
        name: 'Renamed',
        role: 'viewer',
        password: 'changed-password-1',
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json<{ user: Record<string, unknown> }>().user).toMatchObject({ name: 'Renamed', role: 'viewer' });
    await login(t.app, 'new@corp.example', 'changed-password-1');
    expect(
      (
        await admin.inject({
          method: 'PATCH',
          url: '/api/users/00000000-0000-4000-8000-000000000000',
          payload: { name: 'x' },
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (await admin.inject({ method: 'PATCH', url: '/api/users/not-a-uuid', payload: { name: 'x' } })).statusCode,
    ).toBe(400);
  });

  it('never demotes, disables or deletes the last enabled admin (409)', async () => {
    const firstAdmin = (await users()).find((u) => u.email === ADMIN.email)!;
    for (const [method, payload] of [
      ['PATCH', { role: 'operator' }],
      ['PATCH', { disabled: true }],
      ['DELETE', undefined],
    ] as const) {
      const res = await admin.inject({ method, url: `/api/users/${firstAdmin.id}`, payload });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({
        statusCode: 409,
        error: 'Conflict',
        message: 'The last enabled admin cannot be demoted, disabled or deleted',
      });
    }
    const second = await admin.inject({
      method: 'POST',
      url: '/api/users',
      payload: {
        email: 'admin2@corp.example',
        name: 'Second',
        role: 'admin',
        password: 'admin2-password',
      },
    });
    const secondId = second.json<{ user: { id: string } }>().user.id;
    expect(
      (await admin.inject({ method: 'PATCH', url: `/api/users/${firstAdmin.id}`, payload: { role: 'operator' } }))
        .statusCode,
    ).toBe(200);
    expect(
      (
        await t
          .withCookie(await login(t.app, 'admin2@corp.example', 'admin2-password'))
          .inject({ method: 'DELETE', url: `/api/users/${secondId}` })
      ).statusCode,
    ).toBe(409);
    const restore = await login(t.app, 'admin2@corp.example', 'admin2-password');
    expect(
      (
        await t
          .withCookie(restore)
          .inject({ method: 'PATCH', url: `/api/users/${firstAdmin.id}`, payload: { role: 'admin' } })
      ).statusCode,
    ).toBe(200);
    // Each role change ended the first admin's sessions: the later tests sign in again.
    t.sessions.admin = await login(t.app, ADMIN.email, ADMIN.password);
    const removed = await admin.inject({ method: 'DELETE', url: `/api/users/${secondId}` });
    expect(removed.json()).toEqual({ message: 'User deleted' });
    expect((await users()).some((u) => u.id === secondId)).toBe(false);
  });

  it('requires users:list / users:create in the server namespace', async () => {
    const opList = await t.as('operator').inject({ method: 'GET', url: '/api/users' });
    expect(opList.statusCode).toBe(403);
    expect(opList.json()).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      message: 'Insufficient permissions for users:list in namespace graphdb-system',
    });
    const viewerCreate = await t.as('viewer').inject({
      method: 'POST',
      url: '/api/users',
      payload: { email: 'v2@corp.example', name: 'v', role: 'admin' },
    });
    expect(viewerCreate.json()).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      message: 'Insufficient permissions for users:create in namespace graphdb-system',
    });
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/users' });
    expect(anonymous.statusCode).toBe(401);
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
