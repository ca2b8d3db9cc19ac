// Request forms real clients send: a JSON Content-Type with an empty body, and collection paths with or without
// their trailing slash.
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, login, useAdminApp } from '../support/admin.js';
import { bearer, createDbUser, createToken, credentials } from '../support/browser.js';

describe('request forms', () => {
  const t = useAdminApp({ roles: ['admin'] });
  let cookie: string;
  let token: string;
  beforeAll(async () => {
    cookie = t.sessions.admin;
    await createDbUser(t.falkordb, 'forms-admin', 'forms-password', 'Admin');
    token = await createToken(t.app, credentials(t.falkordb, 'forms-admin', 'forms-password'));
  });

  it('logs out when a fetch wrapper sends Content-Type: application/json and no body, and clears the cookie', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { cookie, 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['set-cookie'])).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/);
  });

  it('still answers 400 in the API shape when a route that needs a body gets an empty one', async () => {
    const admin = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(admin.statusCode).toBe(400);
    expect(admin.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'invalid_request' });
    const browser = await t.app.inject({
      method: 'POST',
      url: '/api/auth/tokens/credentials',
      headers: { 'content-type': 'application/json' },
      payload: '  ',
    });
    expect(browser.statusCode).toBe(400);
    expect(browser.json<Record<string, unknown>>()).toEqual({
      message: expect.any(String) as unknown,
      code: 'invalid_request',
    });
  });

  it.each([
    ['/api/users', '/api/users/'],
    ['/api/clusters', '/api/clusters/'],
    ['/api/settings', '/api/settings/'],
    ['/api/auth/validate', '/api/auth/validate/'],
  ])('answers %s and %s alike', async (bare, slashed) => {
    const fresh = await login(t.app, ADMIN.email, ADMIN.password);
    const [a, b] = await Promise.all(
      [bare, slashed].map((url) => t.app.inject({ method: 'GET', url, headers: { cookie: fresh } })),
    );
    expect(a!.statusCode).toBe(200);
    expect(b!.statusCode).toBe(a!.statusCode);
    expect(b!.json()).toEqual(a!.json());
  });

  it.each([
    ['/api/graph', '/api/graph/'],
    ['/api/user', '/api/user/'],
    ['/api/auth/tokens', '/api/auth/tokens/'],
  ])('answers %s and %s alike on the browser API', async (bare, slashed) => {
    const [a, b] = await Promise.all(
      [bare, slashed].map((url) => t.app.inject({ method: 'GET', url, headers: bearer(token) })),
    );
    expect(a!.statusCode).toBe(200);
    expect(b!.statusCode).toBe(200);
    expect(b!.json()).toEqual(a!.json());
  });
});
