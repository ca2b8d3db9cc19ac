// Hostile input that the per-endpoint suites do not already cover (test/browser/nodes, config-users, bad-input;
// test/admin/settings, oauth; test/shared/error-handling): graph names and token ids that look like Cypher, glob
// patterns or key names; ACL rules smuggled through token-creation usernames and CR/LF passwords; Content-Disposition
// and Location headers built from hostile names; prototype pollution through settings PATCH and a hand-edited
// ConfigMap; path traversal through Secret references. Each case proves nothing ran: canaries unchanged, nothing new.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, ADMIN, login, startAdminTestApp, useAdminApp, type AdminTestApp } from '../support/admin.js';
import { adminClient, createDbUser, createToken, credentials, graphQuery, useBrowserApp } from '../support/browser.js';
import { signInAtProvider, startIdentityProvider, type IdentityProvider } from '../support/oidc/identity-provider.js';

/** RFC 6266 / RFC 8187: `attachment; filename="<quoted ascii>"; filename*=UTF-8''<attr-chars and %XX only>`. */
const STRICT_DISPOSITION =
  /^attachment; filename="[\x20\x21\x23-\x5b\x5d-\x7e]*"; filename\*=UTF-8''(?:%[0-9A-F]{2}|[A-Za-z0-9!#$&+.^_`|~-])+$/;

describe('browser API', () => {
  const t = useBrowserApp({ prefix: 'inj' });
  const admin = t.as('Admin');
  let canaryToken: string;

  /** Everything the hostile requests could touch: graphs, the canary's nodes, token keys and ACL rules. */
  async function state() {
    const client = await adminClient(t.falkordb);
    try {
      return {
        graphs: (await client.sendCommand<string[]>(['GRAPH.LIST'])).sort(),
        canary: await graphQuery(t.falkordb, 'canary', 'MATCH (n) RETURN labels(n), properties(n) ORDER BY ID(n)'),
        tokenKeys: (await client.keys('graphdb:*')).sort(),
        acl: await client.sendCommand<string[]>(['ACL', 'LIST']),
      };
    } finally {
      await client.close();
    }
  }

  beforeAll(async () => {
    await createDbUser(t.falkordb, 'inj-canary', 'inj-canary-pw', 'Read-Only');
    canaryToken = await createToken(t.app, credentials(t.falkordb, 'inj-canary', 'inj-canary-pw', { name: 'canary' }));
    await graphQuery(t.falkordb, 'canary', 'CREATE (:Canary {alive: true})-[:SINGS]->(:Canary {alive: true})');
  });
  const graphUrl = (name: string, rest = '') => `/api/graph/${encodeURIComponent(name)}${rest}`;

  it('treats hostile graph names as literal key names: Cypher, globs, hash tags and key prefixes touch nothing else', async () => {
    const names = [
      "canary' MATCH (n) DETACH DELETE n //",
      'x`) MATCH (n) DETACH DELETE n //',
      '*',
      'canar?',
      '[c]anary',
      '{canary}',
      'canary\\',
      'graphdb:token:*',
      '"; FLUSHALL; "',
    ];
    const before = await state();
    for (const name of names) {
      expect((await admin.inject({ method: 'POST', url: graphUrl(name) })).statusCode, name).toBe(200);
      const query = await admin.inject({
        method: 'GET',
        url: graphUrl(name, `?query=${encodeURIComponent('CREATE (:Here) RETURN 1 AS one')}&timeout=5000`),
      });
      expect(query.json(), name).toMatchObject({ data: [{ one: 1 }] });
      expect((await admin.inject({ method: 'GET', url: graphUrl(name, '/count') })).statusCode, name).toBe(200);
    }
    expect((await state()).graphs).toEqual([...before.graphs, ...names].sort());
    // Renaming, duplicating and deleting by a glob-like name move only the graph of that exact name.
    expect(
      (
        await admin.inject({
          method: 'PATCH',
          url: `${graphUrl('renamed-star')}?sourceName=${encodeURIComponent('*')}`,
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (
        await admin.inject({
          method: 'PATCH',
          url: `${graphUrl('copy-of-glob', '/duplicate')}?sourceName=${encodeURIComponent('canar?')}`,
        })
      ).statusCode,
    ).toBe(200);
    for (const name of [...names.filter((n) => n !== '*'), 'renamed-star', 'copy-of-glob'])
      expect((await admin.inject({ method: 'DELETE', url: graphUrl(name) })).statusCode, name).toBe(200);
    expect((await admin.inject({ method: 'DELETE', url: graphUrl('canar*') })).statusCode).toBe(404);
    expect(await state()).toEqual(before);
  });

  it('names an export after a hostile graph name without breaking or adding a header', async () => {
    for (const name of [
      'evil"; filename=evil.sh',
      "o'brien (copy) *",
      'a%0d%0aSet-Cookie: injected=1',
      'naïve;name=x\\y',
    ]) {
      await graphQuery(t.falkordb, name, 'CREATE (:Exported)');
      const res = await admin.inject({ method: 'GET', url: graphUrl(name, '/export') });
      expect(res.statusCode, name).toBe(200);
      const disposition = String(res.headers['content-disposition']);
      expect(disposition, name).toMatch(STRICT_DISPOSITION);
      expect(decodeURIComponent(disposition.split("''")[1]!), name).toBe(`${name}.dump`);
      expect(res.headers['set-cookie'], name).toBeUndefined();
      expect((await admin.inject({ method: 'DELETE', url: graphUrl(name) })).statusCode).toBe(200);
    }
  });

  it('refuses token ids that look like key patterns or paths, leaving every token working', async () => {
    const before = await state();
    for (const id of [
      '*',
      '1700000000000-*',
      'graphdb:token:*',
      '1700000000000-[a-f]*',
      '../token-hash/x',
      '1700000000000-00000000-0000-0000-0000-000000000000 OR 1',
    ]) {
      for (const method of ['GET', 'DELETE'] as const) {
        const res = await admin.inject({ method: method, url: `/api/auth/tokens/${encodeURIComponent(id)}` });
        expect([400, 404], `${method} ${id}: ${res.body}`).toContain(res.statusCode);
        expect(res.json<object>()).toEqual({
          message: expect.any(String) as unknown,
          code: res.statusCode === 400 ? 'invalid_request' : 'not_found',
        });
      }
    }
    expect(await state()).toEqual(before);
    expect((await t.withToken(canaryToken).inject({ method: 'GET', url: '/api/graph' })).statusCode).toBe(200);
  });

  it('never turns a token-creation username or password into ACL rules', async () => {
    const before = await state();
    const attempts = [
      { username: 'default on nopass ~* +@all', password: '' },
      { username: 'inj-canary on >x ~* +@all', password: 'inj-canary-pw' },
      { username: '>inj-admin-password', password: 'inj-admin-password' },
      { username: 'inj-canary', password: 'inj-canary-pw\r\nACL SETUSER evil on nopass ~* +@all' },
      { username: 'inj-canary\r\nACL SETUSER evil on nopass ~* +@all\r\nAUTH default', password: 'x' },
    ];
    for (const attempt of attempts) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/tokens/credentials',
        payload: credentials(t.falkordb, attempt.username, attempt.password),
      });
      // 401 (refused by FalkorDB), or 400 for a password-less user other than `default`: never a token.
      expect([400, 401], JSON.stringify(attempt)).toContain(res.statusCode);
      expect(res.json<object>()).toEqual({
        message: expect.any(String) as unknown,
        code: res.statusCode === 400 ? 'invalid_request' : 'unauthenticated',
      });
    }
    // A database user's password with CR/LF or rule syntax stays one password; one with control characters is refused.
    const crlf = await admin.inject({
      method: 'POST',
      url: '/api/user',
      payload: {
        username: 'inj-new',
        password: 'pw\r\nACL SETUSER evil on nopass ~* +@all',
        role: 'Read-Only',
      },
    });
    expect(crlf.statusCode).toBe(400);
    const role = await admin.inject({
      method: 'PATCH',
      url: `/api/user/inj-canary?role=${encodeURIComponent('Admin +@all')}`,
    });
    expect(role.statusCode).toBe(400);
    expect(await state()).toEqual(before);
  });

  it('quotes labels and keys with backslashes and escape-like text as plain identifiers', async () => {
    const before = await state();
    for (const label of ['Tail\\', '\\u0060) DETACH DELETE (n', "a\\'b"]) {
      const res = await admin.inject({ method: 'POST', url: '/api/graph/canary/0/label', payload: { label } });
      expect(res.statusCode, `${label}: ${res.body}`).toBe(200);
      const removed = await admin.inject({ method: 'DELETE', url: '/api/graph/canary/0/label', payload: { label } });
      expect(removed.statusCode, `${label}: ${removed.body}`).toBe(200);
    }
    const key = await admin.inject({
      method: 'POST',
      url: `/api/graph/canary/1/${encodeURIComponent('k\\')}`,
      payload: {
        value: '\\", alive: false, x: "',
        type: true,
      },
    });
    expect(key.statusCode, key.body).toBe(200);
    expect(await graphQuery(t.falkordb, 'canary', 'MATCH (n) WHERE ID(n) = 1 RETURN n.alive, properties(n)')).toEqual([
      ['true', expect.stringContaining('k\\') as unknown],
    ]);
    expect(
      (
        await admin.inject({
          method: 'DELETE',
          url: `/api/graph/canary/1/${encodeURIComponent('k\\')}`,
          payload: { type: true },
        })
      ).statusCode,
    ).toBe(200);
    expect(await state()).toEqual(before);
  });
});

describe.each(ADAPTERS)('admin API (%s store)', (adapter) => {
  const t = useAdminApp(adapter);
  const admin = t.as('admin');
  beforeAll(async () => {
    const seeded = await admin.inject({ method: 'PATCH', url: '/api/settings/', payload: { ui: { theme: 'dark' } } });
    expect(seeded.statusCode).toBe(200);
  });

  const patchRaw = (body: string) =>
    admin.inject({
      method: 'PATCH',
      url: '/api/settings/',
      headers: { 'content-type': 'application/json' },
      payload: body,
    });
  const served = async () => (await admin.inject({ method: 'GET', url: '/api/settings/' })).body;
  const polluted = () =>
    Object.getOwnPropertyNames(Object.prototype).filter((name) =>
      ['polluted', 'oauth2_enabled', 'isAdmin'].includes(name),
    );

  it('refuses prototype pollution in every spelling of a settings PATCH, changing nothing', async () => {
    const stored = await t.backdoor.settingsText();
    const before = await served();
    for (const body of [
      '{"__proto__": {"polluted": true}}',
      '{"constructor": {"prototype": {"polluted": true}}}',
      '{"features": {"constructor": {"prototype": {"oauth2_enabled": true}}}}',
      '{"ui": {"constructor": {"prototype": {"polluted": true}}}}',
      '{"ui": {"a": {"b": {"__proto__": {"isAdmin": true}}}}}',
      '{"\\u005f_proto__": {"polluted": true}}',
      '{"ui": {"__pro\\u0074o__": {"polluted": true}}}',
    ]) {
      const res = await patchRaw(body);
      expect(res.statusCode, body).toBe(400);
      expect(res.json(), body).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        message: 'Invalid JSON in request body',
        code: 'invalid_json',
      });
    }
    expect(polluted()).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await t.backdoor.settingsText()).toBe(stored);
    expect(await served()).toBe(before);
  });

  it('does not let a hand-edited document with __proto__ keys reach any prototype or setting', async () => {
    const before = await served();
    // A section with a __proto__ key fails validation: the last good settings stay in force.
    await t.backdoor.editSettings(
      '{"features": {"__proto__": {"multi_cluster_mode": true}}, "ui": {"__proto__": {"polluted": true}}}',
    );
    expect(await served()).toBe(before);
    expect(t.logs.text).toContain('features: Unrecognized key: \\"__proto__\\"');
    // In the free-form ui object it is dropped, and neither it nor a later PATCH pollutes anything.
    await t.backdoor.editSettings('{"ui": {"theme": "dark", "__proto__": {"polluted": true, "isAdmin": true}}}');
    const read = JSON.parse(await served()) as { ui: Record<string, unknown>; features: Record<string, unknown> };
    expect(read.ui).toEqual({ theme: 'dark' });
    expect(read.features.multi_cluster_mode).toBe(false);
    const res = await admin.inject({ method: 'PATCH', url: '/api/settings/', payload: { ui: { theme: 'light' } } });
    expect(res.statusCode).toBe(200);
    expect(res.json<{ ui: unknown }>().ui).toEqual({ theme: 'light' });
    expect(await t.backdoor.settingsText()).not.toMatch(/polluted|isAdmin/);
    expect(polluted()).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses Secret references that would leave the Secret namespace or the secrets folder', async () => {
    const stored = await t.backdoor.settingsText();
    for (const ref of [
      '../settings',
      '..',
      'a/b',
      'alpha/../../configmaps/graphdb-admin-settings',
      '.hidden',
      'UPPER',
      'a b',
      `${'x'.repeat(254)}`,
    ]) {
      const res = await admin.inject({
        method: 'PATCH',
        url: '/api/settings/',
        payload: { alpha_oauth: { client_secret_secret_ref: ref, client_secret: 'smuggled-secret' } },
      });
      expect(res.statusCode, ref).toBe(400);
      expect(res.json<{ message: string }>().message, ref).toContain('alpha_oauth.client_secret_secret_ref');
    }
    expect(await t.backdoor.settingsText()).toBe(stored);
    const smuggled = Buffer.from('smuggled-secret').toString('base64');
    if (t.kube)
      expect(t.kube.list('secrets').filter((secret) => JSON.stringify(secret.data).includes(smuggled))).toEqual([]);
  });
});

describe('OAuth returnTo', () => {
  const CALLBACK = 'https://admin.corp.example/api/auth/oauth/alpha/callback';
  let t: AdminTestApp;
  let idp: IdentityProvider;
  beforeAll(async () => {
    idp = await startIdentityProvider({
      clients: [{ client_id: 'alpha-client', client_secret: 'alpha-secret', redirect_uris: [CALLBACK] }],
    });
    idp.accounts.set('ada', { email: 'ada@corp.example', email_verified: true, name: 'Ada' });
    t = await startAdminTestApp('embedded', { env: { ALPHA_ISSUER: idp.issuer } });
    const admin = await login(t.app, ADMIN.email, ADMIN.password);
    await t.app.inject({
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
  });
  afterAll(async () => {
    await t.close();
    await idp.close();
  });

  it.each([
    ['/ok\r\nSet-Cookie: injected=1', '/'],
    ['/ok\nLocation: https://evil.example', '/'],
    ['/%0d%0aSet-Cookie:%20injected=1', '/%0d%0aSet-Cookie:%20injected=1'],
    ['/日本?q=ü', `/${encodeURIComponent('日本')}?q=${encodeURIComponent('ü')}`],
    ['/a\u2028b', '/a%E2%80%A8b'],
  ])('sends the browser back to a header-safe location for returnTo %j', async (returnTo, expected) => {
    const start = await t.app.inject({
      method: 'GET',
      url: `/api/auth/oauth/alpha?returnTo=${encodeURIComponent(returnTo)}`,
    });
    expect(start.statusCode, start.body).toBe(302);
    const state = start.cookies.find((c) => c.name === 'oauth_state')!;
    const callback = await signInAtProvider(start.headers.location!, CALLBACK, 'ada');
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/auth/oauth/alpha/callback${callback.search}`,
      headers: { cookie: `oauth_state=${state.value}` },
    });
    expect(res.statusCode, res.body).toBe(302);
    expect(res.headers.location).toBe(expected);
    // The session (over HTTPS also as `__Host-token`), and the state cookie cleared.
    expect(res.cookies.map((c) => c.name).sort()).toEqual(['__Host-token', 'oauth_state', 'token']);
  });
});
