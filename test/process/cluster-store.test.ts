// TOKEN_STORE_URL on a sharded cluster: two src/main.ts processes share a token store on a real
// 3-primary cluster (redis+cluster://). Every store key carries the hash tag {graphdb}, so the store lives on the
// shard of that slot; that shard's primary is killed, its replica takes over, and tokens, their revocations and
// the revocation announcements between the two servers keep working.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keySlot } from '../../src/lib/cluster-slots.js';
import { startClusterGroup, type ClusterGroup, type ClusterNodeProcess } from '../support/cluster-group.js';
import { startTestFalkorDB, type TestFalkorDB } from '../support/falkordb.js';
import type { ServerProcess } from '../support/server-process.js';
import { errorLines, issueToken, startServersOnStore, stopServers } from '../support/store-servers.js';
import { eventually } from '../support/wait.js';

/** The shard (as the group splits the slots) that serves the store's hash tag. */
const STORE_SHARD = [5460, 10922, 16383].findIndex((end) => keySlot('{graphdb}') <= end);

let group: ClusterGroup;
let graphs: TestFalkorDB;
let server: ServerProcess;
/** A second replica of the server on the same store: it learns of revocations only through the announcements. */
let other: ServerProcess;

const api = (route: string, init: RequestInit = {}) => fetch(`${server.baseUrl}${route}`, init);
const onOther = (route: string, init: RequestInit = {}) => fetch(`${other.baseUrl}${route}`, init);
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const newToken = (name: string) => issueToken(server, graphs, name);

const replicationOffset = async (node: ClusterNodeProcess, field: string) =>
  Number(new RegExp(`^${field}:(\\d+)`, 'm').exec(await group.on<string>(node.port, ['INFO', 'replication']))?.[1]);

beforeAll(async () => {
  group = await startClusterGroup({ replicaOf: STORE_SHARD });
  graphs = await startTestFalkorDB();
  // Two seeds, neither of them the store's shard: the others are found from them.
  const seeds = group.primaries
    .filter((_node, index) => index !== STORE_SHARD)
    .map((node) => `${node.host}:${node.port}`)
    .join(',');
  [server, other] = (await startServersOnStore(`redis+cluster://${seeds}`)) as [ServerProcess, ServerProcess];
}, 90_000);
afterAll(async () => {
  try {
    await stopServers([server, other]);
    await graphs?.stop();
  } finally {
    await group?.stop();
  }
});

describe('a token store on a sharded cluster', () => {
  it('keeps tokens and revocations through a failover of its shard, and announces revocations made after it', async () => {
    const kept = await newToken('kept');
    const revoked = await newToken('revoked');
    const later = await newToken('revoked after the failover');
    for (const { token } of [kept, revoked, later])
      expect((await onOther('/api/graph', { headers: bearer(token) })).status).toBe(200);
    // Stored under the hash tag, on the shard of its slot.
    const owner = group.primaries[STORE_SHARD]!;
    expect(await group.on<number>(owner.port, ['EXISTS', `{graphdb}:token:${kept.id}`])).toBe(1);
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);

    const revocation = await api(`/api/auth/tokens/${revoked.id}`, {
      method: 'DELETE',
      headers: bearer(revoked.token),
    });
    expect(revocation.status, await revocation.text()).toBe(200);
    expect((await api('/api/graph', { headers: bearer(revoked.token) })).status).toBe(401);
    await eventually(
      async () => (await onOther('/api/graph', { headers: bearer(revoked.token) })).status === 401,
      5000,
    );

    // The replica has everything the primary has (a token saved just now must survive the failover).
    const target = await replicationOffset(owner, 'master_repl_offset');
    await eventually(async () => (await replicationOffset(group.replica, 'slave_repl_offset')) >= target, 10_000);

    owner.process.kill('SIGKILL');
    await eventually(
      async () => (await group.on<string>(group.replica.port, ['INFO', 'replication'])).includes('role:master'),
      30_000,
      100,
    );

    // The store's client follows the cluster: tokens made before still work on both servers, new ones are saved.
    for (const call of [api, onOther])
      await eventually(async () => (await call('/api/graph', { headers: bearer(kept.token) })).status === 200, 15_000);
    expect((await api('/api/graph', { headers: bearer(revoked.token) })).status).toBe(401);
    const fresh = await newToken('after the failover');
    expect((await onOther('/api/graph', { headers: bearer(fresh.token) })).status).toBe(200);
    expect(await group.on<number>(group.replica.port, ['EXISTS', `{graphdb}:token:${fresh.id}`])).toBe(1);

    // A revocation after the failover reaches the other server's cache (which still holds the token) within moments.
    const gone = await api(`/api/auth/tokens/${later.id}`, { method: 'DELETE', headers: bearer(later.token) });
    expect(gone.status, await gone.text()).toBe(200);
    await eventually(async () => (await onOther('/api/graph', { headers: bearer(later.token) })).status === 401, 5000);
    for (const running of [server, other]) expect(errorLines(running)).toEqual([]);
  }, 120_000);
});
