// USERS_SECRET_NAME (set by the Helm chart from the release name, so two releases share a namespace): the server
// keeps its users in the Secret it names, leaves the historical one alone, and refuses a write-only setting that names
// it, as it refuses the historical name.
import { describe, expect, it } from 'vitest';
import { ADAPTERS, ADMIN, login, useAdminApp } from '../support/admin.js';

const USERS = 'blue-graphdb-admin-server-users';

describe.each(ADAPTERS)('a release-named user store (%s stores)', (adapter) => {
  const t = useAdminApp({ adapter, env: { USERS_SECRET_NAME: USERS }, roles: ['admin'] });

  it('keeps the users in the Secret USERS_SECRET_NAME names', async () => {
    const created = await t.as('admin').inject({
      method: 'POST',
      url: '/api/users',
      payload: { email: 'ops@corp.example', name: 'Ops', role: 'operator', password: 'ops-password-1' },
    });
    expect(created.statusCode).toBe(201);
    const stored = await t.backdoor.secret(USERS);
    expect(stored?.['users.json']).toContain('ops@corp.example');
    expect(stored?.['users.json']).toContain(ADMIN.email);
    expect(await t.backdoor.secret('graphdb-admin-users')).toBeUndefined();
    expect(await login(t.app, 'ops@corp.example', 'ops-password-1')).toBeTruthy();
  });

  it('refuses a write-only setting that names it, and writes nothing', async () => {
    const users = await t.backdoor.secret(USERS);
    const before = await t.backdoor.settingsText();
    const res = await t.as('admin').inject({
      method: 'PATCH',
      url: '/api/settings/',
      payload: { alpha_oauth: { client_secret_secret_ref: USERS, client_secret: '[]' } },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ message: string }>().message).toContain(USERS);
    expect(await t.backdoor.secret(USERS)).toEqual(users);
    expect(await t.backdoor.settingsText()).toBe(before);
  });
});
