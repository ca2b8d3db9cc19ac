// After an accepted write, puts the fixture back the way the next cases expect it: the seeded graphs, the database
// users and their rules, GRAPH.CONFIG values, a live victim token and victim admin user, and no leftovers
// (graphs, users, OpsRequests) that would make each later snapshot slower.
import { createToken, credentials } from '../browser.js';
import { createVictimAdmin, DB_USERS, GRAPH_SEEDS, seedGraph, tokenIdOf, type FuzzFixture } from './fixture.js';
import { OPS_V1 } from '../kube/kubeblocks-fixtures.js';
import { eventually } from '../wait.js';

export interface Baseline {
  graphs: string[];
  graphContent: Record<string, unknown>;
  /** `ACL LIST` line per user name. */
  acl: Map<string, string>;
  config: Map<string, unknown>;
  adminUserIds: Set<string>;
}

const CONTENT_QUERY =
  'MATCH (n) OPTIONAL MATCH (n)-[r]->(m) RETURN ID(n), labels(n), properties(n), ID(r), type(r), properties(r), ID(m) ORDER BY ID(n), ID(r)';
const PASSWORDS: Record<string, string> = {
  [DB_USERS.admin]: `${DB_USERS.admin}-password`,
  [DB_USERS.reader]: `${DB_USERS.reader}-password`,
  [DB_USERS.victim]: `${DB_USERS.victim}-password`,
};

async function graphContent(fixture: FuzzFixture, graph: string): Promise<unknown> {
  const reply = await fixture.redis.sendCommand<unknown[]>(['GRAPH.RO_QUERY', graph, CONTENT_QUERY]);
  return reply[1];
}

async function aclLines(fixture: FuzzFixture): Promise<Map<string, string>> {
  const lines = await fixture.redis.sendCommand<string[]>(['ACL', 'LIST']);
  return new Map(lines.map((line) => [line.split(' ')[1] ?? '', line]));
}

async function configValues(fixture: FuzzFixture): Promise<Map<string, unknown>> {
  const pairs = await fixture.redis.sendCommand<[string, unknown][]>(['GRAPH.CONFIG', 'GET', '*']);
  return new Map(pairs.map(([name, value]) => [name, value]));
}

async function adminUserIds(fixture: FuzzFixture): Promise<string[]> {
  const res = await fixture.t.app.inject({
    method: 'GET',
    url: '/api/users/?limit=100',
    headers: { cookie: fixture.credentials.cookie },
  });
  if (res.statusCode !== 200)
    throw new Error(`the fuzzer's admin session no longer works: ${res.statusCode} ${res.body}`);
  // Admin users are named by e-mail.
  return res.json<{ users: { email: string }[] }>().users.map((user) => user.email);
}

export async function captureBaseline(fixture: FuzzFixture): Promise<Baseline> {
  const graphs = Object.keys(GRAPH_SEEDS);
  return {
    graphs,
    graphContent: Object.fromEntries(
      await Promise.all(graphs.map(async (graph) => [graph, await graphContent(fixture, graph)] as const)),
    ),
    acl: await aclLines(fixture),
    config: await configValues(fixture),
    adminUserIds: new Set(await adminUserIds(fixture)),
  };
}

/** GRAPH.DELETE may answer before the key is gone; seeding a graph of the same name before then writes into the dying one. */
async function deleteGraphs(fixture: FuzzFixture, graphs: string[]): Promise<void> {
  if (graphs.length === 0) return;
  for (const graph of graphs) await fixture.redis.sendCommand(['GRAPH.DELETE', graph]);
  let left: string[] = [];
  await eventually(
    async () => {
      left = (await fixture.redis.sendCommand<string[]>(['GRAPH.LIST'])).filter((graph) => graphs.includes(graph));
      return left.length === 0;
    },
    10_000,
    { intervalMs: 20, detail: () => `graphs still listed 10 s after GRAPH.DELETE: ${left.join(', ')}` },
  );
}

async function repairGraphs(fixture: FuzzFixture, baseline: Baseline): Promise<void> {
  const graphs = await fixture.redis.sendCommand<string[]>(['GRAPH.LIST']);
  const changed: string[] = [];
  for (const graph of baseline.graphs) {
    if (
      graphs.includes(graph) &&
      JSON.stringify(await graphContent(fixture, graph)) !== JSON.stringify(baseline.graphContent[graph])
    )
      changed.push(graph);
  }
  await deleteGraphs(fixture, [...graphs.filter((graph) => !baseline.graphs.includes(graph)), ...changed]);
  for (const graph of baseline.graphs) {
    if (!graphs.includes(graph) || changed.includes(graph)) await seedGraph(fixture.redis, graph);
  }
}

async function repairUsers(fixture: FuzzFixture, baseline: Baseline): Promise<void> {
  const current = await aclLines(fixture);
  for (const [name, line] of current) {
    if (!baseline.acl.has(name)) await fixture.redis.sendCommand(['ACL', 'DELUSER', name]);
    else if (baseline.acl.get(name) !== line) await restoreUser(fixture, name, baseline.acl.get(name)!);
  }
  for (const [name, line] of baseline.acl) if (!current.has(name)) await restoreUser(fixture, name, line);
}

/** Re-creates a user from its `ACL LIST` line; the line carries password hashes (`#<sha256>`), which ACL SETUSER accepts. */
async function restoreUser(fixture: FuzzFixture, name: string, line: string): Promise<void> {
  const rules = line.split(' ').slice(2);
  await fixture.redis.sendCommand(['ACL', 'SETUSER', name, 'reset', ...rules]);
}

async function repairConfig(fixture: FuzzFixture, baseline: Baseline): Promise<void> {
  const current = await configValues(fixture);
  for (const [name, value] of baseline.config) {
    if (JSON.stringify(current.get(name)) === JSON.stringify(value)) continue;
    const text = name === 'CMD_INFO' ? (String(value) === '1' ? 'yes' : 'no') : String(value);
    await fixture.redis.sendCommand(['GRAPH.CONFIG', 'SET', name, text]);
  }
}

async function tokenIsLive(fixture: FuzzFixture, tokenId: string): Promise<boolean> {
  const fields = await fixture.redis.hGetAll(`graphdb:token:${tokenId}`);
  return Boolean(fields.token_id) && !fields.revoked_at;
}

async function repairTokens(fixture: FuzzFixture): Promise<void> {
  const { refs, credentials: creds, t } = fixture;
  const fresh = async (user: string) =>
    createToken(t.app, credentials(t.falkordb, user, PASSWORDS[user]!, { name: `fuzz ${user}` }));
  if (!(await tokenIsLive(fixture, refs.victimTokenId))) refs.victimTokenId = tokenIdOf(await fresh(DB_USERS.victim));
  if (!(await tokenIsLive(fixture, refs.adminTokenId))) {
    creds.bearer = await fresh(DB_USERS.admin);
    refs.adminTokenId = tokenIdOf(creds.bearer);
  }
  if (!(await tokenIsLive(fixture, refs.readerTokenId))) {
    creds.lesserBearer = await fresh(DB_USERS.reader);
    refs.readerTokenId = tokenIdOf(creds.lesserBearer);
  }
}

export async function repairDatabase(fixture: FuzzFixture, baseline: Baseline): Promise<void> {
  await repairGraphs(fixture, baseline);
  await repairUsers(fixture, baseline);
  await repairConfig(fixture, baseline);
  await repairTokens(fixture);
}

export async function repairAdmin(fixture: FuzzFixture, baseline: Baseline): Promise<void> {
  const kube = fixture.t.kube!;
  for (const ops of kube.list(OPS_V1)) kube.remove(OPS_V1, ops.metadata.namespace ?? '', ops.metadata.name ?? '');
  const ids = await adminUserIds(fixture);
  for (const id of ids) {
    if (baseline.adminUserIds.has(id)) continue;
    const res = await fixture.t.app.inject({
      method: 'DELETE',
      url: `/api/users/${encodeURIComponent(id)}`,
      headers: { cookie: fixture.credentials.cookie },
    });
    if (res.statusCode !== 204) throw new Error(`cannot remove admin user ${id}: ${res.body}`);
  }
  if (!ids.includes(fixture.refs.victimAdminUserId)) {
    fixture.refs.victimAdminUserId = await createVictimAdmin(fixture);
    baseline.adminUserIds.add(fixture.refs.victimAdminUserId);
  }
}
