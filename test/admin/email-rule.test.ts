// One e-mail rule for the whole user store: the embedded deployment's first admin, admin@localhost, is addressable by
// every route that names a user by e-mail, and ADMIN_EMAIL may name such an address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmailSchema } from '../../src/lib/email.js';
import { loadConfig } from '../../src/config.js';
import { startTestApp, TEST_SECRETS, type TestApp } from '../support/app.js';
import { login } from '../support/admin.js';

let t: TestApp;
let password = '';
// Started here rather than with useAdminApp: the first admin is admin@localhost with a generated password, which
// the test keeps.
beforeAll(async () => {
  t = await startTestApp({
    deps: {
      firstAdmin: {
        writeGeneratedPassword: (generated) => {
          password = generated;
          return Promise.resolve('(kept by the test)');
        },
      },
    },
  });
});
afterAll(() => t.close());

describe('admin@localhost', () => {
  it('is read, updated, reset and deleted through /api/users/{email}', async () => {
    const cookie = await login(t.app, 'admin@localhost', password);
    const as = (method: 'GET' | 'PATCH' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
      t.app.inject({
        method,
        url,
        headers: { cookie },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });

    const listed = await as('GET', '/api/users/');
    expect(listed.json<{ users: { email: string }[] }>().users.map((user) => user.email)).toContain('admin@localhost');
    const read = await as('GET', '/api/users/admin@localhost');
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json()).toMatchObject({ email: 'admin@localhost', role: 'admin' });
    const patched = await as('PATCH', '/api/users/Admin@LocalHost', { name: 'First admin' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ email: 'admin@localhost', name: 'First admin' });

    // A second admin, so the first may be reset and deleted (the last enabled admin never is).
    const second = await as('POST', '/api/users/', {
      email: 'second@localhost',
      role: 'admin',
      password: 'second-password-1',
    });
    expect(second.statusCode, second.body).toBe(201);
    const other = await login(t.app, 'second@localhost', 'second-password-1');
    const reset = await t.app.inject({
      method: 'POST',
      url: '/api/users/admin@localhost/reset-password',
      headers: { cookie: other },
      payload: {},
    });
    expect(reset.statusCode, reset.body).toBe(200);
    const removed = await t.app.inject({
      method: 'DELETE',
      url: '/api/users/admin@localhost',
      headers: { cookie: other },
    });
    expect(removed.statusCode, removed.body).toBe(204);
  });
});

describe('the e-mail rule', () => {
  it('accepts single-label hosts and refuses what is not an address, everywhere it is used', () => {
    for (const address of ['admin@localhost', 'ada@example.com', 'a.b+c@mail.corp.example'])
      expect(EmailSchema.safeParse(address).success, address).toBe(true);
    for (const address of ['admin', '@localhost', 'a@', '.a@b', 'a..b@c', 'a@b..c', 'a@-b', 'a@b@c', 'a b@c'])
      expect(EmailSchema.safeParse(address).success, address).toBe(false);
    expect(loadConfig({ ...TEST_SECRETS, ADMIN_EMAIL: 'admin@localhost' }).initialAdmin.email).toBe('admin@localhost');
  });
});
