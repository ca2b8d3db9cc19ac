// POST /api/user/save (the FalkorDB Browser's route): ACL SAVE on demand, Admin only; a database without an
// ACL file answers 400, one with a file has the users written there, those made by hand included.
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountUrl,
  loadOrCreateEmbeddedAccounts,
  type EmbeddedAccounts,
} from '../../src/platform/falkordb/embedded-accounts.js';
import { startEmbeddedFalkorDB, type EmbeddedFalkorDB } from '../../src/platform/falkordb/embedded-falkordb.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { bearer, createToken, useBrowserApp } from '../support/browser.js';

describe('POST /api/user/save', () => {
  let withFile: TestApp;
  let database: EmbeddedFalkorDB;
  let accounts: EmbeddedAccounts;
  let admin: string;
  const withoutFile = useBrowserApp({ prefix: 'save' });

  beforeAll(async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'gdb-acl-'));
    accounts = await loadOrCreateEmbeddedAccounts(dir, dir);
    database = await startEmbeddedFalkorDB({ dataDir: dir, accounts, logger: pino({ level: 'silent' }) });
    // The token store signs in with its own account, as in embedded mode: the app is started here, on the FalkorDB
    // this hook made with an ACL file.
    withFile = await startTestApp({
      falkordb: database,
      tokenStore: { ...database, url: accountUrl(database.host, database.port, accounts.tokenStore, 1) },
    });
    admin = await createToken(withFile.app, {
      username: accounts.admin.username,
      password: accounts.admin.password,
      host: database.host,
      port: String(database.port),
      tls: 'false',
    });
  });
  afterAll(async () => {
    await withFile.close();
    await database.stop();
  });

  it('writes the users to the ACL file, those made by other means included', async () => {
    const byHand = createClient({ url: accountUrl(database.host, database.port, accounts.admin) });
    await byHand.connect();
    try {
      await byHand.sendCommand(['ACL', 'SETUSER', 'made-by-hand', 'on', '>hand-password-1', '+ping']);
    } finally {
      await byHand.close();
    }
    expect(await readFile(accounts.aclFile, 'utf8')).not.toContain('made-by-hand');
    const res = await withFile.app.inject({ method: 'POST', url: '/api/user/save', headers: bearer(admin) });
    expect([res.statusCode, res.json()]).toEqual([200, { message: 'ACL saved to disk' }]);
    expect(await readFile(accounts.aclFile, 'utf8')).toMatch(/^user made-by-hand on /m);
  });

  it('answers 400 for a database without an ACL file, and 403 below Admin', async () => {
    const tokens = withoutFile.tokens;
    const res = await withoutFile.app.inject({ method: 'POST', url: '/api/user/save', headers: bearer(tokens.Admin) });
    expect([res.statusCode, res.json()]).toEqual([
      400,
      {
        message: 'This database has no ACL file to save its users to (start it with the aclfile setting)',
        code: 'invalid_request',
      },
    ]);
    expect(
      (await withoutFile.app.inject({ method: 'POST', url: '/api/user/save', headers: bearer(tokens['Read-Write']) }))
        .statusCode,
    ).toBe(403);
  });
});
