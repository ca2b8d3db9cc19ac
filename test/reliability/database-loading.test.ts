// A FalkorDB that is loading its data after a restart answers every command with `LOADING`: clients are told to
// come back (503 with Retry-After, an SSE error event with status 503), never that their query was wrong (400).
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisCommands } from '../../src/platform/falkordb/embedded-ownership.js';
import { pingRedisProtocol } from '../../src/platform/net.js';
import { bearer, createToken, credentials, useBrowserApp } from '../support/browser.js';
import { startTestFalkorDB, type TestFalkorDB } from '../support/falkordb.js';
import { isMessageBody, runQuery, type QueryOutcome } from '../support/reliability.js';
import { eventually } from '../support/wait.js';

/** 8000 keys at 750 µs each: the reload takes six seconds or more, however busy the machine is. */
const KEYS = 8000;
const LOADING = 'The database cannot answer now (LOADING); try again shortly';
const SLOW_LOAD = ['--appendonly', 'no', '--key-load-delay', '750', '--loading-process-events-interval-bytes', '1024'];

describe('a FalkorDB loading its data after a restart', () => {
  let tokenStore: TestFalkorDB;
  let database: TestFalkorDB;
  let baseUrl: string;
  let token: string;

  beforeAll(async () => {
    [tokenStore, database] = await Promise.all([
      startTestFalkorDB(),
      startTestFalkorDB({
        dataDir: await mkdtemp(path.join(os.tmpdir(), 'gdb-loading-')),
        extraArguments: SLOW_LOAD,
        startTimeoutMs: 120_000,
      }),
    ]);
  });
  afterAll(() => Promise.all([tokenStore.stop(), database.stop()]));
  const t = useBrowserApp(() => ({ falkordb: tokenStore, listen: true, roles: [] }));
  beforeAll(async () => {
    baseUrl = t.baseUrl;
    token = await createToken(t.app, credentials(database, 'default', ''));
    // The graph the queries read exists (a read never creates a graph), among the keys that make loading slow.
    const sets = [
      ['GRAPH.QUERY', 'loading', 'CREATE (:Seed)'],
      ...Array.from({ length: KEYS }, (_, i) => ['SET', `filler:${i}`, 'x']),
    ];
    expect((await redisCommands(database.host, database.port, sets, 30_000)).length).toBe(KEYS + 1);
  });

  it('answers 503 with Retry-After (JSON) and error events with status 503 (SSE) until it is ready', async () => {
    const url = `${baseUrl}/api/graph/loading?query=${encodeURIComponent('RETURN 1')}&timeout=10000`;
    const restarted = database.restart();
    const loading = async () =>
      (await pingRedisProtocol(database.host, database.port, 1000).catch(() => '')).startsWith('-LOADING');
    await eventually(loading, 60_000, 20);

    const outcomes: QueryOutcome[] = [];
    const retryAfter: (string | null)[] = [];
    while ((await loading()) && outcomes.length < 40) {
      const res = await fetch(url, { headers: bearer(token) });
      retryAfter.push(res.headers.get('retry-after'));
      outcomes.push({ ...(await runQueryFrom(res)), startedAt: 0, endedAt: 0 });
      outcomes.push(await runQuery(url, { ...bearer(token), accept: 'text/event-stream' }));
    }
    await restarted;
    const report = JSON.stringify(outcomes);
    expect(outcomes.length, report).toBeGreaterThan(0);
    for (const outcome of outcomes) {
      expect(['result', 'http-error', 'error-event'], report).toContain(outcome.kind);
      if (outcome.kind !== 'result') {
        expect(outcome.status, report).toBe(503);
        // A connection the restart broke may still be found broken first: also a 503.
        expect([LOADING, 'Database is offline or not accessible'], report).toContain(outcome.message);
      }
    }
    expect(outcomes.some((o) => o.message === LOADING)).toBe(true);
    expect(outcomes.some((o) => o.kind === 'http-error')).toBe(true);
    expect(outcomes.some((o) => o.kind === 'error-event')).toBe(true);
    expect(retryAfter.some((value) => value === '1')).toBe(true);
    expect(
      retryAfter.every((value, i) => (outcomes[i * 2]?.kind === 'http-error' ? value === '1' : value === null)),
    ).toBe(true);

    // Loaded: the same query is answered.
    expect((await fetch(url, { headers: bearer(token) })).status).toBe(200);
  }, 180_000);
});

/** A JSON answer as runQuery classifies it, from a response already received (its headers were needed). */
async function runQueryFrom(res: Response): Promise<Omit<QueryOutcome, 'startedAt' | 'endedAt'>> {
  const text = await res.text();
  if (res.status === 200) return { kind: 'result', status: 200 };
  const body = JSON.parse(text) as unknown;
  return isMessageBody(body)
    ? { kind: 'http-error', status: res.status, message: body.message }
    : { kind: 'broken', status: res.status, detail: text.slice(0, 200) };
}
