import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  adminClient,
  bearer,
  createToken,
  credentials,
  databaseSnapshot,
  graphQuery,
  type TestRole,
  useBrowserApp,
} from '../support/browser.js';

const t = useBrowserApp({ prefix: 'mx' });

const ROLES: TestRole[] = ['Admin', 'Read-Write', 'Read-Only'];
const RANK: Record<TestRole, number> = { 'Read-Only': 0, 'Read-Write': 1, Admin: 2 };

interface Case {
  name: string;
  minimum: TestRole;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** `g` is a freshly seeded graph of the caller's own, `tokenId` a spare token of the caller's. */
  url: (g: string, ctx: { ownTokenId: string; otherTokenId: string; user: string }) => string;
  body?: (g: string, ctx: { user: string }) => unknown;
  ok?: number;
}

const q = (text: string) => encodeURIComponent(text);
const CASES: Case[] = [
  { name: 'status', minimum: 'Read-Only', method: 'GET', url: () => '/api/status' },
  { name: 'token list', minimum: 'Read-Only', method: 'GET', url: () => '/api/auth/tokens' },
  { name: 'own token read', minimum: 'Read-Only', method: 'GET', url: (_g, c) => `/api/auth/tokens/${c.ownTokenId}` },
  {
    name: 'own token revoke',
    minimum: 'Read-Only',
    method: 'DELETE',
    url: (_g, c) => `/api/auth/tokens/${c.ownTokenId}`,
  },
  { name: 'graph list', minimum: 'Read-Only', method: 'GET', url: () => '/api/graph' },
  { name: 'running queries', minimum: 'Read-Only', method: 'GET', url: () => '/api/queries' },
  {
    name: 'query stream',
    minimum: 'Read-Only',
    method: 'GET',
    url: (g) => `/api/graph/${g}?query=${q('MATCH (n) RETURN n')}&timeout=1000`,
  },
  {
    name: 'explain',
    minimum: 'Read-Only',
    method: 'GET',
    url: (g) => `/api/graph/${g}/explain?query=${q('MATCH (n) RETURN n')}`,
  },
  { name: 'info', minimum: 'Read-Only', method: 'GET', url: (g) => `/api/graph/${g}/info?type=(label)` },
  { name: 'count', minimum: 'Read-Only', method: 'GET', url: (g) => `/api/graph/${g}/count` },
  { name: 'export', minimum: 'Read-Only', method: 'GET', url: (g) => `/api/graph/${g}/export` },
  { name: 'node read', minimum: 'Read-Only', method: 'GET', url: (g) => `/api/graph/${g}/0` },
  { name: 'module version', minimum: 'Read-Only', method: 'GET', url: () => '/api/DBVersion' },
  { name: 'server info', minimum: 'Read-Only', method: 'GET', url: () => '/api/info?section=memory' },
  { name: 'monitor', minimum: 'Read-Only', method: 'GET', url: () => '/api/monitor' },
  { name: 'connection info', minimum: 'Read-Only', method: 'GET', url: () => '/api/connection-info' },
  { name: 'graph memory', minimum: 'Read-Only', method: 'GET', url: (g) => `/api/graph/${g}/memory` },
  { name: 'node count', minimum: 'Read-Only', method: 'GET', url: (g) => `/api/graph/${g}/count/nodes` },
  { name: 'edge count', minimum: 'Read-Only', method: 'GET', url: (g) => `/api/graph/${g}/count/edges` },
  { name: 'graph create', minimum: 'Read-Write', method: 'POST', url: (g) => `/api/graph/${g}-new` },
  { name: 'graph delete', minimum: 'Read-Write', method: 'DELETE', url: (g) => `/api/graph/${g}` },
  {
    name: 'graph rename',
    minimum: 'Read-Write',
    method: 'PATCH',
    url: (g) => `/api/graph/${g}-renamed?sourceName=${g}`,
  },
  {
    name: 'graph duplicate',
    minimum: 'Read-Write',
    method: 'PATCH',
    url: (g) => `/api/graph/${g}-copy/duplicate?sourceName=${g}`,
  },
  {
    name: 'profile',
    minimum: 'Read-Write',
    method: 'GET',
    url: (g) => `/api/graph/${g}/profile?query=${q('MATCH (n) RETURN n')}`,
  },
  {
    name: 'element create',
    minimum: 'Read-Write',
    method: 'POST',
    url: (g) => `/api/graph/${g}/new`,
    body: () => ({ type: true, label: ['Made'] }),
  },
  {
    name: 'node delete',
    minimum: 'Read-Write',
    method: 'DELETE',
    url: (g) => `/api/graph/${g}/0`,
    body: () => ({ type: true }),
  },
  {
    name: 'label add',
    minimum: 'Read-Write',
    method: 'POST',
    url: (g) => `/api/graph/${g}/0/label`,
    body: () => ({ label: 'Extra' }),
  },
  {
    name: 'label remove',
    minimum: 'Read-Write',
    method: 'DELETE',
    url: (g) => `/api/graph/${g}/0/label`,
    body: () => ({ label: 'Seed' }),
  },
  {
    name: 'property set',
    minimum: 'Read-Write',
    method: 'POST',
    url: (g) => `/api/graph/${g}/0/colour`,
    body: () => ({ value: 'red', type: true }),
  },
  {
    name: 'property remove',
    minimum: 'Read-Write',
    method: 'DELETE',
    url: (g) => `/api/graph/${g}/0/name`,
    body: () => ({ type: true }),
  },
  { name: 'config list', minimum: 'Admin', method: 'GET', url: () => '/api/graph/config' },
  { name: 'config read', minimum: 'Admin', method: 'GET', url: () => '/api/graph/config/TIMEOUT' },
  { name: 'config set', minimum: 'Admin', method: 'POST', url: () => '/api/graph/config/MAX_INFO_QUERIES?value=1000' },
  { name: 'user list', minimum: 'Admin', method: 'GET', url: () => '/api/user' },
  { name: 'user read', minimum: 'Admin', method: 'GET', url: () => '/api/user/mx-victim' },
  {
    name: 'user create',
    minimum: 'Admin',
    method: 'POST',
    url: () => '/api/user',
    body: (_g, c) => ({ username: c.user, password: 'pw', role: 'Read-Only' }),
    ok: 201,
  },
  { name: 'user update', minimum: 'Admin', method: 'PATCH', url: () => '/api/user/mx-victim?role=Read-Only' },
  {
    name: 'user delete',
    minimum: 'Admin',
    method: 'DELETE',
    url: () => '/api/user',
    body: (_g, c) => ({ users: [{ username: `${c.user}-del` }] }),
  },
  { name: 'UDF list', minimum: 'Admin', method: 'GET', url: () => '/api/udf' },
  { name: 'UDF flush', minimum: 'Admin', method: 'DELETE', url: () => '/api/udf' },
  {
    name: "another user's token",
    minimum: 'Admin',
    method: 'GET',
    url: (_g, c) => `/api/auth/tokens/${c.otherTokenId}`,
  },
];

let sequence = 0;
async function freshGraph(): Promise<string> {
  const graph = `mx-${++sequence}`;
  await graphQuery(t.falkordb, graph, "CREATE (:Seed {name: 'n0'})-[:LINK]->(:Seed {name: 'n1'})");
  return graph;
}

describe.each(ROLES)('a %s token', (role) => {
  it.each(CASES)('$name', async (c) => {
    const graph = await freshGraph();
    const spare = await createToken(
      t.app,
      credentials(t.falkordb, `mx-${role.toLowerCase()}`, `mx-${role.toLowerCase()}-password`),
    );
    const other = role === 'Read-Only' ? t.tokens['Read-Write'] : t.tokens['Read-Only'];
    const user = `mx-new-${sequence}`;
    const client = await adminClient(t.falkordb);
    await client.sendCommand(['ACL', 'SETUSER', 'mx-victim', 'on', '>pw', '+ping']);
    await client.sendCommand(['ACL', 'SETUSER', `${user}-del`, 'on', '>pw', '+ping']);
    await client.close();
    const ctx = { ownTokenId: decodeJwt(spare).jti!, otherTokenId: decodeJwt(other).jti!, user };

    const before = await databaseSnapshot(t.falkordb);
    const res = await t.app.inject({
      method: c.method,
      url: c.url(graph, ctx),
      headers: bearer(t.tokens[role]),
      ...(c.body ? { payload: c.body(graph, ctx) as never } : {}),
    });
    if (RANK[role] >= RANK[c.minimum]) {
      expect(res.statusCode, res.body).toBe(c.ok ?? 200);
    } else {
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json<{ message: string }>().message).toMatch(/^Forbidden/);
      expect(await databaseSnapshot(t.falkordb)).toEqual(before);
    }
  });
});

describe('FalkorDB ACL as the second line', () => {
  it('turns a NOPERM reply into 403', async () => {
    // A token whose user lost its rights after the token was made: the server's check passes, FalkorDB refuses.
    const client = await adminClient(t.falkordb);
    await client.sendCommand(['ACL', 'SETUSER', 'mx-demoted', 'reset', 'on', '>pw', '~*', '+@all']);
    const token = await createToken(t.app, credentials(t.falkordb, 'mx-demoted', 'pw'));
    await client.sendCommand(['ACL', 'SETUSER', 'mx-demoted', '-@all', '+ping', '+graph.list', '+graph.ro_query']);
    await client.close();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/graph/config/TIMEOUT?value=0',
      headers: bearer(token),
    });
    expect(res.statusCode).toBe(403);
    expect(res.json<{ message: string }>().message).toMatch(/^NOPERM/);
  });
});
