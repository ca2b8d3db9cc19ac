// Sentinel behind the browser API: a real FalkorDB primary, a replica and three sentinels on loopback.
// Tokens name a sentinel and the master name; every connection asks the sentinels where the primary is, so a
// failover keeps every token, and a write is answered only once a replica has it, so the failover loses none that
// was acknowledged.
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, startTestApp, type TestApp } from '../support/app.js';
import { bearer, RULES, stageUpload } from '../support/browser.js';
import { startSentinelGroup, type SentinelGroup } from '../support/sentinel-group.js';
import { missingWrites, startFailoverWriters } from '../support/failover-writers.js';
import { eventually } from '../support/wait.js';

const HOST = '127.0.0.1';
/** The suites' role users; the writer may also WAIT (the replica confirmation), the reader shows the INFO fallback. */
const ROLES = {
  admin: RULES.Admin,
  writer: [...RULES['Read-Write'], '+wait'],
  reader: RULES['Read-Only'],
};

let group: SentinelGroup;
let t: TestApp;
let base: string;
const tokens: Record<keyof typeof ROLES, string> = { admin: '', writer: '', reader: '' };

/** ACL users are not replicated: each data node gets them, as an operator of a Sentinel deployment does. */
async function onEveryDataNode(args: string[]): Promise<void> {
  for (const node of group.dataNodes) {
    const client = createClient({ socket: { host: HOST, port: node.port } });
    await client.connect();
    try {
      await client.sendCommand(args);
    } finally {
      client.destroy();
    }
  }
}

function tokenBody(username: string, extra: Record<string, unknown> = {}) {
  return {
    username,
    password: `${username}-password`,
    host: HOST,
    port: String(group.sentinels[0]!.port),
    tls: 'false',
    topology: 'sentinel',
    masterName: group.masterName,
    sentinels: group.sentinels.slice(1).map((sentinel) => `${HOST}:${sentinel.port}`),
    ...extra,
  };
}

async function readOnNode(port: number, graph: string, query: string): Promise<unknown[]> {
  const client = createClient({ socket: { host: HOST, port } });
  await client.connect();
  try {
    const reply = await client.sendCommand<unknown[]>(['GRAPH.RO_QUERY', graph, query]);
    return reply[1] as unknown[];
  } finally {
    client.destroy();
  }
}

/** Stages `content` as `filename` through POST /api/upload. */
const stageFile = (token: string, filename: string, content: Buffer) => stageUpload(t.app, token, filename, content);

const query = (token: string, graph: string, cypher: string) =>
  t.app.inject({
    method: 'GET',
    url: `/api/graph/${graph}?query=${encodeURIComponent(cypher)}&timeout=10000`,
    headers: { ...bearer(token), accept: 'application/json' },
  });

beforeAll(async () => {
  group = await startSentinelGroup();
  // Tokens live in the app's own FalkorDB (the token store); the graphs live behind the sentinels.
  // Started here rather than with useBrowserApp: the tokens are for the users made on the data nodes, and the close
  // below cuts the app's open streams before the nodes stop.
  t = await startTestApp({ env: { SENTINEL_WRITE_ACK_MS: '2000', SENTINEL_READ_REPLICAS: 'true' } });
  for (const [name, rules] of Object.entries(ROLES))
    await onEveryDataNode(['ACL', 'SETUSER', name, 'reset', ...rules, `>${name}-password`]);
  for (const name of Object.keys(ROLES) as (keyof typeof ROLES)[]) {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/tokens/credentials', payload: tokenBody(name) });
    expect(res.statusCode, res.body).toBe(200);
    tokens[name] = res.json<{ token: string }>().token;
  }
  base = await listen(t.app);
}, 60_000);
afterAll(async () => {
  try {
    t?.app.server.closeAllConnections();
    await t?.close();
  } finally {
    // The data nodes and sentinels are child processes: never left behind, whatever the app's close did.
    await group?.stop();
  }
});

describe('tokens through Sentinel', () => {
  it('record the topology, and are checked against the primary the sentinels name', async () => {
    const listed = await t.app.inject({ method: 'GET', url: '/api/auth/tokens', headers: bearer(tokens.admin) });
    expect(listed.statusCode, listed.body).toBe(200);
    const mine = listed.json<{ tokens: { username: string; topology: string; masterName?: string }[] }>().tokens;
    expect(mine.find((token) => token.username === 'admin')).toMatchObject({
      topology: 'sentinel',
      masterName: group.masterName,
      role: 'Admin',
    });
    expect(mine.find((token) => token.username === 'reader')).toMatchObject({ role: 'Read-Only' });
    const status = await t.app.inject({ method: 'GET', url: '/api/status', headers: bearer(tokens.reader) });
    expect(status.json()).toEqual({ status: 'online', topology: 'sentinel', masterName: group.masterName });
    const info = await t.app.inject({ method: 'GET', url: '/api/connection-info', headers: bearer(tokens.admin) });
    expect(info.json<{ result: unknown }>().result).toMatchObject({
      role: 'master',
      topology: 'sentinel',
      masterName: group.masterName,
    });

    // A master name no sentinel knows, and a wrong password, are the same 401 as any failed credential check.
    for (const body of [tokenBody('admin', { masterName: 'nobody' }), tokenBody('admin', { password: 'wrong' })]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/auth/tokens/credentials', payload: body });
      expect(res.statusCode, res.body).toBe(401);
    }
    for (const [body, message] of [
      [{ ...tokenBody('admin'), topology: undefined }, 'masterName and sentinels apply only to topology sentinel'],
      [tokenBody('admin', { masterName: undefined }), 'masterName is required for topology sentinel'],
    ] as const) {
      const res = await t.app.inject({ method: 'POST', url: '/api/auth/tokens/credentials', payload: body });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json<{ message: string }>().message).toBe(message);
    }
  });

  it('refuses a sentinel outside DATABASE_HOSTS before any connection', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/tokens/credentials',
      payload: tokenBody('admin', { host: '169.254.169.254', sentinels: [] }),
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json<{ message: string }>().message).toMatch(/not allowed on this server/);
  });

  it('run graph, query and count scenarios on the primary; a write is on the replica when it is answered', async () => {
    const created = await query(tokens.writer, 'people', "CREATE (:Person {name: 'Ada'}), (:Person {name: 'Alan'})");
    expect(created.statusCode, created.body).toBe(200);
    // Answered only after WAIT 1: the replica already holds it.
    const primary = await group.primaryPort();
    const other = group.dataNodes.find((node) => node.port !== primary)!;
    expect(await readOnNode(other.port, 'people', 'MATCH (p:Person) RETURN p.name ORDER BY p.name')).toEqual([
      ['Ada'],
      ['Alan'],
    ]);
    const graphs = await t.app.inject({ method: 'GET', url: '/api/graph', headers: bearer(tokens.reader) });
    expect(graphs.statusCode, graphs.body).toBe(200);
    expect(JSON.stringify(graphs.json())).toContain('people');
    const read = await query(tokens.reader, 'people', 'MATCH (p:Person) RETURN count(p) AS n');
    expect(read.statusCode, read.body).toBe(200);
    expect(read.body).toContain('2');
    // SENTINEL_READ_REPLICAS: the Read-Only token is served by the replica, the others by the primary.
    const connectedUsers = async (port: number) => {
      const client = createClient({ socket: { host: HOST, port } });
      await client.connect();
      try {
        return [...(await client.sendCommand<string>(['CLIENT', 'LIST'])).matchAll(/ user=(\S+)/g)].map((m) => m[1]);
      } finally {
        client.destroy();
      }
    };
    expect(await connectedUsers(other.port)).toContain('reader');
    expect(await connectedUsers(other.port)).not.toContain('writer');
    expect(await connectedUsers(primary)).toContain('writer');
    const refused = await query(tokens.reader, 'people', 'CREATE (:Person)');
    expect(refused.statusCode).toBeGreaterThanOrEqual(400);
    expect(refused.statusCode).toBeLessThan(500);
  });
});

describe('restoring an export through Sentinel', () => {
  it('restores into the name of a graph just deleted, once neither the primary nor the replica lists it', async () => {
    expect((await query(tokens.writer, 'restored', "CREATE (:P {name: 'kept'})")).statusCode).toBe(200);
    const exported = await t.app.inject({
      method: 'GET',
      url: '/api/graph/restored/export',
      headers: bearer(tokens.admin),
    });
    expect(exported.statusCode, exported.body).toBe(200);
    const fileId = await stageFile(tokens.writer, 'restored.dump', exported.rawPayload);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: '/api/graph/restored',
      headers: bearer(tokens.writer),
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    const restored = await t.app.inject({
      method: 'POST',
      url: '/api/graph/restored/upload',
      payload: { fileId },
      headers: bearer(tokens.writer),
    });
    expect([restored.statusCode, restored.json()]).toEqual([
      200,
      { message: 'Restored graph restored from restored.dump' },
    ]);
    for (const node of group.dataNodes)
      await eventually(async () => {
        const rows = await readOnNode(node.port, 'restored', 'MATCH (p:P) RETURN p.name').catch(() => []);
        return JSON.stringify(rows) === JSON.stringify([['kept']]);
      }, 10_000);
  });
});

describe('what FalkorDB does not replicate', () => {
  it('creates and deletes users, and sets configuration, on every data node', async () => {
    const aclUsers = async (port: number) => {
      const client = createClient({ socket: { host: HOST, port } });
      await client.connect();
      try {
        return await client.sendCommand<string[]>(['ACL', 'USERS']);
      } finally {
        client.destroy();
      }
    };
    const configOf = async (port: number) => {
      const client = createClient({ socket: { host: HOST, port } });
      await client.connect();
      try {
        return (await client.sendCommand<[string, number]>(['GRAPH.CONFIG', 'GET', 'RESULTSET_SIZE']))[1];
      } finally {
        client.destroy();
      }
    };
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/user',
      headers: bearer(tokens.admin),
      payload: { username: 'analyst', password: 'analyst-password-1', role: 'Read-Only' },
    });
    expect(created.statusCode, created.body).toBe(201);
    for (const node of group.dataNodes) expect(await aclUsers(node.port)).toContain('analyst');
    // The new user's token works, whichever node is the primary.
    const token = await t.app.inject({
      method: 'POST',
      url: '/api/auth/tokens/credentials',
      payload: { ...tokenBody('analyst'), password: 'analyst-password-1' },
    });
    expect(token.statusCode, token.body).toBe(200);

    const set = await t.app.inject({
      method: 'POST',
      url: '/api/graph/config/RESULTSET_SIZE?value=5000',
      headers: bearer(tokens.admin),
    });
    expect(set.statusCode, set.body).toBe(200);
    for (const node of group.dataNodes) expect(await configOf(node.port)).toBe(5000);

    const removed = await t.app.inject({
      method: 'DELETE',
      url: '/api/user',
      headers: bearer(tokens.admin),
      payload: { users: [{ username: 'analyst' }] },
    });
    expect(removed.statusCode, removed.body).toBe(200);
    for (const node of group.dataNodes) expect(await aclUsers(node.port)).not.toContain('analyst');

    // A replica that cannot take it: the primary has it, the caller is told (503), and a retry completes it.
    const primary = await group.primaryPort();
    const replica = group.dataNodes.find((node) => node.port !== primary)!;
    replica.process.kill('SIGSTOP');
    try {
      const partial = await t.app.inject({
        method: 'POST',
        url: '/api/user',
        headers: bearer(tokens.admin),
        payload: { username: 'partial', password: 'partial-password-1', role: 'Read-Only' },
      });
      expect(partial.statusCode, partial.body).toBe(503);
      expect(await aclUsers(primary)).toContain('partial');
      expect(t.logs.text).toContain('applied on the primary of graphs but not on every replica');
    } finally {
      replica.process.kill('SIGCONT');
    }
  });
});

describe('replica confirmation', () => {
  it('answers a write only once a replica has it: with the replica stopped, 503 after SENTINEL_WRITE_ACK_MS', async () => {
    const primary = await group.primaryPort();
    const replica = group.dataNodes.find((node) => node.port !== primary)!;
    replica.process.kill('SIGSTOP');
    try {
      const started = Date.now();
      const res = await query(tokens.writer, 'confirm', "CREATE (:Unconfirmed {at: 'stopped replica'})");
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json()).toEqual({ message: 'Database is offline or not accessible', code: 'unavailable' });
      // It waited for the replica (2 s here), then said so.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
      expect(t.logs.text).toContain('no replica confirmed it within 2000 ms');
    } finally {
      replica.process.kill('SIGCONT');
    }
    const again = await query(tokens.writer, 'confirm', "CREATE (:Confirmed {at: 'running replica'})");
    expect(again.statusCode, again.body).toBe(200);
  });
});

describe('a failover under load', () => {
  it('keeps every token; every client recovers; no write acknowledged before the kill is missing after it', async () => {
    const writers = startFailoverWriters(
      10,
      async (client, seq) => {
        const cypher = `CREATE (:W {client: ${client}, seq: ${seq}})`;
        const res = await fetch(`${base}/api/graph/failover?timeout=10000&query=${encodeURIComponent(cypher)}`, {
          headers: { ...bearer(tokens.writer), accept: 'application/json' },
        });
        await res.text();
        return res.status;
      },
      [503, 500],
    );
    // Some writes before the kill.
    await eventually(() => writers.acknowledged.every((seqs) => seqs.length >= 3), 10_000);
    const oldPrimary = await group.primaryPort();
    const beforeKill = writers.acknowledged.map((seqs) => seqs.length);
    writers.markKilled();
    group.kill(oldPrimary);
    await eventually(async () => (await group.primaryPort().catch(() => oldPrimary)) !== oldPrimary, 30_000, 100);
    writers.markPromoted();
    // Every client writes again, soon after the sentinels name the new primary.
    await eventually(() => writers.recoveredAt.every((at) => at > 0), 15_000, 50);
    await writers.stop();
    const lastRecovery = Math.max(...writers.recoveredAt);
    // eslint-disable-next-line no-console -- the measured failover times, for the closing note and the decisions
    console.log(
      `failover: promoted ${writers.promotedAt() - writers.killedAt()} ms after the kill; every client writing ${lastRecovery - writers.killedAt()} ms after it`,
    );
    expect(lastRecovery - writers.promotedAt()).toBeLessThan(5000);
    for (const [client, seqs] of writers.acknowledged.entries())
      expect(seqs.length).toBeGreaterThan(beforeKill[client]!);

    // Every write acknowledged (before or after the kill) is on the new primary.
    const newPrimary = await group.primaryPort();
    const stored = (await readOnNode(newPrimary, 'failover', 'MATCH (w:W) RETURN w.client, w.seq')) as [
      number,
      number,
    ][];
    expect(missingWrites(writers.acknowledged, stored)).toEqual([]);

    // No token lost: each still works, against the new primary.
    for (const token of Object.values(tokens)) {
      const res = await t.app.inject({ method: 'GET', url: '/api/graph', headers: bearer(token) });
      expect(res.statusCode, res.body).toBe(200);
    }
  }, 90_000);
});
