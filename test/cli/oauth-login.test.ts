// `graphdb-admin login --provider`: sign-in through the identity provider the way native apps do it
// (RFC 8252, loopback redirect, PKCE). The compiled CLI runs as a child process; the test plays the browser
// through the server's start route, the real OpenID provider's login form and the callback, to the CLI's loopback
// listener. Refusals are checked at the server: a non-loopback redirect, a reused, expired or mis-bound code.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/platform/net.js';
import { ADMIN, login, startAdminTestApp, type AdminTestApp } from '../support/admin.js';
import { signInAtProvider, startIdentityProvider, type IdentityProvider } from '../support/oidc/identity-provider.js';
import { BIN, cliIn } from './harness.js';

let idp: IdentityProvider;
let t: AdminTestApp;
let origin: string;
let callbackUri: string;
let configDir: string;
let clock = Date.now();

beforeAll(async () => {
  const port = await findFreePort();
  origin = `http://127.0.0.1:${port}`;
  callbackUri = `${origin}/api/auth/oauth/alpha/callback`;
  idp = await startIdentityProvider({
    clients: [{ client_id: 'alpha-client', client_secret: 'alpha-secret', redirect_uris: [callbackUri] }],
  });
  idp.accounts.set('ada', { email: 'ada@corp.example', email_verified: true, hd: 'corp.example', name: 'Ada' });
  // Started here rather than with useAdminApp: it must listen on the port its PUBLIC_ORIGIN names, chosen above.
  t = await startAdminTestApp('embedded', {
    env: { PUBLIC_ORIGIN: origin, ALPHA_ISSUER: idp.issuer },
    now: () => clock,
  });
  const admin = await login(t.app, ADMIN.email, ADMIN.password);
  const configured = await t.app.inject({
    method: 'PATCH',
    url: '/api/settings/',
    headers: { cookie: admin },
    payload: {
      alpha_oauth: {
        client_id: 'alpha-client',
        client_secret_secret_ref: 'alpha-oauth',
        client_secret: 'alpha-secret',
      },
      oauth: { auto_onboard_users: true, allowed_domains: [] },
      features: { oauth2_enabled: true, self_service_onboarding: true },
    },
  });
  expect(configured.statusCode, configured.body).toBe(200);
  await t.app.listen({ port, host: '127.0.0.1' });
  configDir = await mkdtemp(path.join(os.tmpdir(), 'graphdb-admin-oauth-'));
});
afterAll(async () => {
  t?.app.server.closeAllConnections();
  await t?.close();
  await idp?.close();
});

/** The browser's part, from the CLI's start URL to the redirect the server sends it to (the loopback address). */
async function browserSignIn(startUrl: string): Promise<{ location: URL; setCookies: string[] }> {
  const start = await fetch(startUrl, { redirect: 'manual' });
  expect(start.status, await start.clone().text()).toBe(302);
  const state = start.headers
    .getSetCookie()
    .find((line) => line.startsWith('oauth_state='))!
    .split(';')[0]!;
  const callback = await signInAtProvider(start.headers.get('location')!, callbackUri, 'ada');
  const finished = await fetch(callback, { redirect: 'manual', headers: { cookie: state } });
  expect(finished.status, await finished.clone().text()).toBe(302);
  return { location: new URL(finished.headers.get('location')!), setCookies: finished.headers.getSetCookie() };
}

const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** A code from a sign-in begun by hand (not by the CLI), for the refusal tests. */
async function codeFor(verifier: string, loopbackPort = 9): Promise<string> {
  const start = new URL('/api/auth/oauth/alpha', origin);
  start.searchParams.set('cliRedirect', `http://127.0.0.1:${loopbackPort}/callback`);
  start.searchParams.set('codeChallenge', challengeOf(verifier));
  start.searchParams.set('cliState', 'state-of-this-test-run');
  const { location } = await browserSignIn(start.toString());
  expect(location.searchParams.get('state')).toBe('state-of-this-test-run');
  return location.searchParams.get('code')!;
}

const exchange = (code: string, codeVerifier: string) =>
  t.app.inject({ method: 'POST', url: '/api/auth/oauth/cli/token', payload: { code, codeVerifier } });

describe('graphdb-admin login --provider', () => {
  it('signs in through the browser and the loopback redirect, and stores the session like a local login', async () => {
    const child = spawn(
      process.execPath,
      [BIN, 'login', '--server', origin, '--provider', 'alpha', '--no-browser', '--timeout', '60s'],
      { env: { PATH: process.env.PATH ?? '', HOME: configDir, GRAPHDB_ADMIN_CONFIG_DIR: configDir } },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const startUrl = await new Promise<string>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const found = /(http:\/\/127\.0\.0\.1:\d+\/api\/auth\/oauth\/alpha\?\S+)/.exec(stderr);
        if (found) resolve(found[1]!);
      });
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const start = new URL(startUrl);
    expect(start.searchParams.get('cliRedirect')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(start.searchParams.get('codeChallenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const { location, setCookies } = await browserSignIn(startUrl);
    // The browser is sent to the CLI with a code, never a session.
    expect(`${location.origin}${location.pathname}`).toBe(start.searchParams.get('cliRedirect'));
    expect(setCookies.filter((line) => line.startsWith('token=') && !line.startsWith('token=;'))).toEqual([]);
    const page = await fetch(location);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Signed in');

    expect(await exited, stderr).toBe(0);
    expect(stdout).toContain('Signed in as ada@corp.example (viewer) through alpha');
    const who = await cliIn(configDir)(['whoami', '-o', 'json']);
    expect(who.code, who.stderr).toBe(0);
    expect(JSON.parse(who.stdout)).toMatchObject({ user: { email: 'ada@corp.example' }, server: origin });
  });

  it('gives up after --timeout when no browser comes back (exit code 6)', async () => {
    const run = await cliIn(configDir)([
      'login',
      '--server',
      origin,
      '--provider',
      'alpha',
      '--no-browser',
      '--timeout',
      '1s',
    ]);
    expect(run.code).toBe(6);
    expect(run.stderr).toContain('Open this URL in a browser to sign in:');
    expect(run.stderr).toContain('no sign-in arrived within 1s');
  });
});

describe('the server side of the loopback sign-in', () => {
  const verifier = randomBytes(32).toString('base64url');

  it('accepts only a loopback redirect, with a challenge and a state', async () => {
    const start = (query: Record<string, string>) =>
      t.app.inject({ method: 'GET', url: `/api/auth/oauth/alpha?${new URLSearchParams(query).toString()}` });
    const good = { codeChallenge: challengeOf(verifier), cliState: 'state-of-this-test-run' };
    expect((await start({ ...good, cliRedirect: 'http://127.0.0.1:5000/callback' })).statusCode).toBe(302);
    expect((await start({ ...good, cliRedirect: 'http://[::1]:5000/callback' })).statusCode).toBe(302);
    for (const cliRedirect of [
      'http://evil.example:5000/callback',
      'http://localhost:5000/callback',
      'https://127.0.0.1:5000/callback',
      'http://127.0.0.1/callback',
      'http://user@127.0.0.1:5000/callback',
      'http://127.0.0.1:5000/callback?next=https://evil.example',
      'javascript:alert(1)',
    ]) {
      const res = await start({ ...good, cliRedirect });
      expect(res.statusCode, cliRedirect).toBe(400);
      expect(res.json<{ message: string }>().message).toMatch(/cliRedirect must be a loopback URL/);
    }
    expect((await start({ cliRedirect: 'http://127.0.0.1:5000/callback' })).statusCode).toBe(400);
    expect(
      (await start({ ...good, codeChallenge: 'short', cliRedirect: 'http://127.0.0.1:5000/callback' })).statusCode,
    ).toBe(400);
    // returnTo keeps its own strict rule: an outside address still falls back to the console.
    const browser = await t.app.inject({
      method: 'GET',
      url: '/api/auth/oauth/alpha?returnTo=http://127.0.0.1:5000/x',
    });
    expect(browser.statusCode).toBe(302);
  });

  it('exchanges a code once, only with its verifier, and only within 60 seconds', async () => {
    const code = await codeFor(verifier);
    const wrong = await exchange(code, randomBytes(32).toString('base64url'));
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'Invalid or expired sign-in code',
      code: 'invalid_request',
    });
    // A failed attempt used the code up: not even the right verifier redeems it now.
    expect((await exchange(code, verifier)).statusCode).toBe(400);

    const second = await codeFor(verifier);
    const ok = await exchange(second, verifier);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({ message: 'Signed in', user: { email: 'ada@corp.example', role: 'viewer' } });
    const session = ok.cookies.find((cookie) => cookie.name === 'token')!;
    const validated = await t.app.inject({
      method: 'GET',
      url: '/api/auth/validate',
      headers: { cookie: `token=${session.value}` },
    });
    expect(validated.statusCode).toBe(200);
    expect((await exchange(second, verifier)).statusCode).toBe(400);

    const late = await codeFor(verifier);
    clock += 61_000;
    try {
      expect((await exchange(late, verifier)).statusCode).toBe(400);
    } finally {
      clock -= 61_000;
    }
    expect((await exchange('not-a-code', verifier)).statusCode).toBe(400);
  });

  it('audits the exchange as a sign-in', async () => {
    const admin = await login(t.app, ADMIN.email, ADMIN.password);
    const audit = await t.app.inject({
      method: 'GET',
      url: '/api/audit/?action=auth.login&limit=100',
      headers: { cookie: admin },
    });
    const entries = audit.json<{ logs: { userId: string; resourceName?: string; result: string }[] }>().logs;
    expect(entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ resourceName: 'oauth-cli', result: 'success' }),
        expect.objectContaining({ resourceName: 'oauth-cli', result: 'failure' }),
      ]),
    );
  });
});
