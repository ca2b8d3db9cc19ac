// TOKEN_STORE_URL through Sentinel: src/main.ts with its token store behind a real primary, replica and
// three sentinels (the data nodes on one port, as a deployment's pods). A failover keeps every token, their
// revocations, and the revocation announcements to the server's token cache.
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestFalkorDB, type TestFalkorDB } from '../support/falkordb.js';
import { startSentinelGroup, type SentinelGroup, type SentinelNode } from '../support/sentinel-group.js';
import type { ServerProcess } from '../support/server-process.js';
import { errorLines, issueToken, startServersOnStore, stopServers } from '../support/store-servers.js';
import { eventually } from '../support/wait.js';

let group: SentinelGroup;
let graphs: TestFalkorDB;
let server: ServerProcess;
/** A second replica of the server on the same store: it learns of revocations only through the announcements. */
let other: ServerProcess;

async function info(node: SentinelNode, field: string): Promise<string | undefined> {
  const client = createClient({ socket: { host: node.host, port: node.port, reconnectStrategy: false } });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const text = await client.sendCommand<string>(['INFO', 'replication']);
    return new RegExp(`^${field}:(\\S+)`, 'm').exec(text)?.[1];
  } finally {
    client.destroy();
  }
}

/** Waits until the replica has everything the primary has (a token saved just now must survive the failover). */
async function replicated(): Promise<void> {
  const primary = await group.primary();
  const replica = group.dataNodes.find((node) => node !== primary)!;
  const target = await info(primary, 'master_repl_offset');
  await eventually(async () => Number(await info(replica, 'slave_repl_offset')) >= Number(target), 10_000);
}

const api = (route: string, init: RequestInit = {}) => fetch(`${server.baseUrl}${route}`, init);
const onOther = (route: string, init: RequestInit = {}) => fetch(`${other.baseUrl}${route}`, init);
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const newToken = (name: string) => issueToken(server, graphs, name);

beforeAll(async () => {
  group = await startSentinelGroup({ sharedPort: true });
  graphs = await startTestFalkorDB();
  const sentinels = group.sentinels.map((sentinel) => `${sentinel.host}:${sentinel.port}`).join(',');
  [server, other] = (await startServersOnStore(`redis+sentinel://${sentinels}/${group.masterName}/1`)) as [
    ServerProcess,
    ServerProcess,
  ];
}, 60_000);
afterAll(async () => {
  try {
    await stopServers([server, other]);
    await graphs?.stop();
  } finally {
    await group?.stop();
  }
});

describe('a token store behind Sentinel', () => {
  it('keeps tokens and revocations through a failover, and announces revocations made after it', async () => {
    const kept = await newToken('kept');
    const revoked = await newToken('revoked');
    const later = await newToken('revoked after the failover');
    for (const { token } of [kept, revoked, later])
      expect((await api('/api/graph', { headers: bearer(token) })).status).toBe(200);
    const revocation = await api(`/api/auth/tokens/${revoked.id}`, {
      method: 'DELETE',
      headers: bearer(revoked.token),
    });
    expect(revocation.status, await revocation.text()).toBe(200);
    expect((await api('/api/graph', { headers: bearer(revoked.token) })).status).toBe(401);
    await replicated();

    const old = await group.primary();
    old.process.kill('SIGKILL');
    await eventually(async () => (await group.primary().catch(() => old)) !== old, 30_000, 100);

    // The server's store connection follows the sentinels: tokens made before still work, new ones are saved.
    await eventually(async () => (await api('/api/graph', { headers: bearer(kept.token) })).status === 200, 15_000);
    expect((await api('/api/graph', { headers: bearer(revoked.token) })).status).toBe(401);
    await eventually(async () => (await onOther('/api/graph', { headers: bearer(kept.token) })).status === 200, 15_000);
    const fresh = await newToken('after the failover');
    expect((await api('/api/graph', { headers: bearer(fresh.token) })).status).toBe(200);

    // A revocation after the failover is announced through the new primary: the other replica's cache (which
    // still holds the token, for minutes by default) drops it within moments.
    const gone = await api(`/api/auth/tokens/${later.id}`, { method: 'DELETE', headers: bearer(later.token) });
    expect(gone.status, await gone.text()).toBe(200);
    expect((await api('/api/graph', { headers: bearer(later.token) })).status).toBe(401);
    await eventually(async () => (await onOther('/api/graph', { headers: bearer(later.token) })).status === 401, 5000);
    for (const running of [server, other]) expect(errorLines(running)).toEqual([]);
  }, 90_000);
});
