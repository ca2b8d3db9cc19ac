// Single commands (PING, GRAPH.LIST, ACL LIST…) sent in one event-loop turn go out together on one of the
// pool's command connections, one write for all; a command sent later does not wait behind a slow one.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionPools } from '../../src/platform/falkordb/connection-pools.js';
import type { DatabasePool } from '../../src/platform/falkordb/database-pool.js';
import { startTestFalkorDB, type TestFalkorDB } from '../support/falkordb.js';

/** Hundreds of milliseconds of FalkorDB's time: long past a PING's round trip on a busy machine. */
const SLOW_QUERY = 'UNWIND range(1, 8000000) AS x RETURN count(x)';

describe("a credential pool's command connections", () => {
  let falkordb: TestFalkorDB;
  let pools: ConnectionPools;
  let pool: DatabasePool;

  beforeAll(async () => {
    falkordb = await startTestFalkorDB();
    pools = new ConnectionPools(pino({ level: 'silent' }), { commandTimeoutMs: 30_000 });
    pool = pools.pool({ host: falkordb.host, port: falkordb.port, username: 'default', password: '', tls: false });
  });
  afterAll(async () => {
    await pools.closeAll();
    await falkordb.stop();
  });

  const clientId = () => pool.send<number>(['CLIENT', 'ID']);

  it('answers a command after a slow one on the other connection, and the commands of one turn on one', async () => {
    // One connection open and idle.
    await pool.send(['PING']);
    const slow = pool.send(['GRAPH.QUERY', 'slow', SLOW_QUERY]).then(() => 'slow');
    await nextTurn();
    const later = clientId();
    expect(await Promise.race([later.then(() => 'later command'), slow])).toBe('later command');
    await slow;
    // Two connections are open now, both idle: the slow query's and the later command's.
    const clients = String(await pool.send(['CLIENT', 'LIST']))
      .trim()
      .split('\n');
    expect(clients.filter((line) => line.includes('cmd=')).length).toBe(2);
    await nextTurn();
    const ids = await Promise.all([clientId(), clientId(), clientId(), clientId()]);
    expect(new Set(ids).size).toBe(1);
    // In a later turn, with both idle again, the first idle connection takes the command.
    await nextTurn();
    expect(await clientId()).toBe(ids[0]);
  });
});
