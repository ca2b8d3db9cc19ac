// The admin session's JWT as `Authorization: Bearer`, for scripts and generated clients: the same session as the
// cookie (logout and expiry end it), over real HTTP with no cookie jar; the CSRF rules for cookies are unchanged.
import { describe, expect, it } from 'vitest';
import { ADMIN, useAdminApp } from '../support/admin.js';

const t = useAdminApp({ adapter: 'embedded', listen: true });

async function signIn(): Promise<string> {
  const res = await fetch(`${t.baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: ADMIN.email, password: ADMIN.password }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  fetch(`${t.baseUrl}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('Authorization: Bearer on the admin API', () => {
  it('reads and writes with the session token in the header, without any cookie', async () => {
    const token = await signIn();
    const bearer = { authorization: `Bearer ${token}` };
    const me = await call('GET', '/api/users/me/', bearer);
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ email: ADMIN.email });
    const created = await call('POST', '/api/users/', bearer, {
      email: 'scripted@corp.example',
      role: 'viewer',
      password: 'scripted-password-1',
    });
    expect(created.status).toBe(201);
    const removed = await call('DELETE', '/api/users/scripted@corp.example', bearer);
    expect(removed.status).toBe(204);
  });

  it('refuses a missing, malformed or foreign token with 401', async () => {
    for (const authorization of ['Bearer', 'Bearer not-a-jwt', 'Basic YWRtaW46YWRtaW4=', 'Bearer a.b.c']) {
      const res = await call('GET', '/api/users/me/', { authorization });
      expect(res.status, authorization).toBe(401);
    }
  });

  it('ends with the session: after logout the token answers 401', async () => {
    const token = await signIn();
    const bearer = { authorization: `Bearer ${token}` };
    expect((await call('GET', '/api/auth/validate', bearer)).status).toBe(200);
    expect((await call('POST', '/api/auth/logout', bearer)).status).toBe(200);
    expect((await call('GET', '/api/auth/validate', bearer)).status).toBe(401);
  });

  it('keeps refusing a cross-site write, whatever carries the session', async () => {
    const token = await signIn();
    const res = await call(
      'PATCH',
      '/api/settings/',
      { authorization: `Bearer ${token}`, origin: 'https://evil.example' },
      { features: { api_docs_enabled: true } },
    );
    expect(res.status).toBe(403);
  });
});
