// Secrets stay secret through a full run of the end-to-end flows at LOG_LEVEL=trace: admin sign-in and users,
// settings with write-only values (one write failing half-way), OAuth sign-in through the real oidc-provider with a
// group lookup, and personal access tokens with database users. No password, client secret, private key, session
// JWT, PAT, token hash, authorization code or state reaches a log line (not even base64-encoded), and no response
// carries a write-only value or a hash.
import { createHash, generateKeyPairSync } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRETS } from '../support/app.js';
import { ADMIN, useAdminApp } from '../support/admin.js';
import { adminClient, bearer, createDbUser, credentials } from '../support/browser.js';
import { SERVICE_ACCOUNT, startGroupDoubles, type GroupDoubles } from '../support/oidc/group-doubles.js';
import { signInAtProvider, startIdentityProvider, type IdentityProvider } from '../support/oidc/identity-provider.js';

const ORIGIN = 'https://admin.corp.example';
const CALLBACK = `${ORIGIN}/api/auth/oauth/alpha/callback`;
const WRITE_ONLY_FIELDS = ['client_secret"', 'private_key"', 'passwordHash', 'password_enc', 'token_hash', 'scrypt$'];

let idp: IdentityProvider;
let doubles: GroupDoubles;
/** Every value that must never be logged; filled as the flows produce them. */
const secrets = new Map<string, string>();
/** Every response body of the run, with where it came from. */
const bodies: { what: string; body: string }[] = [];

function keep(name: string, value: string | undefined): string {
  expect(value, name).toBeTruthy();
  secrets.set(name, value!);
  return value!;
}

async function send(what: string, request: InjectOptions): Promise<LightMyRequestResponse> {
  const res = await t.app.inject(request);
  // A sign-in answers the session JWT it sets as the cookie, by design (the FalkorDB Enterprise admin API's `token`): only there.
  const jwt = res.cookies.find((c) => c.name === 'token' && c.value)?.value;
  if (request.url === '/api/auth/login' && jwt) {
    expect(res.json<{ token: string }>().token).toBe(jwt);
    bodies.push({ what: `${what} (carries its session JWT by design)`, body: res.body.replace(jwt, '<session jwt>') });
  } else bodies.push({ what, body: res.body });
  return res;
}

function cookieOf(res: LightMyRequestResponse, name: string, label: string): string {
  return keep(label, res.cookies.find((c) => c.name === name && c.value)?.value);
}

beforeAll(async () => {
  doubles = await startGroupDoubles();
  idp = await startIdentityProvider({
    clients: [{ client_id: 'alpha-client', client_secret: 'alpha-client-secret-5f3a9c', redirect_uris: [CALLBACK] }],
  });
  idp.accounts.set('ada', { email: 'ada@corp.example', email_verified: true, hd: 'corp.example', name: 'Ada' });
  doubles.alphaGroups.set('ada@corp.example', ['admins@corp.example']);
  for (const [name, value] of Object.entries(TEST_SECRETS)) keep(name, value);
  keep('first admin password', ADMIN.password);
});
afterAll(async () => {
  await idp.close();
  await doubles.close();
});
// No session at start: the suite signs in through the flows it logs.
const t = useAdminApp(() => ({
  adapter: 'kubernetes',
  // KubeBlocks through the double, for the backup repositories' credentials.
  kubeBlocks: true,
  env: { LOG_LEVEL: 'trace', PUBLIC_ORIGIN: ORIGIN, ALPHA_ISSUER: idp.issuer, ALPHA_DIRECTORY_URL: doubles.url },
  roles: [],
}));

let admin: string;

describe('a full run of the flows, logged at trace', () => {
  it('signs admins in and manages users', async () => {
    const wrong = await send('login with a wrong password', {
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: ADMIN.email, password: keep('wrong password', 'not-the-password-81d2') },
    });
    expect(wrong.statusCode).toBe(401);
    const login = await send('login', { method: 'POST', url: '/api/auth/login', payload: ADMIN });
    admin = `token=${cookieOf(login, 'token', 'admin session JWT')}`;
    const created = await send('user creation', {
      method: 'POST',
      url: '/api/users',
      headers: { cookie: admin },
      payload: {
        email: 'ops@corp.example',
        name: 'Ops',
        role: 'operator',
        password: keep('new user password', 'ops-password-77c1e'),
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const opsLogin = await send('login of the new user', {
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'ops@corp.example', password: secrets.get('new user password') },
    });
    const ops = `token=${cookieOf(opsLogin, 'token', 'operator session JWT')}`;
    expect(
      (await send('validate', { method: 'GET', url: '/api/auth/validate', headers: { cookie: ops } })).statusCode,
    ).toBe(200);
    expect((await send('user list', { method: 'GET', url: '/api/users', headers: { cookie: admin } })).statusCode).toBe(
      200,
    );
    await send('logout', { method: 'POST', url: '/api/auth/logout', headers: { cookie: ops } });
  });

  it('stores write-only settings in Secrets and never returns them, even when a write fails half-way', async () => {
    const pem = keep(
      'private key',
      generateKeyPairSync('rsa', { modulusLength: 2048 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString(),
    );
    keep(
      'service-account private key',
      (JSON.parse(doubles.serviceAccountJson) as { private_key: string }).private_key,
    );
    const patch = (what: string, payload: unknown) =>
      send(what, { method: 'PATCH', url: '/api/settings/', headers: { cookie: admin }, payload: payload as never });
    const saved = await patch('settings with write-only values', {
      features: { oauth2_enabled: true },
      oauth: {
        auto_onboard_users: true,
        role_attribute_path: "contains(groups, 'admins@corp.example') && 'admin' || 'viewer'",
      },
      alpha_oauth: {
        client_id: 'alpha-client',
        client_secret_secret_ref: 'alpha-oauth',
        client_secret: keep('alpha client secret', 'alpha-client-secret-5f3a9c'),
      },
      beta_oauth: {
        client_id: 'beta-client',
        tenant_id: 'corp.example',
        client_secret_secret_ref: 'beta-oauth',
        client_secret: keep('beta client secret', 'beta-client-secret-0e41d7'),
      },
      alpha_workspace: {
        domain: 'corp.example',
        admin_email: 'directory-admin@corp.example',
        service_account_email: SERVICE_ACCOUNT,
        private_key_secret_ref: 'workspace-key',
        private_key: doubles.serviceAccountJson,
      },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(await t.backdoor.secret('alpha-oauth')).toEqual({ client_secret: secrets.get('alpha client secret') });
    expect((await t.backdoor.secret('workspace-key'))?.private_key).toBe(doubles.serviceAccountJson);

    t.kube!.failRequests({ method: 'PUT', pathIncludes: '/configmaps/' }, 503, 'ServiceUnavailable', 'etcd is down');
    const failed = await patch('settings write failing after its Secret', {
      alpha_workspace: { private_key_secret_ref: 'second-key', private_key: pem },
    });
    expect(failed.statusCode).toBe(503);
    t.kube!.clearFaults();
    expect(
      (
        await patch('settings with a PEM key', {
          alpha_workspace: {
            private_key_secret_ref: 'workspace-pem',
            private_key: pem,
            service_account_email: SERVICE_ACCOUNT,
          },
        })
      ).statusCode,
    ).toBe(200);
    // Put the service-account JSON back for the group lookup of the OAuth flow.
    expect(
      (
        await patch('settings with the JSON key again', {
          alpha_workspace: { private_key_secret_ref: 'workspace-key' },
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (await send('settings read', { method: 'GET', url: '/api/settings/', headers: { cookie: admin } })).statusCode,
    ).toBe(200);
  });

  it('signs a user in through the OAuth provider with a group lookup, then refuses a replay', async () => {
    const start = await send('oauth start', { method: 'GET', url: '/api/auth/oauth/alpha?returnTo=/clusters' });
    expect(start.statusCode, start.body).toBe(302);
    const authorize = new URL(start.headers.location!);
    keep('oauth state', authorize.searchParams.get('state') ?? undefined);
    keep('oauth nonce', authorize.searchParams.get('nonce') ?? undefined);
    const stateCookie = cookieOf(start, 'oauth_state', 'state cookie (holds the PKCE verifier)');
    const callback = await signInAtProvider(start.headers.location!, CALLBACK, 'ada');
    keep('authorization code', callback.searchParams.get('code') ?? undefined);
    const done = await send('oauth callback', {
      method: 'GET',
      url: `/api/auth/oauth/alpha/callback${callback.search}`,
      headers: { cookie: `oauth_state=${stateCookie}` },
    });
    expect(done.statusCode, done.body).toBe(302);
    const session = cookieOf(done, 'token', 'OAuth session JWT');
    const me = await send('validate after OAuth', {
      method: 'GET',
      url: '/api/auth/validate',
      headers: { cookie: `token=${session}` },
    });
    expect(me.json<{ user: { role: string } }>().user.role).toBe('admin');
    const replay = await send('replayed callback', {
      method: 'GET',
      url: `/api/auth/oauth/alpha/callback${callback.search}`,
      headers: { cookie: `oauth_state=${stateCookie}` },
    });
    expect(replay.statusCode).toBe(401);
    const forged = await send('callback without the state cookie', {
      method: 'GET',
      url: `/api/auth/oauth/alpha/callback${callback.search}`,
      headers: { accept: 'text/html' },
    });
    expect(forged.headers.location).toBe('/login?error=invalid_state');
  });

  it('creates, uses and revokes personal access tokens, and manages database users', async () => {
    const dbPassword = keep('database password', 'db-admin-password-3c9e');
    await createDbUser(t.falkordb, 'sec-admin', dbPassword, 'Admin');
    const wrong = await send('token creation with a wrong password', {
      method: 'POST',
      url: '/api/auth/tokens/credentials',
      payload: credentials(t.falkordb, 'sec-admin', keep('wrong database password', 'wrong-db-password-18aa')),
    });
    expect(wrong.statusCode).toBe(401);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/auth/tokens/credentials',
      payload: credentials(t.falkordb, 'sec-admin', dbPassword, { name: 'secret-test' }),
    });
    expect(created.statusCode, created.body).toBe(200);
    bodies.push({
      what: 'token creation (carries the PAT by design)',
      body: created.body.replace(created.json<{ token: string }>().token, '<pat>'),
    });
    const pat = keep('personal access token', created.json<{ token: string }>().token);
    const auth = bearer(pat);
    const client = await adminClient(t.falkordb);
    try {
      const [key] = await client.keys('graphdb:token:*');
      const stored = await client.hGetAll(key!);
      keep('token hash', stored.token_hash);
      keep('encrypted database password', stored.password_enc);
    } finally {
      await client.close();
    }
    expect((await send('graph list', { method: 'GET', url: '/api/graph', headers: auth })).statusCode).toBe(200);
    expect(
      (
        await send('query stream', {
          method: 'GET',
          url: `/api/graph/secret?query=${encodeURIComponent('CREATE (n:Note) RETURN n')}&timeout=5000`,
          headers: { ...auth, accept: 'text/event-stream' },
        })
      ).statusCode,
    ).toBe(200);
    const userPassword = keep('new database user password', 'db-user-password-5b20');
    keep(
      'new database user password hash (as ACL GETUSER shows it)',
      createHash('sha256').update(userPassword).digest('hex'),
    );
    expect(
      (
        await send('database user creation', {
          method: 'POST',
          url: '/api/user',
          headers: auth,
          payload: { username: 'sec-reader', password: userPassword, role: 'Read-Only' },
        })
      ).statusCode,
    ).toBe(201);
    expect(
      (
        await send('database user role change', {
          method: 'PATCH',
          url: '/api/user/sec-reader?role=Read-Write',
          headers: auth,
        })
      ).statusCode,
    ).toBe(200);
    expect((await send('database user list', { method: 'GET', url: '/api/user', headers: auth })).statusCode).toBe(200);
    const list = await send('token list', { method: 'GET', url: '/api/auth/tokens', headers: auth });
    const tokenId = list.json<{ tokens: { token_id: string }[] }>().tokens[0]!.token_id;
    expect(
      (await send('token read', { method: 'GET', url: `/api/auth/tokens/${tokenId}`, headers: auth })).statusCode,
    ).toBe(200);
    expect(
      (await send('token revocation', { method: 'DELETE', url: `/api/auth/tokens/${tokenId}`, headers: auth }))
        .statusCode,
    ).toBe(200);
    expect((await send('revoked token use', { method: 'GET', url: '/api/graph', headers: auth })).statusCode).toBe(401);
  });

  it('writes backup repository credentials to a Secret, never to an answer or a log', async () => {
    const call = (what: string, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: InjectOptions['payload']) =>
      send(what, { method, url, headers: { cookie: admin }, ...(payload ? { payload } : {}) });
    // Repositories are cluster-wide: managed in multi-cluster mode.
    expect(
      (await call('multi-cluster mode', 'PATCH', '/api/settings/', { features: { multi_cluster_mode: true } }))
        .statusCode,
    ).toBe(200);
    const created = await call('repository create', 'POST', '/api/backups/repositories/', {
      name: 'offsite',
      storageProviderRef: 's3',
      type: 's3',
      config: { bucket: 'graph-backups', region: 'eu-west-1' },
      credentials: {
        accessKeyId: 'AKIAOFFSITE0001',
        secretAccessKey: keep('repository secret key', 'wJalrXUtnFEMI-offsite-7d1c'),
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const rotated = await call('repository credentials rotated', 'PATCH', '/api/backups/repositories/offsite', {
      credentials: {
        accessKeyId: 'AKIAOFFSITE0002',
        secretAccessKey: keep('rotated repository secret key', 'x9Kq2-rotated-offsite-44ab'),
      },
    });
    expect(rotated.statusCode, rotated.body).toBe(200);
    expect(await t.backdoor.secret('graphdb-backup-repo-offsite')).toEqual({
      accessKeyId: 'AKIAOFFSITE0002',
      secretAccessKey: secrets.get('rotated repository secret key'),
    });
    expect((await call('repository read', 'GET', '/api/backups/repositories/offsite')).statusCode).toBe(200);
    expect((await call('repository list', 'GET', '/api/backups/repositories/')).statusCode).toBe(200);
    // A refused create (a taken name) says nothing of the credentials it carried either.
    const refused = await call('repository create refused', 'POST', '/api/backups/repositories/', {
      name: 'offsite',
      storageProviderRef: 's3',
      type: 's3',
      config: { bucket: 'b', region: 'r' },
      credentials: {
        accessKeyId: 'AKIAOFFSITE0003',
        secretAccessKey: keep('refused repository secret key', 'refused-offsite-secret-91fe'),
      },
    });
    expect(refused.statusCode).toBe(409);
  });

  it('never logged a secret, in clear or base64, nor the signature of a JWT', () => {
    const log = t.logs.text;
    // The run was logged: at least one access line for each of its 30-odd requests.
    expect(t.logs.lines.filter((line) => line.msg === 'request completed').length).toBeGreaterThan(25);
    expect(log).toContain('/api/auth/oauth/alpha/callback');
    expect(log).toContain('/api/auth/tokens/credentials');
    const leaks: string[] = [];
    for (const [name, value] of secrets) {
      const forms = [value, Buffer.from(value).toString('base64')];
      const parts = value.split('.');
      if (parts.length === 3) forms.push(parts[2]!);
      if (value.includes('-----BEGIN')) forms.push(...value.split('\n').filter((line) => line.length > 40));
      for (const form of forms)
        if (log.includes(form) || log.includes(JSON.stringify(form).slice(1, -1)))
          leaks.push(`${name}: ${form.slice(0, 24)}…`);
    }
    expect(leaks).toEqual([]);
  });

  it('never answered with a write-only value, a hash or a secret of the run', () => {
    expect(bodies.length).toBeGreaterThan(25);
    const found: string[] = [];
    for (const { what, body } of bodies) {
      for (const field of WRITE_ONLY_FIELDS) if (body.includes(field)) found.push(`${what}: ${field}`);
      for (const [name, value] of secrets)
        if (body.includes(value) || body.includes(JSON.stringify(value).slice(1, -1))) found.push(`${what}: ${name}`);
    }
    expect(found).toEqual([]);
  });
});
