import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findFreePort } from '../../src/platform/net.js';
import { ADMIN, login, startAdminTestApp, type AdminTestApp } from '../support/admin.js';
import { startIdentityProvider, type IdentityProvider } from '../support/oidc/identity-provider.js';

// Debian's chromium (installed by scripts/ensure-system.sh); the flags keep it off the closed network.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let idp: IdentityProvider;
let t: AdminTestApp;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium not found at ${CHROMIUM}: run npm test as root (it installs Debian's chromium) or set CHROMIUM_PATH`,
    );
  const port = await findFreePort();
  origin = `http://127.0.0.1:${port}`;
  idp = await startIdentityProvider({
    clients: [
      {
        client_id: 'browser-client',
        client_secret: 'browser-secret',
        redirect_uris: [`${origin}/api/auth/oauth/alpha/callback`],
      },
    ],
  });
  idp.accounts.set('ada', {
    email: 'ada@corp.example',
    email_verified: true,
    hd: 'corp.example',
    name: 'Ada Lovelace',
  });
  // Started here rather than with useAdminApp: it must listen on the port its PUBLIC_ORIGIN names, chosen above.
  t = await startAdminTestApp('embedded', {
    env: {
      PUBLIC_ORIGIN: origin,
      ALPHA_ISSUER: idp.issuer,
      ALPHA_CLIENT_ID: 'browser-client',
      ALPHA_CLIENT_SECRET: 'browser-secret',
    },
  });
  const cookie = await login(t.app, ADMIN.email, ADMIN.password);
  await t.app.inject({
    method: 'PATCH',
    url: '/api/settings/',
    headers: { cookie },
    payload: { oauth: { auto_onboard_users: true } },
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await idp?.close();
});

it('signs in through provider alpha in a real browser, from /api/auth/oauth/alpha to a logged-in /api/auth/validate', async () => {
  const page = await browser.newPage();
  await page.goto(`${origin}/api/auth/oauth/alpha?returnTo=${encodeURIComponent('/api/auth/validate')}`);
  await page.fill('input[name="login"]', 'ada');
  await page.fill('input[name="password"]', 'any-password');
  await page.click('button[type="submit"]');
  await page.waitForSelector('button[type="submit"]');
  await page.click('button[type="submit"]');
  await page.waitForURL(`${origin}/api/auth/validate`);
  const body = JSON.parse((await page.textContent('body')) ?? '{}') as { user: Record<string, unknown> };
  expect(body.user).toMatchObject({
    email: 'ada@corp.example',
    name: 'Ada Lovelace',
    role: 'viewer',
    source: 'alpha',
  });
  const cookies = await page.context().cookies(origin);
  expect(cookies.find((c) => c.name === 'token')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
  expect(cookies.find((c) => c.name === 'oauth_state')).toBeUndefined();
});
