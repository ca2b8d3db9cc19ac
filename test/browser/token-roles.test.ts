// A token's role is not frozen at creation. A demoted or deleted database Admin's old token loses its
// power over other users' tokens, whether the change came through /api/user or straight to the database.
import { describe, expect, it } from 'vitest';
import { adminClient, bearer, createDbUser, createToken, credentials, useBrowserApp } from '../support/browser.js';

// The token cache is on (its default), so each change must also reach cached tokens. No role tokens: the suite
// lists the tokens it made.
const t = useBrowserApp({ roles: [] });

interface TokenItem {
  token_id: string;
  username: string;
  role: string;
}

const list = async (token: string) => {
  const res = await t.app.inject({ method: 'GET', url: '/api/auth/tokens', headers: bearer(token) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ tokens: TokenItem[] }>().tokens;
};
const idOf = async (token: string) => (await list(token))[0]!.token_id;
const revoke = (token: string, tokenId: string) =>
  t.app.inject({ method: 'DELETE', url: `/api/auth/tokens/${tokenId}`, headers: bearer(token) });

async function userWithToken(username: string, role: 'Admin' | 'Read-Write' | 'Read-Only'): Promise<string> {
  await createDbUser(t.falkordb, username, `${username}-pw`, role);
  return createToken(t.app, credentials(t.falkordb, username, `${username}-pw`));
}

describe('token administration follows the database role of today', () => {
  it('a token whose Admin user was demoted through /api/user carries the new role and administers only its own tokens', async () => {
    const boss = await userWithToken('roles-boss', 'Admin');
    const former = await userWithToken('roles-former', 'Admin');
    const victim = await userWithToken('roles-victim-1', 'Read-Only');
    const victimId = await idOf(victim);
    expect((await list(former)).map((item) => item.username)).toContain('roles-victim-1');

    const demoted = await t.app.inject({
      method: 'PATCH',
      url: '/api/user/roles-former?role=Read-Only',
      headers: bearer(boss),
    });
    expect(demoted.statusCode, demoted.body).toBe(200);

    const seen = await list(former);
    expect(seen.map((item) => [item.username, item.role])).toEqual([['roles-former', 'Read-Only']]);
    expect((await revoke(former, victimId)).statusCode).toBe(403);
    const stored = await adminClient(t.falkordb);
    try {
      expect(await stored.hGet(`graphdb:token:${seen[0]!.token_id}`, 'role')).toBe('Read-Only');
    } finally {
      await stored.close();
    }
    // The victim's token is untouched.
    expect((await list(victim)).map((item) => item.token_id)).toEqual([victimId]);
  });

  it('a token whose Admin user was demoted by hand, outside this server, loses its power over other tokens at once', async () => {
    const former = await userWithToken('roles-by-hand', 'Admin');
    const victim = await userWithToken('roles-victim-2', 'Read-Only');
    const victimId = await idOf(victim);
    // The token is cached as Admin; the database no longer agrees.
    expect((await list(former)).length).toBeGreaterThan(1);
    const client = await adminClient(t.falkordb);
    try {
      await client.sendCommand([
        'ACL',
        'SETUSER',
        'roles-by-hand',
        '-@all',
        '+@read',
        '+graph.ro_query',
        '+graph.list',
        '+ping',
        '+info',
        '~*',
      ]);
    } finally {
      await client.close();
    }
    expect((await list(former)).map((item) => item.username)).toEqual(['roles-by-hand']);
    expect((await revoke(former, victimId)).statusCode).toBe(403);
    const read = await t.app.inject({ method: 'GET', url: `/api/auth/tokens/${victimId}`, headers: bearer(former) });
    expect(read.statusCode).toBe(403);
  });

  it('the tokens of a deleted database user are revoked at once, on a cached token too', async () => {
    const boss = await userWithToken('roles-boss-2', 'Admin');
    const doomed = await userWithToken('roles-doomed', 'Admin');
    const doomedId = await idOf(doomed);
    // Used once, so it sits in the token cache.
    expect((await t.app.inject({ method: 'GET', url: '/api/graph', headers: bearer(doomed) })).statusCode).toBe(200);

    const deleted = await t.app.inject({
      method: 'DELETE',
      url: '/api/user',
      headers: bearer(boss),
      payload: { users: [{ username: 'roles-doomed' }] },
    });
    expect(deleted.statusCode, deleted.body).toBe(200);

    expect((await t.app.inject({ method: 'GET', url: '/api/graph', headers: bearer(doomed) })).statusCode).toBe(401);
    expect((await list(boss)).map((item) => item.token_id)).not.toContain(doomedId);
    const stored = await adminClient(t.falkordb);
    try {
      // Revocation is recorded in the token store (the embedded test database doubles as the store).
      expect(await stored.hGet(`graphdb:token:${doomedId}`, 'revoked_at')).toMatch(/^\d+$/);
    } finally {
      await stored.close();
    }
  });
});
