import { decodeJwt, SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_SECRETS } from '../support/app.js';
import { ADMIN, login, sessionCookie, startAdminTestApp, useAdminApp } from '../support/admin.js';
import { startGroupDoubles, type GroupDoubles } from '../support/oidc/group-doubles.js';
import { signInAtProvider, startIdentityProvider, type IdentityProvider } from '../support/oidc/identity-provider.js';

const ORIGIN = 'https://admin.corp.example';
const ALPHA_CALLBACK = `${ORIGIN}/api/auth/oauth/alpha/callback`;
const BETA_CALLBACK = `${ORIGIN}/api/auth/oauth/beta/callback`;
/** The callback without a provider segment: it completes the flow of OAUTH_PROVIDER's provider (alpha when unset). */
const GENERIC_CALLBACK = `${ORIGIN}/api/auth/oauth/callback`;
const TENANT = '11111111-2222-3333-4444-555555555555';

let doubles: GroupDoubles;
let alphaIdp: IdentityProvider;
let betaIdp: IdentityProvider;
let admin: string;

beforeAll(async () => {
  doubles = await startGroupDoubles();
  alphaIdp = await startIdentityProvider({
    clients: [
      { client_id: 'alpha-client', client_secret: 'alpha-secret', redirect_uris: [ALPHA_CALLBACK, GENERIC_CALLBACK] },
    ],
  });
  betaIdp = await startIdentityProvider({
    mountPath: `/${TENANT}/v2.0`,
    clients: [
      { client_id: 'beta-client', client_secret: 'beta-secret', redirect_uris: [BETA_CALLBACK, GENERIC_CALLBACK] },
    ],
    extraRoutes: doubles.microsoftTokenRoute(TENANT, 'beta-client', 'beta-secret', () => doubles.url),
  });
  alphaIdp.accounts.set('ada', { email: 'ada@corp.example', email_verified: true, hd: 'corp.example', name: 'Ada' });
  alphaIdp.accounts.set('unverified', { email: 'mallory@corp.example', email_verified: false, hd: 'corp.example' });
  alphaIdp.accounts.set('outsider', { email: 'eve@evil.example', email_verified: true, hd: 'evil.example' });
  betaIdp.accounts.set('bob', {
    tid: TENANT,
    oid: 'oid-bob',
    email: 'bob@corp.example',
    name: 'Bob',
    groups: ['admins@corp.example'],
  });
  betaIdp.accounts.set('carol', { tid: TENANT, oid: 'oid-carol', email: 'carol@corp.example', groups: [] });
  betaIdp.accounts.set('stranger', {
    tid: '99999999-0000-0000-0000-000000000000',
    oid: 'oid-x',
    email: 'x@corp.example',
  });
  betaIdp.accounts.set('dave', {
    tid: TENANT,
    oid: 'oid-dave',
    email: 'dave@corp.example',
    _claim_names: { groups: 'src1' },
  });
});
afterAll(async () => {
  await alphaIdp.close();
  await betaIdp.close();
  await doubles.close();
});
// Only the admin's session at start: the suite lists the users its sign-ins create.
const t = useAdminApp(() => ({
  adapter: 'kubernetes',
  env: {
    PUBLIC_ORIGIN: ORIGIN,
    ALPHA_ISSUER: alphaIdp.issuer,
    BETA_AUTHORITY: betaIdp.origin,
    ALPHA_DIRECTORY_URL: doubles.url,
    BETA_GRAPH_URL: doubles.url,
  },
  roles: ['admin'],
}));

beforeAll(async () => {
  admin = t.sessions.admin;
  const res = await patch({
    alpha_oauth: { client_id: 'alpha-client', client_secret_secret_ref: 'alpha-oauth', client_secret: 'alpha-secret' },
    beta_oauth: {
      client_id: 'beta-client',
      tenant_id: TENANT,
      client_secret_secret_ref: 'beta-oauth',
      client_secret: 'beta-secret',
    },
  });
  expect(res.statusCode, res.body).toBe(200);
});

function patch(payload: unknown) {
  return t.app.inject({
    method: 'PATCH',
    url: '/api/settings/',
    headers: { cookie: admin },
    payload: payload as never,
  });
}

beforeEach(async () => {
  await patch({
    oauth: { allowed_domains: [], auto_onboard_users: true, role_attribute_path: '', role_attribute_strict: false },
    features: { oauth2_enabled: true },
  });
});

/** Starts at our endpoint, signs in at the provider, and returns the callback request to replay against us. */
async function startFlow(provider: 'alpha' | 'beta', account: string, returnTo?: string) {
  const start = await t.app.inject({
    method: 'GET',
    url: `/api/auth/oauth/${provider}${returnTo === undefined ? '' : `?returnTo=${encodeURIComponent(returnTo)}`}`,
  });
  expect(start.statusCode, start.body).toBe(302);
  const stateCookie = start.cookies.find((c) => c.name === 'oauth_state')!;
  const callback = await signInAtProvider(
    start.headers.location!,
    provider === 'alpha' ? ALPHA_CALLBACK : BETA_CALLBACK,
    account,
  );
  return { start, stateCookie, callback, cookie: `oauth_state=${stateCookie.value}` };
}

function finish(provider: 'alpha' | 'beta', callback: URL, cookie?: string, accept?: string) {
  return t.app.inject({
    method: 'GET',
    url: `/api/auth/oauth/${provider}/callback${callback.search}`,
    headers: { ...(cookie ? { cookie } : {}), ...(accept ? { accept } : {}) },
  });
}

const noSession = (res: { cookies: { name: string; value: string }[] }) =>
  expect(res.cookies.filter((c) => c.name === 'token' && c.value)).toEqual([]);

describe('OAuth sign-in', () => {
  it('starts with state, nonce and PKCE S256 at the provider, and a signed state cookie scoped to the provider', async () => {
    const start = await t.app.inject({ method: 'GET', url: '/api/auth/oauth/alpha?returnTo=/clusters' });
    expect(start.statusCode).toBe(302);
    const location = new URL(start.headers.location!);
    expect(`${location.origin}${location.pathname}`).toBe(`${alphaIdp.issuer}/auth`);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      client_id: 'alpha-client',
      redirect_uri: ALPHA_CALLBACK,
      scope: 'openid email profile',
      response_type: 'code',
      code_challenge_method: 'S256',
    });
    for (const param of ['state', 'nonce', 'code_challenge'])
      expect(location.searchParams.get(param)).toMatch(/^[\w-]{20,}$/);
    expect(String(start.headers['set-cookie'])).toMatch(
      /^oauth_state=[\w-]+\.[\w-]+\.[\w-]+; Max-Age=600; Path=\/api\/auth\/oauth\/alpha; HttpOnly; Secure; SameSite=Lax$/,
    );
    const beta = new URL((await t.app.inject({ method: 'GET', url: '/api/auth/oauth/beta' })).headers.location!);
    expect(beta.searchParams.get('scope')).toBe('openid profile email offline_access User.Read');
    expect(beta.toString().startsWith(`${betaIdp.origin}/${TENANT}/v2.0/`)).toBe(true);
  });

  it('signs a new alpha user in through the real code flow, onboarding them as viewer, and returns to returnTo', async () => {
    const { callback, cookie } = await startFlow('alpha', 'ada', '/clusters?tab=ops');
    const res = await finish('alpha', callback, cookie);
    expect(res.statusCode, res.body).toBe(302);
    expect(res.headers.location).toBe('/clusters?tab=ops');
    const session = sessionCookie(res);
    expect(String(res.headers['set-cookie'])).toMatch(/oauth_state=; Max-Age=0; Path=\/api\/auth\/oauth\/alpha/);
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/validate', headers: { cookie: session } });
    expect(me.json<{ user: Record<string, unknown> }>().user).toMatchObject({
      email: 'ada@corp.example',
      name: 'Ada',
      role: 'viewer',
      source: 'alpha',
    });
  });

  it('maps roles from beta group claims, and syncs them at every sign-in', async () => {
    await patch({ oauth: { role_attribute_path: "contains(groups, 'admins@corp.example') && 'admin' || 'viewer'" } });
    const first = await startFlow('beta', 'bob');
    const res = await finish('beta', first.callback, first.cookie);
    expect(res.statusCode, res.body).toBe(302);
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/auth/validate',
      headers: { cookie: sessionCookie(res) },
    });
    expect(me.json<{ user: Record<string, unknown> }>().user).toMatchObject({
      email: 'bob@corp.example',
      role: 'admin',
      source: 'beta',
    });
    betaIdp.accounts.set('bob', { tid: TENANT, oid: 'oid-bob', email: 'bob@corp.example', name: 'Bob', groups: [] });
    const second = await startFlow('beta', 'bob');
    const again = await finish('beta', second.callback, second.cookie);
    const after = await t.app.inject({
      method: 'GET',
      url: '/api/auth/validate',
      headers: { cookie: sessionCookie(again) },
    });
    expect(after.json<{ user: { role: string } }>().user.role).toBe('viewer');
  });

  it('refuses an unknown user when auto-onboarding is off, and a user without a role in strict mode', async () => {
    await patch({ oauth: { auto_onboard_users: false } });
    const flow = await startFlow('beta', 'carol');
    const res = await finish('beta', flow.callback, flow.cookie);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      message: 'User carol@corp.example is not registered',
      code: 'forbidden',
    });
    noSession(res);
    await patch({
      oauth: { auto_onboard_users: true, role_attribute_strict: true, role_attribute_path: 'department' },
    });
    const strict = await startFlow('beta', 'carol');
    const refused = await finish('beta', strict.callback, strict.cookie);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      message: 'No valid role found for carol@corp.example',
      code: 'forbidden',
    });
    noSession(refused);
  });

  it('answers 400 "Invalid state parameter" for a missing, tampered, foreign or replayed state, before any token request', async () => {
    const flow = await startFlow('alpha', 'ada');
    const missing = await finish('alpha', flow.callback);
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'Invalid state parameter',
      code: 'invalid_request',
    });
    const [header, payload, signature] = flow.stateCookie.value.split('.');
    const tampered = await finish('alpha', flow.callback, `oauth_state=${header}.${payload}x.${signature}`);
    expect(tampered.statusCode).toBe(400);
    const betaStart = await t.app.inject({ method: 'GET', url: '/api/auth/oauth/beta' });
    const foreign = await finish(
      'alpha',
      flow.callback,
      `oauth_state=${betaStart.cookies.find((c) => c.name === 'oauth_state')!.value}`,
    );
    expect(foreign.statusCode).toBe(400);
    const otherState = new URL(flow.callback);
    otherState.searchParams.set('state', 'something-else');
    expect((await finish('alpha', otherState, flow.cookie)).statusCode).toBe(400);
    const ok = await finish('alpha', flow.callback, flow.cookie);
    expect(ok.statusCode).toBe(302);
    // The code was spent; a replay with the same cookie fails at the provider, never signing in twice.
    const replay = await finish('alpha', flow.callback, flow.cookie);
    expect(replay.statusCode).toBe(401);
    noSession(replay);
  });

  it('answers a provider error with 401, and redirects a browser to /login?error=<code>', async () => {
    const start = await t.app.inject({ method: 'GET', url: '/api/auth/oauth/alpha' });
    const state = new URL(start.headers.location!).searchParams.get('state')!;
    const cookie = `oauth_state=${start.cookies.find((c) => c.name === 'oauth_state')!.value}`;
    const denied = await t.app.inject({
      method: 'GET',
      url: `/api/auth/oauth/alpha/callback?error=access_denied&state=${state}`,
      headers: { cookie },
    });
    expect(denied.statusCode).toBe(401);
    expect(denied.json<{ message: string }>().message).toBe('Sign-in was not completed: access_denied');
    const browser = await t.app.inject({
      method: 'GET',
      url: '/api/auth/oauth/alpha/callback?code=x&state=y',
      headers: { accept: 'text/html' },
    });
    expect(browser.statusCode).toBe(302);
    expect(browser.headers.location).toBe('/login?error=invalid_state');
  });

  it('enforces email_verified, hd and allowed domains for alpha, and the tenant for beta', async () => {
    const unverified = await startFlow('alpha', 'unverified');
    const a = await finish('alpha', unverified.callback, unverified.cookie);
    expect(a.statusCode).toBe(403);
    expect(a.json<{ message: string }>().message).toBe(
      'Email mallory@corp.example is not verified by the identity provider',
    );
    await patch({ oauth: { allowed_domains: ['corp.example'] } });
    const outsider = await startFlow('alpha', 'outsider');
    const b = await finish('alpha', outsider.callback, outsider.cookie);
    expect(b.statusCode).toBe(403);
    expect(b.json<{ message: string }>().message).toBe('Email domain evil.example is not allowed');
    const stranger = await startFlow('beta', 'stranger');
    const c = await finish('beta', stranger.callback, stranger.cookie);
    expect(c.statusCode).toBe(403);
    expect(c.json<{ message: string }>().message).toBe('Tenant 99999999-0000-0000-0000-000000000000 is not allowed');
    for (const res of [a, b, c]) noSession(res);
  });

  it('reads the domain of an address with exactly one @ (eve@corp.example@evil.example passed allowed_domains)', async () => {
    alphaIdp.accounts.set('two-ats', {
      email: 'eve@corp.example@evil.example',
      email_verified: true,
      hd: 'corp.example',
    });
    betaIdp.accounts.set('two-ats', { tid: TENANT, oid: 'oid-two-ats', email: 'eve@corp.example@evil.example' });
    betaIdp.accounts.set('idn', { tid: TENANT, oid: 'oid-idn', email: 'jörg@BÜCHER.example' });
    await patch({ oauth: { allowed_domains: ['corp.example', 'xn--bcher-kva.example'] } });
    for (const provider of ['alpha', 'beta'] as const) {
      const flow = await startFlow(provider, 'two-ats');
      const res = await finish(provider, flow.callback, flow.cookie);
      expect(res.statusCode, `${provider}: ${res.body}`).toBe(403);
      expect(res.json<{ message: string }>().message).toBe(
        'Email eve@corp.example@evil.example has no single domain to check against allowed_domains',
      );
      noSession(res);
    }
    const idn = await startFlow('beta', 'idn');
    expect((await finish('beta', idn.callback, idn.cookie)).statusCode).toBe(302);
  });

  it('sends returnTo values that leave the origin back to /', async () => {
    for (const returnTo of ['//evil.example/x', '/\\evil.example', 'https://evil.example', 'javascript:alert(1)']) {
      const flow = await startFlow('alpha', 'ada', returnTo);
      const res = await finish('alpha', flow.callback, flow.cookie);
      expect(res.headers.location, returnTo).toBe('/');
    }
  });

  it('answers 400 for an unknown provider and 404 when OAuth is off', async () => {
    const unknown = await t.app.inject({ method: 'GET', url: '/api/auth/oauth/gamma' });
    expect(unknown.statusCode).toBe(400);
    await patch({ features: { oauth2_enabled: false } });
    const off = await t.app.inject({ method: 'GET', url: '/api/auth/oauth/alpha' });
    expect(off.statusCode).toBe(404);
    expect(off.json<{ message: string }>().message).toBe('OAuth provider alpha is not configured');
  });

  it('reads the client secret from its Secret at request time, so a rotation applies without a restart', async () => {
    await patch({ alpha_oauth: { client_secret: 'wrong-secret' } });
    const wrong = await startFlow('alpha', 'ada');
    expect((await finish('alpha', wrong.callback, wrong.cookie)).statusCode).toBe(401);
    await patch({ alpha_oauth: { client_secret: 'alpha-secret' } });
    const right = await startFlow('alpha', 'ada');
    expect((await finish('alpha', right.callback, right.cookie)).statusCode).toBe(302);
  });
});

describe('the callback without a provider segment', () => {
  it('completes an alpha flow (OAUTH_PROVIDER unset) registered with /api/auth/oauth/callback, with the same checks', async () => {
    expect((await patch({ alpha_oauth: { redirect_uri: GENERIC_CALLBACK } })).statusCode).toBe(200);
    try {
      const start = await t.app.inject({ method: 'GET', url: '/api/auth/oauth/alpha?returnTo=/settings' });
      expect(new URL(start.headers.location!).searchParams.get('redirect_uri')).toBe(GENERIC_CALLBACK);
      // The browser must send the state cookie to the callback the provider redirects to.
      expect(String(start.headers['set-cookie'])).toMatch(/; Path=\/api\/auth\/oauth\/callback; /);
      const cookie = `oauth_state=${start.cookies.find((c) => c.name === 'oauth_state')!.value}`;
      const callback = await signInAtProvider(start.headers.location!, GENERIC_CALLBACK, 'ada');
      const generic = (headers: Record<string, string> = {}, search = callback.search) =>
        t.app.inject({ method: 'GET', url: `/api/auth/oauth/callback${search}`, headers });
      const missing = await generic();
      expect(missing.statusCode).toBe(400);
      expect(missing.json()).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        message: 'Invalid state parameter',
        code: 'invalid_request',
      });
      const betaStart = await t.app.inject({ method: 'GET', url: '/api/auth/oauth/beta' });
      const foreign = await generic({
        cookie: `oauth_state=${betaStart.cookies.find((c) => c.name === 'oauth_state')!.value}`,
      });
      expect(foreign.statusCode).toBe(400);
      const browser = await generic({ accept: 'text/html' });
      expect(browser.headers.location).toBe('/login?error=invalid_state');
      const done = await generic({ cookie });
      expect(done.statusCode, done.body).toBe(302);
      expect(done.headers.location).toBe('/settings');
      expect(String(done.headers['set-cookie'])).toMatch(/oauth_state=; Max-Age=0; Path=\/api\/auth\/oauth\/callback/);
      const me = await t.app.inject({
        method: 'GET',
        url: '/api/auth/validate',
        headers: { cookie: sessionCookie(done) },
      });
      expect(me.json()).toMatchObject({ valid: true, user: { email: 'ada@corp.example', source: 'alpha' } });
      // The code was spent: a replay fails at the provider, as on the provider's own callback.
      expect((await generic({ cookie })).statusCode).toBe(401);
    } finally {
      await patch({ alpha_oauth: { redirect_uri: '' } });
    }
  });

  it("completes OAUTH_PROVIDER=beta's flow from the BETA_* variables, onboarding with features.self_service_onboarding", async () => {
    const envBeta = await startAdminTestApp('embedded', {
      env: {
        PUBLIC_ORIGIN: ORIGIN,
        BETA_AUTHORITY: betaIdp.origin,
        OAUTH_PROVIDER: 'beta',
        BETA_CLIENT_ID: 'beta-client',
        BETA_CLIENT_SECRET: 'beta-secret',
        BETA_TENANT_ID: TENANT,
        BETA_REDIRECT_URI: GENERIC_CALLBACK,
      },
    });
    try {
      const cookie = await login(envBeta.app, ADMIN.email, ADMIN.password);
      const flow = async () => {
        const start = await envBeta.app.inject({ method: 'GET', url: '/api/auth/oauth/beta' });
        expect(start.statusCode, start.body).toBe(302);
        const callback = await signInAtProvider(start.headers.location!, GENERIC_CALLBACK, 'carol');
        return envBeta.app.inject({
          method: 'GET',
          url: `/api/auth/oauth/callback${callback.search}`,
          headers: { cookie: `oauth_state=${start.cookies.find((c) => c.name === 'oauth_state')!.value}` },
        });
      };
      const unknown = await flow();
      expect(unknown.statusCode).toBe(403);
      expect(unknown.json<{ message: string }>().message).toBe('User carol@corp.example is not registered');
      const on = await envBeta.app.inject({
        method: 'PATCH',
        url: '/api/settings/',
        headers: { cookie },
        payload: { features: { self_service_onboarding: true } },
      });
      expect(on.json<{ oauth: { auto_onboard_users: boolean } }>().oauth.auto_onboard_users).toBe(true);
      const done = await flow();
      expect(done.statusCode, done.body).toBe(302);
      const me = await envBeta.app.inject({
        method: 'GET',
        url: '/api/users/me/',
        headers: { cookie: sessionCookie(done) },
      });
      expect(me.json()).toMatchObject({ email: 'carol@corp.example', source: 'beta', role: 'viewer' });
    } finally {
      await envBeta.close();
    }
  });
});

describe('identity linking', () => {
  const validate = async (res: Awaited<ReturnType<typeof finish>>) =>
    (await t.app.inject({ method: 'GET', url: '/api/auth/validate', headers: { cookie: sessionCookie(res) } })).json<{
      user: { email: string; createdAt: string; role: string };
    }>().user;
  const refusedAsUnlinkable = (res: Awaited<ReturnType<typeof finish>>, email: string, provider: string) => {
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json()).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      message: `Email ${email} belongs to an existing account that cannot sign in with ${provider}`,
      code: 'forbidden',
    });
    noSession(res);
  };

  it('never links a verified e-mail into a local account with a password, the local admin included', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/api/users',
      headers: { cookie: admin },
      payload: { email: 'linked@corp.example', name: 'Linked', role: 'operator', password: 'linked-password' },
    });
    alphaIdp.accounts.set('linked', { email: 'linked@corp.example', email_verified: true, hd: 'corp.example' });
    const flow = await startFlow('alpha', 'linked');
    refusedAsUnlinkable(await finish('alpha', flow.callback, flow.cookie), 'linked@corp.example', 'alpha');
    await login(t.app, 'linked@corp.example', 'linked-password');

    // The review's case: a provider account with the local admin's address became the admin.
    alphaIdp.accounts.set('fake-root', { email: ADMIN.email, email_verified: true, hd: 'corp.example' });
    betaIdp.accounts.set('fake-root', { tid: TENANT, oid: 'oid-fake-root', email: ADMIN.email, xms_edov: true });
    for (const provider of ['alpha', 'beta'] as const) {
      const root = await startFlow(provider, 'fake-root');
      const res = await finish(provider, root.callback, root.cookie);
      refusedAsUnlinkable(res, ADMIN.email, provider);
      // A browser gets the refusal as /login?error=<code>, like any other refused sign-in.
      const browser = await startFlow(provider, 'fake-root');
      const redirected = await finish(provider, browser.callback, browser.cookie, 'text/html');
      expect(redirected.headers.location).toBe('/login?error=account_not_linkable');
      noSession(redirected);
    }
    const users = (await t.app.inject({ method: 'GET', url: '/api/users', headers: { cookie: admin } })).json<{
      users: { email: string; source: string }[];
    }>().users;
    expect(users.find((user) => user.email === ADMIN.email)).toMatchObject({ source: 'local' });
  });

  it('links an invitation (created without a password) for the first provider that signs in with a verified e-mail, and no other', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/users',
      headers: { cookie: admin },
      payload: { email: 'invited@corp.example', name: 'Invited', role: 'operator' },
    });
    expect(created.statusCode, created.body).toBe(201);
    // Users have no id in the API: the same account is the same e-mail with the same creation time.
    const invitation = created.json<{ email: string; createdAt: string }>();

    betaIdp.accounts.set('invited-unverified', { tid: TENANT, oid: 'oid-invited', email: 'invited@corp.example' });
    const unverified = await startFlow('beta', 'invited-unverified');
    const refused = await finish('beta', unverified.callback, unverified.cookie);
    expect(refused.statusCode).toBe(403);
    expect(refused.json<{ message: string }>().message).toBe(
      'Email invited@corp.example belongs to an existing account and is not verified by the identity provider',
    );

    alphaIdp.accounts.set('invited', { email: 'invited@corp.example', email_verified: true, hd: 'corp.example' });
    const flow = await startFlow('alpha', 'invited');
    expect(await validate(await finish('alpha', flow.callback, flow.cookie))).toMatchObject({
      ...invitation,
      role: 'operator',
    });
    const again = await startFlow('alpha', 'invited');
    expect((await validate(await finish('alpha', again.callback, again.cookie))).createdAt).toBe(invitation.createdAt);

    betaIdp.accounts.set('invited', { tid: TENANT, oid: 'oid-invited', email: 'invited@corp.example', xms_edov: true });
    const other = await startFlow('beta', 'invited');
    refusedAsUnlinkable(await finish('beta', other.callback, other.cookie), 'invited@corp.example', 'beta');
  });

  it('signs an onboarded user in again by its subject, and refuses another subject of the same provider with its e-mail', async () => {
    alphaIdp.accounts.set('onboarded', { email: 'onboarded@corp.example', email_verified: true, hd: 'corp.example' });
    const first = await startFlow('alpha', 'onboarded');
    const user = await validate(await finish('alpha', first.callback, first.cookie));
    const second = await startFlow('alpha', 'onboarded');
    expect((await validate(await finish('alpha', second.callback, second.cookie))).createdAt).toBe(user.createdAt);
    alphaIdp.accounts.set('onboarded-recycled', {
      email: 'onboarded@corp.example',
      email_verified: true,
      hd: 'corp.example',
    });
    const recycled = await startFlow('alpha', 'onboarded-recycled');
    refusedAsUnlinkable(await finish('alpha', recycled.callback, recycled.cookie), 'onboarded@corp.example', 'alpha');
  });
});

describe('ID token validation', () => {
  afterAll(() => {
    alphaIdp.tamper = undefined;
  });

  it.each([
    ['a wrong nonce', { claims: (c: Record<string, unknown>) => ({ ...c, nonce: 'not-the-nonce' }) }],
    ['a wrong audience', { claims: (c: Record<string, unknown>) => ({ ...c, aud: 'another-client' }) }],
    ['a wrong issuer', { claims: (c: Record<string, unknown>) => ({ ...c, iss: 'https://accounts.google.com' }) }],
    [
      'an expired token',
      { claims: (c: Record<string, unknown>) => ({ ...c, exp: Math.floor(Date.now() / 1000) - 600 }) },
    ],
    ['a key the provider never published', { foreignKey: true }],
  ])('refuses an ID token with %s: 401 and no session', async (_what, tamper) => {
    alphaIdp.tamper = tamper;
    const flow = await startFlow('alpha', 'ada');
    const res = await finish('alpha', flow.callback, flow.cookie);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      message: 'Sign-in failed: the identity provider response could not be verified',
      code: 'unauthenticated',
    });
    noSession(res);
  });

  it('accepts a re-signed token when nothing was changed (the tampering itself is sound)', async () => {
    alphaIdp.tamper = { claims: (c) => c };
    const flow = await startFlow('alpha', 'ada');
    expect((await finish('alpha', flow.callback, flow.cookie)).statusCode).toBe(302);
  });
});

describe('environment-only provider configuration', () => {
  it('works from ALPHA_* variables and gives way to settings once saved', async () => {
    const envOnly = await startAdminTestApp('embedded', {
      env: {
        PUBLIC_ORIGIN: ORIGIN,
        ALPHA_ISSUER: alphaIdp.issuer,
        ALPHA_CLIENT_ID: 'alpha-client',
        ALPHA_CLIENT_SECRET: 'alpha-secret',
        ALPHA_REDIRECT_URI: ALPHA_CALLBACK,
      },
    });
    try {
      const cookie = await login(envOnly.app, ADMIN.email, ADMIN.password);
      await envOnly.app.inject({
        method: 'PATCH',
        url: '/api/settings/',
        headers: { cookie },
        payload: { oauth: { auto_onboard_users: true } },
      });
      const start = await envOnly.app.inject({ method: 'GET', url: '/api/auth/oauth/alpha' });
      expect(new URL(start.headers.location!).searchParams.get('client_id')).toBe('alpha-client');
      const callback = await signInAtProvider(start.headers.location!, ALPHA_CALLBACK, 'ada');
      const done = await envOnly.app.inject({
        method: 'GET',
        url: `/api/auth/oauth/alpha/callback${callback.search}`,
        headers: { cookie: `oauth_state=${start.cookies.find((c) => c.name === 'oauth_state')!.value}` },
      });
      expect(done.statusCode, done.body).toBe(302);
      await envOnly.app.inject({
        method: 'PATCH',
        url: '/api/settings/',
        headers: { cookie },
        payload: {
          alpha_oauth: { client_id: 'from-settings', client_secret_secret_ref: 'alpha-oauth', client_secret: 'x' },
        },
      });
      const overridden = await envOnly.app.inject({ method: 'GET', url: '/api/auth/oauth/alpha' });
      expect(new URL(overridden.headers.location!).searchParams.get('client_id')).toBe('from-settings');
      const config = await envOnly.app.inject({ method: 'GET', url: '/api/auth/config' });
      expect(config.json<{ methods: { type: string; clientId?: string }[] }>().methods).toContainEqual({
        type: 'alpha',
        enabled: true,
        clientId: 'from-settings',
      });
    } finally {
      await envOnly.close();
    }
  });
});

describe('group-based roles', () => {
  const roleAfterSignIn = async (provider: 'alpha' | 'beta', account: string) => {
    const flow = await startFlow(provider, account);
    const res = await finish(provider, flow.callback, flow.cookie);
    expect(res.statusCode, res.body).toBe(302);
    return (
      await t.app.inject({ method: 'GET', url: '/api/auth/validate', headers: { cookie: sessionCookie(res) } })
    ).json<{ user: { role: string } }>().user.role;
  };

  it('gives admin to an alpha user in the admins group, found through the delegated Directory API (all pages)', async () => {
    doubles.alphaGroups.set('ada@corp.example', ['staff@corp.example', 'ops@corp.example', 'admins@corp.example']);
    await patch({
      oauth: { role_attribute_path: "contains(groups, 'admins@corp.example') && 'admin' || 'viewer'" },
      alpha_workspace: {
        domain: 'corp.example',
        admin_email: 'directory-admin@corp.example',
        private_key_secret_ref: 'workspace-key',
        private_key: doubles.serviceAccountJson,
      },
    });
    const tokensBefore = doubles.tokenRequests.alpha;
    const role = await roleAfterSignIn('alpha', 'ada');
    expect(
      role,
      t.logs.lines
        .filter((l) => String(l.msg).includes('group'))
        .map((l) => JSON.stringify(l))
        .join('\n'),
    ).toBe('admin');
    expect(doubles.tokenRequests.alpha).toBe(tokensBefore + 1);
    // The access token (and the user's groups) are cached: a second sign-in asks nothing again.
    expect(await roleAfterSignIn('alpha', 'ada')).toBe('admin');
    expect(doubles.tokenRequests.alpha).toBe(tokensBefore + 1);
  });

  it('decides the role by the group mappings when role_attribute_path yields none, highest priority first', async () => {
    doubles.alphaGroups.set('ada@corp.example', ['staff@corp.example', 'ops@corp.example', 'admins@corp.example']);
    await patch({
      alpha_workspace: {
        domain: 'corp.example',
        admin_email: 'directory-admin@corp.example',
        private_key_secret_ref: 'workspace-key',
        private_key: doubles.serviceAccountJson,
      },
    });
    const rbac = (method: 'POST' | 'PUT', url: string, payload: unknown) =>
      t.app.inject({ method, url, headers: { cookie: admin }, payload: payload as never });
    for (const mapping of [
      { groupEmail: 'Staff@corp.example', roleName: 'viewer', priority: 1 },
      { groupEmail: 'OPS@corp.example', roleName: 'operator', priority: 5 },
      { groupEmail: 'others@corp.example', roleName: 'admin', priority: 9 },
    ])
      expect((await rbac('POST', '/api/rbac/group-mappings', mapping)).statusCode).toBe(201);
    try {
      // No role path: the groups are looked up for the mappings, and ops (priority 5) beats staff (1).
      expect(await roleAfterSignIn('alpha', 'ada')).toBe('operator');
      // A role path that yields a role comes first.
      await patch({ oauth: { role_attribute_path: "'viewer'" } });
      expect(await roleAfterSignIn('alpha', 'ada')).toBe('viewer');
      // One that yields none leaves it to the mappings again.
      await patch({ oauth: { role_attribute_path: "'superuser'", role_attribute_strict: true } });
      expect(await roleAfterSignIn('alpha', 'ada')).toBe('operator');
    } finally {
      expect((await rbac('PUT', '/api/rbac/', { config: { roles: [] } })).statusCode).toBe(200);
    }
  });

  it('looks beta groups up in Graph when the ID token has a groups overage', async () => {
    doubles.betaGroups.set('oid-dave', ['group-a', 'group-b', 'admins-group-id']);
    await patch({ oauth: { role_attribute_path: "contains(groups, 'admins-group-id') && 'admin' || 'viewer'" } });
    expect(await roleAfterSignIn('beta', 'dave')).toBe('admin');
    expect(doubles.tokenRequests.beta).toBe(1);
  });

  it('signs in without groups when the lookup fails, and logs the likely cause', async () => {
    await patch({
      oauth: { role_attribute_path: "contains(groups, 'admins@corp.example') && 'admin' || 'viewer'" },
      alpha_workspace: {
        private_key_secret_ref: 'broken-key',
        private_key: '-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----',
        service_account_email: 'x@project.iam.gserviceaccount.com',
      },
    });
    alphaIdp.accounts.set('newbie', { email: 'newbie@corp.example', email_verified: true, hd: 'corp.example' });
    doubles.alphaGroups.set('newbie@corp.example', ['admins@corp.example']);
    expect(await roleAfterSignIn('alpha', 'newbie')).toBe('viewer');
    expect(t.logs.text).toContain('group lookup failed for newbie@corp.example');
  });
});

describe('state expiry and role results', () => {
  it('refuses an expired state cookie with 400', async () => {
    const flow = await startFlow('alpha', 'ada');
    const claims = decodeJwt(flow.stateCookie.value);
    const expired = await new SignJWT({ ...claims, exp: Math.floor(Date.now() / 1000) - 1 })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(TEST_SECRETS.SESSION_SECRET));
    const res = await finish('alpha', flow.callback, `oauth_state=${expired}`);
    expect(res.statusCode).toBe(400);
    expect(res.json<{ message: string }>().message).toBe('Invalid state parameter');
    noSession(res);
  });

  it('counts a role path that yields no role name as no role', async () => {
    for (const path of ['groups', 'email_verified', "'superuser'", 'length(email)']) {
      await patch({ oauth: { role_attribute_path: path, role_attribute_strict: true } });
      const flow = await startFlow('alpha', 'ada');
      const res = await finish('alpha', flow.callback, flow.cookie);
      expect(res.statusCode, path).toBe(403);
      expect(res.json<{ message: string }>().message).toBe('No valid role found for ada@corp.example');
      noSession(res);
    }
    await patch({ oauth: { role_attribute_path: "'OPERATOR'", role_attribute_strict: true } });
    const flow = await startFlow('alpha', 'ada');
    const ok = await finish('alpha', flow.callback, flow.cookie);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/auth/validate', headers: { cookie: sessionCookie(ok) } })).json<{
        user: { role: string };
      }>().user.role,
    ).toBe('operator');
  });
});

describe('logs', () => {
  it('never logs the code, the state or any token', () => {
    const text = t.logs.text;
    expect(text).not.toMatch(/[?&](code|state)=/);
    expect(text).not.toContain('alpha-secret');
    expect(text).not.toContain('beta-secret');
    expect(text).not.toMatch(/eyJ[\w-]+\.eyJ[\w-]+\./);
  });
});
