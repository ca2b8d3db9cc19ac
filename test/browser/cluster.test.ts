// A sharded FalkorDB cluster behind the browser API: three real primaries and a replica on loopback
// (Valkey with the module, --cluster-enabled yes). Tokens name one node; the slot map is read from it; each graph is
// served by the primary of its key's slot, the graph list asks every primary, users and configuration go to every
// node, and a slot that moves (MOVED, ASK) is followed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keySlot } from '../../src/lib/cluster-slots.js';
import { listen, startTestApp, type TestApp } from '../support/app.js';
import { bearer, parseEvents, RULES, stageUpload } from '../support/browser.js';
import { missingWrites, startFailoverWriters } from '../support/failover-writers.js';
import { eventually } from '../support/wait.js';
import { startClusterGroup, type ClusterGroup, type ClusterNodeProcess } from '../support/cluster-group.js';

const HOST = '127.0.0.1';
/**
 * The roles' users as an operator creates them; a cluster token needs CLUSTER SLOTS to find the shards and ASKING to
 * follow a slot being migrated; the writer may WAIT (a write is answered once its shard's replica has it).
 */
const ROLES = {
  admin: RULES.Admin,
  writer: [...RULES['Read-Write'], '+cluster|slots', '+asking', '+wait'],
  reader: [...RULES['Read-Only'], '+cluster|slots', '+asking'],
};
const SHARD_RANGES: [number, number][] = [
  [0, 5460],
  [5461, 10922],
  [10923, 16383],
];

let group: ClusterGroup;
let t: TestApp;
const tokens: Record<keyof typeof ROLES, string> = { admin: '', writer: '', reader: '' };

/** The first name `<prefix><n>` whose slot is on shard `shard` (as the group splits the slots). */
function nameOnShard(prefix: string, shard: number): string {
  const [start, end] = SHARD_RANGES[shard]!;
  for (let n = 0; ; n++) {
    const slot = keySlot(`${prefix}${n}`);
    if (slot >= start && slot <= end) return `${prefix}${n}`;
  }
}

async function onEveryNode(args: string[]): Promise<void> {
  for (const node of group.nodes) await group.on(node.port, args);
}

function tokenBody(username: string, extra: Record<string, unknown> = {}) {
  return {
    username,
    password: `${username}-password`,
    host: HOST,
    port: String(group.primaries[1]!.port),
    tls: 'false',
    topology: 'cluster',
    seeds: [`${HOST}:${group.primaries[0]!.port}`],
    ...extra,
  };
}

const createToken = (body: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/auth/tokens/credentials', payload: body });

const query = (token: string, graph: string, cypher: string, accept = 'application/json') =>
  t.app.inject({
    method: 'GET',
    url: `/api/graph/${encodeURIComponent(graph)}?query=${encodeURIComponent(cypher)}&timeout=10000`,
    headers: { ...bearer(token), accept },
  });

const graphsOn = (node: ClusterNodeProcess) => group.on<string[]>(node.port, ['GRAPH.LIST']);

/** Stages `content` as `filename` through POST /api/upload. */
const stageFile = (token: string, filename: string, content: Buffer) => stageUpload(t.app, token, filename, content);

beforeAll(async () => {
  group = await startClusterGroup();
  // Tokens live in the app's own FalkorDB (the token store); the graphs live in the cluster.
  // Started here rather than with useBrowserApp: the tokens are for the users made on the data nodes, and the close
  // below cuts the app's open streams before the nodes stop.
  t = await startTestApp({ env: { SENTINEL_WRITE_ACK_MS: '2000' } });
  for (const [name, rules] of Object.entries(ROLES))
    await onEveryNode(['ACL', 'SETUSER', name, 'reset', ...rules, `>${name}-password`]);
  for (const name of Object.keys(ROLES) as (keyof typeof ROLES)[]) {
    const res = await createToken(tokenBody(name));
    expect(res.statusCode, res.body).toBe(200);
    tokens[name] = res.json<{ token: string }>().token;
  }
}, 90_000);
afterAll(async () => {
  try {
    await t?.close();
  } finally {
    // The nodes are child processes: never left behind, whatever the app's close did.
    await group?.stop();
  }
});

describe('tokens for a sharded cluster', () => {
  it('record the topology; status and connection info report it with the shards', async () => {
    const listed = await t.app.inject({ method: 'GET', url: '/api/auth/tokens', headers: bearer(tokens.admin) });
    expect(listed.statusCode, listed.body).toBe(200);
    const mine = listed.json<{ tokens: { username: string; topology: string; role: string }[] }>().tokens;
    expect(mine.find((token) => token.username === 'admin')).toMatchObject({ topology: 'cluster', role: 'Admin' });
    expect(mine.find((token) => token.username === 'reader')).toMatchObject({ role: 'Read-Only' });
    expect(mine.find((token) => token.username === 'writer')).toMatchObject({ role: 'Read-Write' });

    const status = await t.app.inject({ method: 'GET', url: '/api/status', headers: bearer(tokens.reader) });
    expect(status.json()).toEqual({ status: 'online', topology: 'cluster' });

    const info = await t.app.inject({ method: 'GET', url: '/api/connection-info', headers: bearer(tokens.admin) });
    expect(info.statusCode, info.body).toBe(200);
    const result = info.json<{ result: { topology: string; clusterEnabled: boolean; shards: unknown[] } }>().result;
    expect(result.topology).toBe('cluster');
    expect(result.clusterEnabled).toBe(true);
    const address = (node: ClusterNodeProcess) => `${node.host}:${node.port}`;
    expect(result.shards).toEqual([
      { primary: address(group.primaries[0]!), replicas: [address(group.replica)] },
      { primary: address(group.primaries[1]!), replicas: [] },
      { primary: address(group.primaries[2]!), replicas: [] },
    ]);
  });

  it('checks the credentials on every primary, and says when the user cannot read the slot map', async () => {
    expect((await createToken(tokenBody('admin', { password: 'wrong' }))).statusCode).toBe(401);
    // A user that exists on the seed only could not reach two of the three shards.
    await group.on(group.primaries[1]!.port, ['ACL', 'SETUSER', 'lonely', 'on', '>lonely-password', '+@all', '~*']);
    expect((await createToken(tokenBody('lonely'))).statusCode).toBe(401);

    await onEveryNode(['ACL', 'SETUSER', 'noslots', 'reset', ...RULES['Read-Only'], '>noslots-password']);
    const refused = await createToken(tokenBody('noslots'));
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json<{ message: string }>().message).toMatch(/CLUSTER SLOTS.*grant \+cluster\|slots/);

    for (const [body, message] of [
      [tokenBody('admin', { topology: 'single' }), 'seeds apply only to topology cluster'],
      [tokenBody('admin', { masterName: 'graphs' }), 'masterName and sentinels apply only to topology sentinel'],
    ] as const) {
      const res = await createToken(body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json<{ message: string }>().message).toBe(message);
    }
    const outside = await createToken(tokenBody('admin', { host: '169.254.169.254', seeds: [] }));
    expect(outside.statusCode, outside.body).toBe(400);
    expect(outside.json<{ message: string }>().message).toMatch(/not allowed on this server/);
  });
});

describe('graphs on their shards', () => {
  const graphs = [nameOnShard('shard-a-', 0), nameOnShard('shard-b-', 1), nameOnShard('shard-c-', 2)];

  it('writes each graph on the primary of its slot and lists every shard', async () => {
    for (const graph of graphs) {
      const created = await query(
        tokens.writer,
        graph,
        "CREATE (:Person {name: 'Ada'})-[:KNOWS]->(:Person {name: 'Alan'})",
      );
      expect(created.statusCode, created.body).toBe(200);
    }
    for (const [shard, graph] of graphs.entries()) {
      expect(await graphsOn(group.primaries[shard]!)).toContain(graph);
      for (const other of group.primaries.filter((_node, index) => index !== shard))
        expect(await graphsOn(other)).not.toContain(graph);
    }
    // The replica of shard 0 has its graph too.
    expect(
      await group.on<string[]>(group.replica.port, ['GRAPH.LIST']).then((listed) => listed.includes(graphs[0]!)),
    ).toBe(true);

    const listed = await t.app.inject({ method: 'GET', url: '/api/graph', headers: bearer(tokens.reader) });
    expect(listed.statusCode, listed.body).toBe(200);
    for (const graph of graphs) expect(JSON.stringify(listed.json())).toContain(graph);
  });

  it('routes queries, streams, counts, exports and node calls to the shard of the graph', async () => {
    for (const graph of graphs) {
      const read = await query(tokens.reader, graph, 'MATCH (p:Person) RETURN p.name AS name ORDER BY name');
      expect(read.statusCode, read.body).toBe(200);
      expect(read.json<{ data: unknown[] }>().data).toEqual([{ name: 'Ada' }, { name: 'Alan' }]);

      const streamed = await query(
        tokens.reader,
        graph,
        'MATCH (p:Person) RETURN p ORDER BY p.name',
        'text/event-stream',
      );
      expect(streamed.statusCode, streamed.body).toBe(200);
      const result = parseEvents(streamed.body).find((event) => event.event === 'result');
      expect(JSON.stringify(result?.data)).toContain('"labels":["Person"]');

      const count = await t.app.inject({
        method: 'GET',
        url: `/api/graph/${graph}/count/nodes`,
        headers: bearer(tokens.reader),
      });
      expect(count.json()).toEqual({ result: { nodes: 2 } });

      const exported = await t.app.inject({
        method: 'GET',
        url: `/api/graph/${graph}/export`,
        headers: bearer(tokens.reader),
      });
      expect(exported.statusCode).toBe(200);
      expect(exported.rawPayload.length).toBeGreaterThan(20);

      const label = await t.app.inject({
        method: 'POST',
        url: `/api/graph/${graph}/0/label`,
        headers: bearer(tokens.writer),
        payload: { label: 'Mathematician' },
      });
      expect(label.statusCode, label.body).toBe(200);
      const property = await t.app.inject({
        method: 'POST',
        url: `/api/graph/${graph}/0/born`,
        headers: bearer(tokens.writer),
        payload: { value: 1815, type: true },
      });
      expect(property.statusCode, property.body).toBe(200);
      const node = await t.app.inject({ method: 'GET', url: `/api/graph/${graph}/0`, headers: bearer(tokens.reader) });
      expect(node.statusCode, node.body).toBe(200);
      expect(node.json<{ result: { data: { node: unknown }[] } }>().result.data[0]!.node).toEqual({
        id: 0,
        labels: ['Person', 'Mathematician'],
        properties: { name: 'Ada', born: 1815 },
      });
    }
    // Stored on the graph's own shard.
    const stored = await group.on<unknown[]>(group.primaries[2]!.port, [
      'GRAPH.RO_QUERY',
      graphs[2]!,
      'MATCH (n:Mathematician) RETURN n.born',
    ]);
    expect(stored[1]).toEqual([[1815]]);
  });

  it("reads a graph's memory on its shard, and lists a query running on any shard in the monitor", async () => {
    const graph = graphs[2]!;
    const memory = await t.app.inject({
      method: 'GET',
      url: `/api/graph/${graph}/memory`,
      headers: bearer(tokens.reader),
    });
    expect(memory.statusCode, memory.body).toBe(200);
    expect(memory.json<{ result: unknown[] }>().result).toContain('total_graph_sz_mb');

    // A slow query straight on the third shard: the monitor asks every primary, not only the first.
    const slow = group.on(group.primaries[2]!.port, [
      'GRAPH.QUERY',
      graph,
      "UNWIND range(1, 40000000) AS x WITH x WHERE x = -1 RETURN 'on-the-third-shard' AS s",
    ]);
    try {
      await eventually(async () => {
        const res = await t.app.inject({ method: 'GET', url: '/api/monitor', headers: bearer(tokens.admin) });
        return JSON.stringify(res.json<{ runningQueries: unknown[] }>().runningQueries).includes('on-the-third-shard');
      }, 10_000);
    } finally {
      await slow;
    }
  }, 30_000);

  it('renames and copies within a slot; across slots refuses with a name that would work, and changes nothing', async () => {
    const [source] = graphs;
    const copy = `{${source}}copy`;
    const duplicated = await t.app.inject({
      method: 'PATCH',
      url: `/api/graph/${encodeURIComponent(copy)}/duplicate?sourceName=${source}`,
      headers: bearer(tokens.writer),
    });
    expect(duplicated.statusCode, duplicated.body).toBe(200);
    expect(await graphsOn(group.primaries[0]!)).toEqual(expect.arrayContaining([source, copy]));

    const renamedTo = `{${source}}renamed`;
    const renamed = await t.app.inject({
      method: 'PATCH',
      url: `/api/graph/${encodeURIComponent(renamedTo)}?sourceName=${encodeURIComponent(copy)}`,
      headers: bearer(tokens.writer),
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const onShard = await graphsOn(group.primaries[0]!);
    expect(onShard).toContain(renamedTo);
    expect(onShard).not.toContain(copy);

    const elsewhere = nameOnShard('elsewhere-', 2);
    const before = await Promise.all(group.primaries.map(graphsOn));
    for (const url of [
      `/api/graph/${elsewhere}/duplicate?sourceName=${source}`,
      `/api/graph/${elsewhere}?sourceName=${source}`,
    ]) {
      const res = await t.app.inject({ method: 'PATCH', url, headers: bearer(tokens.writer) });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json<{ message: string }>().message).toContain(
        `hash to different slots (${keySlot(source!)} and ${keySlot(elsewhere)})`,
      );
      expect(res.json<{ message: string }>().message).toContain(`{${source}}${elsewhere}`);
    }
    expect(await Promise.all(group.primaries.map(graphsOn))).toEqual(before);
  });

  it('deletes a graph from its shard', async () => {
    const graph = graphs[1]!;
    const res = await t.app.inject({ method: 'DELETE', url: `/api/graph/${graph}`, headers: bearer(tokens.writer) });
    expect(res.statusCode, res.body).toBe(200);
    expect(await graphsOn(group.primaries[1]!)).not.toContain(graph);
  });
});

describe('restoring an export in a cluster', () => {
  it('restores into the name of a graph just deleted, on its shard, once no node of the cluster lists it', async () => {
    // On the shard with the replica: the restore asks the primaries and the replica whether the name is let go of.
    const graph = nameOnShard('restored-', 0);
    expect((await query(tokens.writer, graph, "CREATE (:P {name: 'kept'})")).statusCode).toBe(200);
    const exported = await t.app.inject({
      method: 'GET',
      url: `/api/graph/${graph}/export`,
      headers: bearer(tokens.admin),
    });
    expect(exported.statusCode, exported.body).toBe(200);
    const fileId = await stageFile(tokens.writer, `${graph}.dump`, exported.rawPayload);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/graph/${graph}`,
      headers: bearer(tokens.writer),
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    const restored = await t.app.inject({
      method: 'POST',
      url: `/api/graph/${graph}/upload`,
      payload: { fileId },
      headers: bearer(tokens.writer),
    });
    expect([restored.statusCode, restored.json()]).toEqual([
      200,
      { message: `Restored graph ${graph} from ${graph}.dump` },
    ]);
    expect(await graphsOn(group.primaries[0]!)).toContain(graph);
    const read = await query(tokens.reader, graph, 'MATCH (p:P) RETURN p.name');
    expect(read.statusCode, read.body).toBe(200);
    expect(read.body).toContain('kept');
    // The replica replays the delete and the restore in turn, and ends with the restored graph.
    await eventually(async () => (await graphsOn(group.replica)).includes(graph), 10_000);
  });
});

describe('what the cluster does not share between nodes', () => {
  it('creates users, loads functions and sets configuration on every node', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/user',
      headers: bearer(tokens.admin),
      payload: { username: 'analyst', password: 'analyst-password-1', role: 'Read-Only' },
    });
    expect(created.statusCode, created.body).toBe(201);
    for (const node of group.nodes)
      expect(await group.on<string[]>(node.port, ['ACL', 'USERS']), `node ${node.port}`).toContain('analyst');
    // A user created here may read the slot map, so its cluster token works.
    const token = await createToken({ ...tokenBody('analyst'), password: 'analyst-password-1' });
    expect(token.statusCode, token.body).toBe(200);

    const set = await t.app.inject({
      method: 'POST',
      url: '/api/graph/config/RESULTSET_SIZE?value=4000',
      headers: bearer(tokens.admin),
    });
    expect(set.statusCode, set.body).toBe(200);
    for (const node of group.nodes)
      expect((await group.on<[string, number]>(node.port, ['GRAPH.CONFIG', 'GET', 'RESULTSET_SIZE']))[1]).toBe(4000);

    const code = "function twice(a) { return a * 2; } falkor.register('twice', twice);";
    const loaded = await t.app.inject({
      method: 'POST',
      url: '/api/udf/cluster_math',
      headers: bearer(tokens.admin),
      payload: { code },
    });
    expect(loaded.statusCode, loaded.body).toBe(200);
    for (const node of group.primaries)
      expect(JSON.stringify(await group.on(node.port, ['GRAPH.UDF', 'LIST']))).toContain('cluster_math');
    // A graph on any shard can call it (created first: a read never creates a graph).
    const onThirdShard = nameOnShard('udf-', 2);
    expect((await query(tokens.writer, onThirdShard, 'CREATE (:Seed)')).statusCode).toBe(200);
    const called = await query(tokens.writer, onThirdShard, 'RETURN cluster_math.twice(21) AS n');
    expect(called.statusCode, called.body).toBe(200);
    expect(called.json<{ data: unknown[] }>().data).toEqual([{ n: 42 }]);
  });

  it('reports the nodes a change did not reach, and keeps it on the others', async () => {
    group.replica.process.kill('SIGSTOP');
    try {
      const partial = await t.app.inject({
        method: 'POST',
        url: '/api/user',
        headers: bearer(tokens.admin),
        payload: { username: 'partial', password: 'partial-password-1', role: 'Read-Only' },
      });
      expect(partial.statusCode, partial.body).toBe(503);
      expect(partial.json<{ message: string }>().message).toMatch(
        new RegExp(`^Applied on 3 of 4 cluster nodes; not on 127\\.0\\.0\\.1:${group.replica.port} \\(`),
      );
      for (const node of group.primaries)
        expect(await group.on<string[]>(node.port, ['ACL', 'USERS'])).toContain('partial');
    } finally {
      group.replica.process.kill('SIGCONT');
    }
  }, 30_000);
});

describe('a slot that moves', () => {
  it('follows ASK while the slot migrates and MOVED once it has moved, for reads and writes', async () => {
    const graph = nameOnShard('moving-', 0);
    const target = group.primaries[2]!;
    expect((await query(tokens.writer, graph, 'CREATE (:Step {n: 1})')).statusCode).toBe(200);

    await group.beginMigration(graph, target);
    // The old owner no longer has the key and answers ASK; the new one serves it after ASKING.
    expect(await graphsOn(group.primaries[0]!)).not.toContain(graph);
    const during = await query(tokens.writer, graph, 'CREATE (:Step {n: 2})');
    expect(during.statusCode, during.body).toBe(200);
    const readDuring = await query(tokens.reader, graph, 'MATCH (s:Step) RETURN count(s) AS n');
    expect(readDuring.json<{ data: unknown[] }>().data).toEqual([{ n: 2 }]);

    await group.finishMigration(graph, target);
    const after = await query(tokens.writer, graph, 'CREATE (:Step {n: 3})');
    expect(after.statusCode, after.body).toBe(200);
    const stored = await group.on<unknown[]>(target.port, [
      'GRAPH.RO_QUERY',
      graph,
      'MATCH (s:Step) RETURN s.n ORDER BY s.n',
    ]);
    expect(stored[1]).toEqual([[1], [2], [3]]);
    const listed = await t.app.inject({ method: 'GET', url: '/api/graph', headers: bearer(tokens.reader) });
    expect(JSON.stringify(listed.json())).toContain(graph);
  }, 30_000);
});

describe('a failover of a shard under load', () => {
  it('follows the promoted replica; every client recovers; no write acknowledged before the kill is missing', async () => {
    const base = await listen(t.app);
    const graph = nameOnShard('failover-', 0);
    const writers = startFailoverWriters(10, async (client, seq) => {
      const cypher = `CREATE (:W {client: ${client}, seq: ${seq}})`;
      const res = await fetch(`${base}/api/graph/${graph}?timeout=10000&query=${encodeURIComponent(cypher)}`, {
        headers: { ...bearer(tokens.writer), accept: 'application/json' },
      });
      await res.text();
      return res.status;
    });
    await eventually(() => writers.acknowledged.every((seqs) => seqs.length >= 3), 10_000);
    writers.markKilled();
    group.primaries[0]!.process.kill('SIGKILL');
    await eventually(
      async () => (await group.on<string>(group.replica.port, ['INFO', 'replication'])).includes('role:master'),
      30_000,
      100,
    );
    writers.markPromoted();
    await eventually(() => writers.recoveredAt.every((at) => at > 0), 15_000, 50);
    await writers.stop();
    const lastRecovery = Math.max(...writers.recoveredAt);
    // eslint-disable-next-line no-console -- the measured failover times, for the closing note and the decisions
    console.log(
      `cluster failover: promoted ${writers.promotedAt() - writers.killedAt()} ms after the kill; every client writing ${lastRecovery - writers.killedAt()} ms after it`,
    );
    expect(lastRecovery - writers.promotedAt()).toBeLessThan(5000);

    // Every acknowledged write is on the promoted replica: each was confirmed by it before it was answered.
    const stored = await group.on<unknown[]>(group.replica.port, [
      'GRAPH.RO_QUERY',
      graph,
      'MATCH (w:W) RETURN w.client, w.seq',
    ]);
    expect(missingWrites(writers.acknowledged, stored[1] as [number, number][])).toEqual([]);
    // The graph list still covers every shard.
    const listed = await t.app.inject({ method: 'GET', url: '/api/graph', headers: bearer(tokens.reader) });
    expect(listed.statusCode, listed.body).toBe(200);
    expect(JSON.stringify(listed.json())).toContain(graph);
  }, 90_000);
});
