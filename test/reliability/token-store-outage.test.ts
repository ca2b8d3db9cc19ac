// The token store goes away (its process is killed) and comes back on the same port. While it is away, no token
// is accepted without a store check: cached tokens are forgotten as soon as the revocation channel drops, every
// bearer request answers 503 with a clear message (401 for a token that fails before the store is needed), and
// the server needs no restart once the store is back.
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  bearer,
  createDbUser,
  createToken,
  credentials,
  storeReadsDuring,
  useBrowserApp,
} from '../support/browser.js';
import { startTestFalkorDB, type TestFalkorDB } from '../support/falkordb.js';

let store: TestFalkorDB;
beforeAll(async () => {
  // Persistent, as a real token store is: its tokens must still be there after the crash.
  store = await startTestFalkorDB({ dataDir: await mkdtemp(path.join(os.tmpdir(), 'gdb-store-')) });
});
afterAll(() => store.stop());
const t = useBrowserApp(() => ({ tokenStore: store, roles: [] }));
beforeAll(async () => {
  await createDbUser(t.falkordb, 'outage-user', 'outage-pw', 'Read-Only');
});

const status = (token: string) => t.app.inject({ method: 'GET', url: '/api/status', headers: bearer(token) });

describe('token store outage', () => {
  it('answers 503 for every token while the store is down, 401 for a forged one, and recovers by itself', async () => {
    const used = await createToken(t.app, credentials(t.falkordb, 'outage-user', 'outage-pw'));
    const unused = await createToken(t.app, credentials(t.falkordb, 'outage-user', 'outage-pw'));
    // `used` is served from memory (once the revocation channel is live) before the store goes away.
    const direct = await adminClient(store);
    const fiveRequests = async () => {
      for (let i = 0; i < 5; i++) expect((await status(used)).statusCode).toBe(200);
    };
    await expect.poll(() => storeReadsDuring(direct, fiveRequests), { timeout: 10_000, interval: 50 }).toBe(0);
    await direct.close();

    process.kill(store.pid, 'SIGKILL');
    const unavailable = { message: 'Token store is unavailable', code: 'unavailable' };
    await expect
      .poll(async () => (await status(used)).json<unknown>(), { timeout: 5000, interval: 20 })
      .toEqual(unavailable);
    expect((await status(unused)).statusCode).toBe(503);
    expect((await status(unused)).json()).toEqual(unavailable);
    const forged = `${used.slice(0, -4)}AAAA`;
    expect((await status(forged)).json()).toEqual({ message: 'Invalid or expired token', code: 'unauthenticated' });
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/auth/tokens/credentials',
      payload: credentials(t.falkordb, 'outage-user', 'outage-pw'),
    });
    expect(created.statusCode).toBe(503);
    expect(created.json()).toEqual(unavailable);

    await store.restart();
    const back = Date.now();
    await expect.poll(async () => (await status(used)).statusCode, { timeout: 10_000, interval: 50 }).toBe(200);
    // The store client reconnects with a backoff capped at 2 s.
    expect(Date.now() - back).toBeLessThan(5000);
    expect((await status(unused)).statusCode).toBe(200);
  });
});
