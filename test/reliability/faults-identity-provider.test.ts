// OpenID discovery unreachable: OAuth sign-in start answers 503 (not a 500, no state cookie), local sign-in is
// unaffected, and once the provider answers, sign-in works without a restart (a failed discovery is not cached).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/platform/net.js';
import { ADMIN, useAdminApp } from '../support/admin.js';
import { signInAtProvider, startIdentityProvider, type IdentityProvider } from '../support/oidc/identity-provider.js';

const ORIGIN = 'https://admin.corp.example';
const CALLBACK = `${ORIGIN}/api/auth/oauth/alpha/callback`;

let port: number;
let idp: IdentityProvider | undefined;
let admin: string;

beforeAll(async () => {
  // Nothing listens on the issuer's port yet: discovery meets a refused connection.
  port = await findFreePort();
});
const t = useAdminApp(() => ({
  env: { PUBLIC_ORIGIN: ORIGIN, ALPHA_ISSUER: `http://127.0.0.1:${port}` },
  roles: ['admin'],
}));
beforeAll(async () => {
  admin = t.sessions.admin;
  const res = await t.app.inject({
    method: 'PATCH',
    url: '/api/settings/',
    headers: { cookie: admin },
    payload: {
      features: { oauth2_enabled: true },
      oauth: { auto_onboard_users: true },
      alpha_oauth: {
        client_id: 'alpha-client',
        client_secret_secret_ref: 'alpha-oauth',
        client_secret: 'alpha-secret',
      },
    },
  });
  expect(res.statusCode, res.body).toBe(200);
});
afterAll(async () => {
  await idp?.close();
});

const start = (accept?: string) =>
  t.app.inject({ method: 'GET', url: '/api/auth/oauth/alpha?returnTo=/clusters', headers: accept ? { accept } : {} });

describe('OpenID discovery unreachable', () => {
  it('answers sign-in start 503 in the admin shape without a state cookie, every time', async () => {
    for (const accept of [undefined, 'text/html', undefined]) {
      const res = await start(accept);
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json()).toEqual({
        statusCode: 503,
        error: 'Service Unavailable',
        message: 'OAuth provider alpha cannot be reached; try again later',
        code: 'unavailable',
      });
      expect(res.cookies.filter((c) => c.name === 'oauth_state')).toEqual([]);
    }
    const logged = t.logs.lines.find((line) => line.msg === 'OAuth provider alpha cannot be reached');
    expect(logged).toMatchObject({ level: 40, provider: 'alpha', issuer: `http://127.0.0.1:${port}` });
  });

  it('keeps local sign-in and the sign-in page configuration working', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: ADMIN });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.cookies.find((c) => c.name === 'token')?.value).toBeTruthy();
    const config = await t.app.inject({ method: 'GET', url: '/api/auth/config' });
    expect(config.json()).toEqual({
      methods: [
        { type: 'local', enabled: true },
        { type: 'alpha', enabled: true, clientId: 'alpha-client' },
      ],
    });
  });

  it('signs in through the provider as soon as it answers, without a restart', async () => {
    idp = await startIdentityProvider({
      port,
      clients: [{ client_id: 'alpha-client', client_secret: 'alpha-secret', redirect_uris: [CALLBACK] }],
    });
    idp.accounts.set('ada', { email: 'ada@corp.example', email_verified: true, hd: 'corp.example', name: 'Ada' });
    const begun = await start();
    expect(begun.statusCode, begun.body).toBe(302);
    const stateCookie = begun.cookies.find((c) => c.name === 'oauth_state')!;
    const callback = await signInAtProvider(begun.headers.location!, CALLBACK, 'ada');
    const done = await t.app.inject({
      method: 'GET',
      url: `/api/auth/oauth/alpha/callback${callback.search}`,
      headers: { cookie: `oauth_state=${stateCookie.value}` },
    });
    expect(done.statusCode, done.body).toBe(302);
    expect(done.headers.location).toBe('/clusters');
    expect(done.cookies.find((c) => c.name === 'token')?.value).toBeTruthy();
  });

  it('answers the callback as an outage, not a failed verification, when the token endpoint cannot be reached', async () => {
    const begun = await start();
    expect(begun.statusCode, begun.body).toBe(302);
    const stateCookie = begun.cookies.find((c) => c.name === 'oauth_state')!;
    const state = new URL(begun.headers.location!).searchParams.get('state')!;
    // Discovery is cached from the sign-in start; the provider goes away before the code is exchanged.
    await idp!.close();
    idp = undefined;
    const callback = (accept?: string) =>
      t.app.inject({
        method: 'GET',
        url: `/api/auth/oauth/alpha/callback?code=some-code&state=${state}&iss=${encodeURIComponent(`http://127.0.0.1:${port}`)}`,
        headers: { cookie: `oauth_state=${stateCookie.value}`, ...(accept ? { accept } : {}) },
      });
    const browser = await callback('text/html');
    expect(browser.statusCode).toBe(302);
    expect(browser.headers.location).toBe('/login?error=provider_unavailable');
  });
});
