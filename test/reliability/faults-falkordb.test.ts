// FalkorDB killed (SIGKILL) and restarted while 20 clients stream queries: every failure a client sees is a clean
// SSE `error` event or a 5xx `{message}`, the server recovers by itself once FalkorDB is back, and no connection
// or process error is left behind.
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionPools } from '../../src/platform/falkordb/connection-pools.js';
import { adminClient, bearer, createToken, credentials, useBrowserApp } from '../support/browser.js';
import { startTestFalkorDB, type TestFalkorDB } from '../support/falkordb.js';
import { falkordbClientCount, runQuery, watchProcessErrors, type QueryOutcome } from '../support/reliability.js';
import { eventually, sleep } from '../support/wait.js';

const CLIENTS = 20;
/** Long enough (tens of ms) that queries are in flight when FalkorDB dies. */
const QUERY = 'UNWIND range(1, 50000) AS x RETURN count(x) AS n';
const RECOVERY_MS = 2000;
const MAX_CONNECTIONS_PER_POOL = 4;
/** Each scenario runs about 7 s of load; leave room for busy cores. */
const SLOW_TEST_MS = 60_000;

/** 20 clients, each running one query after another: three in four as event streams, the rest as JSON. */
function startStorm(baseUrl: string, token: string): { outcomes: QueryOutcome[]; stop: () => Promise<void> } {
  const outcomes: QueryOutcome[] = [];
  let running = true;
  const url = `${baseUrl}/api/graph/storm?query=${encodeURIComponent(QUERY)}&timeout=10000`;
  const clients = Array.from({ length: CLIENTS }, async (_, index) => {
    const headers = index % 4 === 3 ? bearer(token) : { ...bearer(token), accept: 'text/event-stream' };
    while (running) outcomes.push(await runQuery(url, headers));
  });
  return {
    outcomes,
    stop: async () => {
      running = false;
      await Promise.all(clients);
    },
  };
}

/**
 * The storm only reads, and a read never creates a graph: the graph is made first, on a connection of its own that
 * is closed before the connection counts are taken.
 */
async function createStormGraph(falkordb: TestFalkorDB): Promise<void> {
  const client = await adminClient(falkordb);
  try {
    await client.sendCommand(['GRAPH.QUERY', 'storm', 'CREATE (:Seed)']);
  } finally {
    await client.close();
  }
}

/**
 * Runs the storm for 1.5 s, kills FalkorDB without warning, keeps it down for 1 s, starts it again on the same port,
 * and lets the storm run 3.5 s more. Returns every outcome, when FalkorDB died and came back, and any unhandled
 * error of this process meanwhile.
 */
async function stormThroughOutage(baseUrl: string, token: string, falkordb: TestFalkorDB) {
  const processErrors = watchProcessErrors();
  const storm = startStorm(baseUrl, token);
  try {
    await sleep(1500);
    const killedAt = Date.now();
    process.kill(falkordb.pid, 'SIGKILL');
    await sleep(1000);
    await falkordb.restart();
    const backAt = Date.now();
    await sleep(RECOVERY_MS + 1500);
    return { outcomes: storm.outcomes, times: { killedAt, backAt }, processErrors: processErrors.errors };
  } finally {
    await storm.stop();
    processErrors.stop();
  }
}

function summary(outcomes: QueryOutcome[]): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) {
    const key = `${o.kind} ${o.status ?? ''} ${o.message ?? o.detail ?? ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()].map(([key, count]) => `${count} x ${key}`).join('\n');
}

/** The checks every scenario shares: clean failures only, some during the outage, none from 2 s after FalkorDB is back. */
function expectCleanFailuresAndRecovery(
  outcomes: QueryOutcome[],
  times: { killedAt: number; backAt: number },
  allowedMessages: string[],
): void {
  const report = summary(outcomes);
  expect(
    outcomes.filter((o) => o.kind === 'broken'),
    report,
  ).toEqual([]);
  const failures = outcomes.filter((o) => o.kind !== 'result');
  for (const failure of failures) {
    expect(failure.status, report).toBe(503);
    expect(allowedMessages, report).toContain(failure.message);
  }
  expect(outcomes.filter((o) => o.kind === 'result' && o.endedAt < times.killedAt).length, report).toBeGreaterThan(
    CLIENTS,
  );
  expect(
    failures.filter((o) => o.startedAt >= times.killedAt && o.startedAt < times.backAt).length,
    report,
  ).toBeGreaterThan(0);
  expect(failures.some((o) => o.kind === 'error-event') && failures.some((o) => o.kind === 'http-error'), report).toBe(
    true,
  );
  const afterRecovery = outcomes.filter((o) => o.startedAt >= times.backAt + RECOVERY_MS);
  expect(afterRecovery.length, report).toBeGreaterThan(CLIENTS);
  expect(
    afterRecovery.filter((o) => o.kind !== 'result'),
    report,
  ).toEqual([]);
  const firstSuccess = outcomes.filter((o) => o.kind === 'result' && o.startedAt >= times.backAt).map((o) => o.endedAt);
  expect(Math.min(...firstSuccess) - times.backAt, report).toBeLessThanOrEqual(RECOVERY_MS);
}

/** The clients here share one token and one address; the per-token and per-client query caps are not under test. */
const TWENTY_CLIENTS_ONE_TOKEN = { QUERIES_PER_TOKEN: '64', QUERIES_PER_CLIENT: '64' };

/** The app the clients storm: its token store, the connection pools the test counts, listening, no role tokens. */
function useStormApp(made: () => { tokenStore: TestFalkorDB; pools: ConnectionPools }) {
  return useBrowserApp(() => {
    const { tokenStore, pools } = made();
    return {
      falkordb: tokenStore,
      env: TWENTY_CLIENTS_ONE_TOKEN,
      deps: { connectionPools: pools },
      listen: true,
      roles: [],
    };
  });
}

describe('the database of the tokens killed and restarted under 20 streaming clients (token store elsewhere)', () => {
  let tokenStore: TestFalkorDB;
  let database: TestFalkorDB;
  let pools: ConnectionPools;
  let baseUrl: string;
  let token: string;

  beforeAll(async () => {
    // The data database is persistent: the graph the storm reads must still be there after the restart.
    [tokenStore, database] = await Promise.all([
      startTestFalkorDB(),
      startTestFalkorDB({ dataDir: await mkdtemp(path.join(os.tmpdir(), 'gdb-faults-data-')) }),
    ]);
    pools = new ConnectionPools(pino({ level: 'silent' }), { maxConnectionsPerPool: MAX_CONNECTIONS_PER_POOL });
  });
  afterAll(() => Promise.all([tokenStore.stop(), database.stop()]));
  const t = useStormApp(() => ({ tokenStore, pools }));

  beforeAll(async () => {
    baseUrl = t.baseUrl;
    // The default user survives a restart of FalkorDB (ACL users made at run time would not).
    token = await createToken(t.app, credentials(database, 'default', ''));
    await createStormGraph(database);
  });

  it(
    'answers clean 503s while it is down, recovers within 2 s of its return, and leaks no connection',
    async () => {
      const tokenStoreBaseline = await falkordbClientCount(tokenStore);
      const { outcomes, times, processErrors } = await stormThroughOutage(baseUrl, token, database);
      expectCleanFailuresAndRecovery(outcomes, times, ['Database is offline or not accessible']);
      expect(processErrors).toEqual([]);
      expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);

      // Connections: the pool holds at most its maximum, FalkorDB sees exactly the pool's, the token store its baseline.
      await eventually(async () => (await falkordbClientCount(database)) === pools.stats().connections, 2000);
      expect(pools.stats().connections).toBeLessThanOrEqual(MAX_CONNECTIONS_PER_POOL);
      expect(await falkordbClientCount(tokenStore)).toBe(tokenStoreBaseline);
      await pools.closeAll();
      await eventually(async () => (await falkordbClientCount(database)) === 0, 2000);
    },
    SLOW_TEST_MS,
  );
});

describe('the one FalkorDB of embedded mode (tokens and graphs) killed and restarted under 20 streaming clients', () => {
  let falkordb: TestFalkorDB;
  let pools: ConnectionPools;
  let baseUrl: string;
  let token: string;

  beforeAll(async () => {
    // Persistent, so the token metadata survives the restart as it does in embedded mode.
    falkordb = await startTestFalkorDB({ dataDir: await mkdtemp(path.join(os.tmpdir(), 'gdb-faults-')) });
    pools = new ConnectionPools(pino({ level: 'silent' }), { maxConnectionsPerPool: MAX_CONNECTIONS_PER_POOL });
  });
  afterAll(() => falkordb.stop());
  const t = useStormApp(() => ({ tokenStore: falkordb, pools }));

  beforeAll(async () => {
    baseUrl = t.baseUrl;
    token = await createToken(t.app, credentials(falkordb, 'default', ''));
    await createStormGraph(falkordb);
  });

  it(
    'answers clean 503s while it is down and recovers within 2 s of its return, reconnecting the token store',
    async () => {
      const baseline = (await falkordbClientCount(falkordb)) - pools.stats().connections;
      const { outcomes, times, processErrors } = await stormThroughOutage(baseUrl, token, falkordb);
      expectCleanFailuresAndRecovery(outcomes, times, [
        'Database is offline or not accessible',
        'Token store is unavailable',
      ]);
      expect(processErrors).toEqual([]);
      const ready = await fetch(`${baseUrl}/readyz`);
      expect(ready.status).toBe(200);
      // The token store's connections are back to what they were, beside the pool's (at most its maximum).
      await eventually(
        async () => (await falkordbClientCount(falkordb)) === baseline + pools.stats().connections,
        2000,
      );
      expect(pools.stats().connections).toBeLessThanOrEqual(MAX_CONNECTIONS_PER_POOL);
    },
    SLOW_TEST_MS,
  );
});
