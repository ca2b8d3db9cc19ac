// The token cache: a checked token is served from memory, and revocation still applies at once on every
// replica (announced through the token store's pub/sub channel). Store reads are counted with INFO
// commandstats on the real FalkorDB, so "from memory" is an observed fact, not an assumption.
import http from 'node:http';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenCache } from '../../src/browser/auth/token-cache.js';
import type { Principal } from '../../src/browser/context.js';
import { listen, startTestApp, type TestApp } from '../support/app.js';
import {
  adminClient,
  bearer,
  createDbUser,
  createToken,
  credentials,
  storeReadsDuring,
  useBrowserApp,
} from '../support/browser.js';

const t = useBrowserApp({ roles: [] });
let direct: Awaited<ReturnType<typeof adminClient>>;
beforeAll(async () => {
  direct = await adminClient(t.falkordb);
  await createDbUser(t.falkordb, 'cache-user', 'cache-pw', 'Read-Write');
});
afterAll(() => direct.close());

const status = (app: Pick<TestApp, 'app'>, token: string) =>
  app.app.inject({ method: 'GET', url: '/api/status', headers: bearer(token) });

async function twentyRequests(app: Pick<TestApp, 'app'>, token: string): Promise<void> {
  for (let i = 0; i < 20; i++) expect((await status(app, token)).statusCode).toBe(200);
}

/** Waits until `app` serves `token` without reading the store (its revocation channel is proven live). */
async function warmCache(app: Pick<TestApp, 'app'>, token: string): Promise<void> {
  await expect
    .poll(() => storeReadsDuring(direct, () => twentyRequests(app, token)), { timeout: 10_000, interval: 50 })
    .toBe(0);
}

describe('token cache', () => {
  it('serves a checked token from memory: no store read per request', async () => {
    const token = await createToken(t.app, credentials(t.falkordb, 'cache-user', 'cache-pw'));
    await warmCache(t, token);
  });

  it('reads the store on every request when TOKEN_CACHE_TTL_MS is 0', async () => {
    const uncached = await startTestApp({ falkordb: t.falkordb, env: { TOKEN_CACHE_TTL_MS: '0' } });
    try {
      const token = await createToken(uncached.app, credentials(t.falkordb, 'cache-user', 'cache-pw'));
      expect(await storeReadsDuring(direct, () => twentyRequests(uncached, token))).toBeGreaterThanOrEqual(20);
    } finally {
      await uncached.close();
    }
  });

  it('refuses a token revoked through another replica at once, although this one had it cached', async () => {
    const other = await startTestApp({ falkordb: t.falkordb });
    try {
      const token = await createToken(t.app, credentials(t.falkordb, 'cache-user', 'cache-pw'));
      await warmCache(t, token);
      const revoked = await other.app.inject({
        method: 'DELETE',
        url: `/api/auth/tokens/${decodeJwt(token).jti}`,
        headers: bearer(token),
      });
      expect(revoked.statusCode).toBe(200);
      const started = performance.now();
      await expect
        .poll(async () => (await status(t, token)).json<{ message?: string }>().message, { timeout: 1000, interval: 2 })
        .toBe('Token has been revoked');
      // The announcement crosses loopback once; anything near the poll's limit would mean it was not used.
      expect(performance.now() - started).toBeLessThan(250);
    } finally {
      await other.close();
    }
  });

  it('refuses a token revoked on this replica on its very next request', async () => {
    const token = await createToken(t.app, credentials(t.falkordb, 'cache-user', 'cache-pw'));
    await warmCache(t, token);
    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: `/api/auth/tokens/${decodeJwt(token).jti}`,
          headers: bearer(token),
        })
      ).statusCode,
    ).toBe(200);
    expect((await status(t, token)).json()).toEqual({ message: 'Token has been revoked', code: 'unauthenticated' });
  });

  it('checks every request of a keep-alive connection: revocation, another token and a forged one', async () => {
    const listening = await startTestApp({ falkordb: t.falkordb });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const baseUrl = await listen(listening.app);
      /** GET /api/status on the agent's one connection: the status, the message and the client's port. */
      const statusOverConnection = (token: string) =>
        new Promise<{ status: number; message?: string; port: number }>((resolve, reject) => {
          const request = http.get(`${baseUrl}/api/status`, { agent, headers: bearer(token) }, (response) => {
            let body = '';
            response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
            response.on('end', () =>
              resolve({
                status: response.statusCode!,
                message: (JSON.parse(body) as { message?: string }).message,
                port: request.socket!.localPort!,
              }),
            );
          });
          request.on('error', reject);
        });
      const first = await createToken(listening.app, credentials(t.falkordb, 'cache-user', 'cache-pw'));
      const second = await createToken(listening.app, credentials(t.falkordb, 'cache-user', 'cache-pw'));
      await warmCache(listening, first);
      const accepted = await statusOverConnection(first);
      expect(accepted.status).toBe(200);
      expect((await statusOverConnection(first)).status).toBe(200);

      // The same token's signature with one character changed: never accepted for the one it resembles.
      const forged = first.slice(0, -2) + (first.at(-2) === 'A' ? 'B' : 'A') + first.at(-1)!;
      const refused = await statusOverConnection(forged);
      expect([refused.status, refused.port]).toEqual([401, accepted.port]);
      expect((await statusOverConnection(second)).status).toBe(200);

      const revoked = await listening.app.inject({
        method: 'DELETE',
        url: `/api/auth/tokens/${decodeJwt(first).jti}`,
        headers: bearer(second),
      });
      expect(revoked.statusCode).toBe(200);
      // The connection sent `first` before `second`: it is refused now, on the same connection, as revoked.
      const afterRevocation = await statusOverConnection(first);
      expect(afterRevocation).toEqual({ status: 401, message: 'Token has been revoked', port: accepted.port });
      expect(await statusOverConnection(first)).toEqual(afterRevocation);
      expect(await statusOverConnection(second)).toMatchObject({ status: 200, port: accepted.port });
    } finally {
      agent.destroy();
      await listening.close();
    }
  });

  it('forgets every cached token when the revocation channel drops, since announcements may be lost', async () => {
    const token = await createToken(t.app, credentials(t.falkordb, 'cache-user', 'cache-pw'));
    await warmCache(t, token);
    // A revocation written behind the server's back: no announcement, so only a store read can see it.
    await direct.hSet(`graphdb:token:${decodeJwt(token).jti}`, 'revoked_at', String(Date.now()));
    expect((await status(t, token)).statusCode).toBe(200);
    await direct.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
    await expect.poll(async () => (await status(t, token)).statusCode, { timeout: 2000, interval: 10 }).toBe(401);
  });
});

describe('TokenCache', () => {
  let clock = 1_000_000;
  const principal = (tokenId: string) => ({ tokenId }) as Principal;
  const cache = (ttlMs = 60_000, maxEntries = 10) => {
    const c = new TokenCache({ ttlMs, maxEntries, now: () => clock });
    c.channelUp();
    return c;
  };

  it('caches nothing until the channel is up, and forgets everything when it goes down', () => {
    const c = new TokenCache({ ttlMs: 60_000, maxEntries: 10, now: () => clock });
    c.add('h1', { principal: principal('t1'), expiresAt: null, lastUsed: null }, c.begin());
    expect(c.get('h1')).toBeUndefined();
    c.channelUp();
    c.add('h1', { principal: principal('t1'), expiresAt: null, lastUsed: null }, c.begin());
    expect(c.get('h1')?.principal.tokenId).toBe('t1');
    c.channelDown();
    expect(c.get('h1')).toBeUndefined();
    c.channelUp();
    expect(c.get('h1')).toBeUndefined();
  });

  it('drops an entry at the token expiry and at the end of its time to live', () => {
    const c = cache(60_000);
    c.add('h1', { principal: principal('t1'), expiresAt: clock + 1000, lastUsed: null }, c.begin());
    c.add('h2', { principal: principal('t2'), expiresAt: null, lastUsed: null }, c.begin());
    clock += 1000;
    expect(c.get('h1')).toBeUndefined();
    expect(c.get('h2')).toBeDefined();
    clock += 59_000;
    expect(c.get('h2')).toBeUndefined();
  });

  it('does not cache what was read before a revocation was announced', () => {
    const c = cache();
    const epoch = c.begin();
    c.revoked('t1');
    c.add('h1', { principal: principal('t1'), expiresAt: null, lastUsed: null }, epoch);
    expect(c.get('h1')).toBeUndefined();
  });

  it('evicts the oldest entry beyond its size, and revokes by token id', () => {
    const c = cache(60_000, 2);
    for (const n of [1, 2, 3])
      c.add(`h${n}`, { principal: principal(`t${n}`), expiresAt: null, lastUsed: null }, c.begin());
    expect([c.get('h1'), c.get('h2'), c.get('h3')].map((e) => e?.principal.tokenId)).toEqual([undefined, 't2', 't3']);
    c.revoked('t3');
    expect(c.get('h3')).toBeUndefined();
    expect(c.size).toBe(1);
  });
});
