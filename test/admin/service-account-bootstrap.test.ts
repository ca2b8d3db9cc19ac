// Service accounts declared in SERVICE_ACCOUNTS_BOOTSTRAP (the chart's adminServer.serviceAccountsBootstrap), over
// local files (embedded), the Kubernetes API double, or the real kube-apiserver under vitest.kube.config.ts: made at
// start-up with their tokens' texts read from the variables the declaration names, stored only as hashes, never
// logged; a restart changes nothing, or sets back what was declared; a new text replaces the token; a bad
// declaration stops the start without echoing a token.
import { afterAll, describe, expect, it } from 'vitest';
import { newTokenText, tokenHash } from '../../src/lib/service-account-tokens.js';
import { ADAPTERS, useAdminApp } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';

const DAY_MS = 86_400_000;
const SECRET = 'graphdb-admin-serviceaccounts';

function declaration(expiresAt: string) {
  return JSON.stringify([
    {
      name: 'argo-deployer',
      role: 'operator',
      description: 'Deploys from Argo CD',
      tokens: [{ name: 'argocd', tokenVariable: 'GRAPHDB_SA_TOKEN_0_0', expiresAt }],
    },
    { name: 'argo-reader', role: 'viewer' },
  ]);
}

describe.each(ADAPTERS)('service accounts from SERVICE_ACCOUNTS_BOOTSTRAP (%s)', (adapter) => {
  const key = newTokenText();
  const expiresAt = new Date(Date.now() + 30 * DAY_MS).toISOString();
  const env = (token: string) => ({ SERVICE_ACCOUNTS_BOOTSTRAP: declaration(expiresAt), GRAPHDB_SA_TOKEN_0_0: token });
  const t = useAdminApp({ adapter, env: env(key), roles: ['admin'] });
  const replicas: TestApp[] = [];
  /** Another start of the server on the same stores (a restarted pod, or another replica). */
  async function restart(extra: Record<string, string>): Promise<TestApp> {
    const app = await startTestApp({
      falkordb: t.falkordb,
      env: { SETTINGS_REFRESH_MS: '0', PUBLIC_ORIGIN: 'https://admin.corp.example', ...extra },
      deps: { adminStores: t.stores },
    });
    replicas.push(app);
    return app;
  }
  const bearer = (app: Pick<TestApp, 'app'>, token: string, method: 'GET' | 'POST', url: string, payload?: unknown) =>
    app.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload: payload as never }),
    });
  const stored = async () =>
    JSON.parse((await t.backdoor.secret(SECRET))?.['serviceaccounts.json'] ?? '[]') as {
      id: string;
      name: string;
      role: string;
      createdBy: string;
      tokens: { id: string; name: string; hash: string }[];
    }[];

  /** The stored list as the bootstrap writes it: a token's last use is stamped after a request, on its own. */
  const declaredFields = async () =>
    JSON.stringify(await stored(), (key, value: unknown) =>
      key === 'lastUsedAt' || key === 'lastUsedIp' ? undefined : value,
    );

  afterAll(async () => {
    for (const app of replicas) await app.close();
  });

  it('makes the accounts at start-up: the token acts with its role, is stored only as a hash and never logged', async () => {
    expect((await bearer(t, key, 'GET', '/api/clusters/')).statusCode).toBe(200);
    const refused = await bearer(t, key, 'POST', '/api/users/', { email: 'x@corp.example', role: 'viewer' });
    expect(refused.statusCode).toBe(403);
    const accounts = await stored();
    expect(accounts.map((account) => [account.name, account.role])).toEqual([
      ['argo-deployer', 'operator'],
      ['argo-reader', 'viewer'],
    ]);
    expect(accounts[0]!.createdBy).toBe('bootstrap (SERVICE_ACCOUNTS_BOOTSTRAP)');
    expect(accounts[0]!.tokens.map((token) => [token.name, token.hash])).toEqual([['argocd', tokenHash(key)]]);
    expect(JSON.stringify(await t.backdoor.secret(SECRET))).not.toContain(key);
    expect(t.logs.text).not.toContain(key);
    expect(t.logs.text).toContain('service accounts bootstrap: 2 created, 0 changed, 0 as declared');
    const tokens = await t.app.inject({
      method: 'GET',
      url: '/api/serviceaccounts/argo-deployer/tokens',
      headers: { cookie: t.sessions.admin },
    });
    expect(tokens.json<{ tokens: { name: string; expiresAt: string }[] }>().tokens).toMatchObject([
      { name: 'argocd', expiresAt },
    ]);
  });

  it('a restart with the same declaration writes nothing; one after a change made through the API sets it back', async () => {
    const before = await declaredFields();
    const same = await restart(env(key));
    expect(same.logs.text).toContain('service accounts bootstrap: 0 created, 0 changed, 2 as declared');
    expect(await declaredFields()).toBe(before);
    expect(same.logs.text).not.toContain(key);

    // Someone changes the declared role, and adds a token of their own: the next start restores the role only.
    const patched = await t.app.inject({
      method: 'PATCH',
      url: '/api/serviceaccounts/argo-deployer',
      headers: { cookie: t.sessions.admin },
      payload: { role: 'viewer' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    const own = await t.app.inject({
      method: 'POST',
      url: '/api/serviceaccounts/argo-deployer/tokens',
      headers: { cookie: t.sessions.admin },
      payload: { name: 'by-hand', expiresInDays: 1 },
    });
    expect(own.statusCode, own.body).toBe(201);
    const tokenId = (await stored())[0]!.tokens[0]!.id;
    const again = await restart(env(key));
    expect(again.logs.text).toContain('service accounts bootstrap: 0 created, 1 changed, 1 as declared');
    const [deployer] = await stored();
    expect(deployer!.role).toBe('operator');
    expect(deployer!.tokens.map((token) => token.name)).toEqual(['argocd', 'by-hand']);
    expect(deployer!.tokens[0]!.id).toBe(tokenId);
    // The token acts with the declared role again (operator reads the settings, viewer does not).
    expect((await bearer(t, key, 'GET', '/api/settings/')).statusCode).toBe(200);
  });

  it('a new text in the Secret replaces the token: the old one stops, the new one works', async () => {
    const rotated = newTokenText();
    const next = await restart(env(rotated));
    expect(next.logs.text).toContain('1 changed');
    expect((await bearer(next, rotated, 'GET', '/api/clusters/')).statusCode).toBe(200);
    expect((await bearer(next, key, 'GET', '/api/clusters/')).statusCode).toBe(401);
    const [deployer] = await stored();
    expect(deployer!.tokens.find((token) => token.name === 'argocd')!.hash).toBe(tokenHash(rotated));
    expect(JSON.stringify(await t.backdoor.secret(SECRET))).not.toContain(rotated);
    expect(next.logs.text).not.toContain(rotated);
  });

  it('a bad declaration stops the start, naming the problem and never the token', async () => {
    const text = newTokenText();
    const declared = (role: string, at: string) =>
      JSON.stringify([
        {
          name: 'argo-deployer',
          role,
          tokens: [{ name: 'argocd', tokenVariable: 'GRAPHDB_SA_TOKEN_0_0', expiresAt: at }],
        },
      ]);
    const cases: [Record<string, string>, string][] = [
      [{ SERVICE_ACCOUNTS_BOOTSTRAP: declared('operator', expiresAt) }, 'GRAPHDB_SA_TOKEN_0_0 is not set'],
      [
        {
          SERVICE_ACCOUNTS_BOOTSTRAP: declared('operator', expiresAt),
          GRAPHDB_SA_TOKEN_0_0: `${text.slice(0, -1)}${text.endsWith('x') ? 'y' : 'x'}`,
        },
        'GRAPHDB_SA_TOKEN_0_0 does not hold a service account token',
      ],
      [{ SERVICE_ACCOUNTS_BOOTSTRAP: '{"name":' }, 'must be a JSON array of service accounts'],
      [
        { SERVICE_ACCOUNTS_BOOTSTRAP: declared('no-such-role', expiresAt), GRAPHDB_SA_TOKEN_0_0: text },
        'Unknown role no-such-role',
      ],
      [
        {
          SERVICE_ACCOUNTS_BOOTSTRAP: declared('operator', new Date(Date.now() + 400 * DAY_MS).toISOString()),
          GRAPHDB_SA_TOKEN_0_0: text,
        },
        'expires after 365 days from now',
      ],
    ];
    const before = await declaredFields();
    for (const [extra, problem] of cases) {
      const error = await restart(extra).then(
        () => undefined,
        (reason: unknown) => reason as Error,
      );
      expect(error?.message, JSON.stringify(extra)).toContain(problem);
      expect(error!.message).not.toContain(text.slice(6, -6));
    }
    expect(await declaredFields()).toBe(before);
  });
});
