// A query's timeout is clamped to QUERY_TIMEOUT_MAX_MS, and timeout=0 no longer means "no limit".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import {
  bearer,
  graphQuery,
  parseEvents,
  tokensForEveryRole,
  type RoleTokens,
  useBrowserApp,
} from '../support/browser.js';
import { createClient } from 'redis';
import { clampQueryTimeout } from '../../src/browser/graphs/query-service.js';
import { startTestFalkorDB } from '../support/falkordb.js';
import { sleep } from '../support/wait.js';

const t = useBrowserApp({ prefix: 'bounds', env: { QUERY_TIMEOUT_MAX_MS: '100' } });
const SLOW_QUERY = 'UNWIND range(1, 20000000) AS x RETURN count(x) AS n';

// Reads of a graph that does not exist answer 404: the suite's graphs exist.
beforeAll(() => graphQuery(t.falkordb, 'bounds', 'CREATE (:Seed)'));

const url = (timeout: string) => `/api/graph/bounds?query=${encodeURIComponent(SLOW_QUERY)}&timeout=${timeout}`;

describe('QUERY_TIMEOUT_MAX_MS', () => {
  it.each(['0', '600000'])('runs a query asked to take timeout=%s with the maximum instead', async (timeout) => {
    const stream = await t.app.inject({
      method: 'GET',
      url: url(timeout),
      headers: { ...bearer(t.tokens.Admin), accept: 'text/event-stream' },
    });
    expect(parseEvents(stream.body)).toEqual([
      { event: 'error', data: { message: 'Query timed out', status: 400, code: 'database_error' } },
    ]);
    const json = await t.app.inject({ method: 'GET', url: url(timeout), headers: bearer(t.tokens.Admin) });
    expect(json.statusCode).toBe(400);
    expect(json.json()).toEqual({ message: 'Query timed out', code: 'database_error' });
  });

  it('keeps timeouts within the maximum and clamps the rest', () => {
    expect(clampQueryTimeout(500, 1000)).toBe(500);
    expect(clampQueryTimeout(0, 1000)).toBe(1000);
    expect(clampQueryTimeout(5000, 1000)).toBe(1000);
    expect(clampQueryTimeout(0, undefined)).toBe(0);
  });
});

describe('QUERY_ROWS_MAX, QUERY_RESULT_BYTES_MAX, QUERIES_PER_TOKEN and QUERIES_PER_CLIENT', () => {
  let bounded: TestApp;
  let holders: RoleTokens;
  let otherHolders: RoleTokens;
  beforeAll(async () => {
    bounded = await startTestApp({
      env: { QUERY_ROWS_MAX: '100', QUERY_RESULT_BYTES_MAX: '4096', QUERIES_PER_TOKEN: '2', QUERIES_PER_CLIENT: '3' },
    });
    holders = await tokensForEveryRole(bounded.app, bounded.falkordb, 'rows');
    otherHolders = await tokensForEveryRole(bounded.app, bounded.falkordb, 'rows-other');
    await graphQuery(bounded.falkordb, 'rows', 'CREATE (:Seed)');
  });
  afterAll(() => bounded.close());

  const run = (token: string, query: string, accept?: string) =>
    bounded.app.inject({
      method: 'GET',
      url: `/api/graph/rows?query=${encodeURIComponent(query)}&timeout=20000`,
      headers: { ...bearer(token), ...(accept ? { accept } : {}) },
    });

  it('answers a result within QUERY_ROWS_MAX and refuses a larger one whole, as JSON and as an event', async () => {
    const within = await run(holders['Read-Write'], 'UNWIND range(1, 100) AS x RETURN x');
    expect(within.statusCode).toBe(200);
    expect(within.json<{ data: unknown[] }>().data).toHaveLength(100);
    const beyond = await run(holders['Read-Write'], 'UNWIND range(1, 101) AS x RETURN x');
    expect([beyond.statusCode, beyond.json()]).toEqual([
      400,
      { message: 'The result has more than the 100 rows allowed: add LIMIT to the query', code: 'result_too_large' },
    ]);
    const streamed = await run(holders['Read-Write'], 'UNWIND range(1, 101) AS x RETURN x', 'text/event-stream');
    expect(parseEvents(streamed.body)).toEqual([
      {
        event: 'error',
        data: {
          message: 'The result has more than the 100 rows allowed: add LIMIT to the query',
          status: 400,
          code: 'result_too_large',
        },
      },
    ]);
  });

  it('refuses a result larger than QUERY_RESULT_BYTES_MAX, however few its rows', async () => {
    const small = await run(holders['Read-Write'], "RETURN 'x' AS text");
    expect(small.statusCode).toBe(200);
    const large = await run(
      holders['Read-Write'],
      "UNWIND range(1, 20) AS x RETURN reduce(s = '', i IN range(1, 1000) | s + 'x') AS text",
    );
    expect([large.statusCode, large.json()]).toEqual([
      400,
      {
        message: 'The result is larger than the 4096 bytes allowed: return fewer rows or properties',
        code: 'result_too_large',
      },
    ]);
  });

  it('runs at most QUERIES_PER_TOKEN queries of one token and QUERIES_PER_CLIENT of one client at once, then frees the slots', async () => {
    const first = [run(holders.Admin, SLOW_QUERY), run(holders.Admin, SLOW_QUERY)];
    // Let the slow queries take their slots before the next request asks for one.
    await sleep(150);
    const thirdOfToken = await run(holders.Admin, 'RETURN 1 AS one');
    expect([thirdOfToken.statusCode, thirdOfToken.json(), thirdOfToken.headers['retry-after']]).toEqual([
      429,
      { message: 'Too many queries running for this token (at most 2); try again when one ends', code: 'rate_limited' },
      '1',
    ]);
    const otherToken = run(otherHolders.Admin, SLOW_QUERY);
    // As above: this one's slot is taken before the next request asks.
    await sleep(150);
    const fourthOfClient = await run(otherHolders['Read-Write'], 'RETURN 1 AS one');
    expect([fourthOfClient.statusCode, fourthOfClient.json()]).toEqual([
      429,
      {
        message: 'Too many queries running from this client (at most 3); try again when one ends',
        code: 'rate_limited',
      },
    ]);
    for (const answer of await Promise.all([...first, otherToken])) expect(answer.statusCode).toBe(200);
    // Every slot came back, including those of refused and failed requests.
    for (const token of [holders.Admin, otherHolders.Admin, otherHolders['Read-Write']])
      expect((await run(token, 'RETURN 1 AS one')).statusCode).toBe(200);
    const failing = await run(holders.Admin, 'RETURN nothing');
    expect(failing.statusCode).toBe(400);
    const again = await Promise.all([run(holders.Admin, 'RETURN 1 AS one'), run(holders.Admin, 'RETURN 2 AS two')]);
    expect(again.map((answer) => answer.statusCode)).toEqual([200, 200]);
  });
});

describe('the embedded database stops a result at the row bound itself', () => {
  it('starts FalkorDB with RESULTSET_SIZE when asked, so a huge result never leaves the database', async () => {
    const db = await startTestFalkorDB({ resultSetSize: 7 });
    try {
      const client = createClient({ url: db.url });
      await client.connect();
      try {
        expect(await client.sendCommand(['GRAPH.CONFIG', 'GET', 'RESULTSET_SIZE'])).toEqual(['RESULTSET_SIZE', 7]);
        const reply = await client.sendCommand<unknown[]>(['GRAPH.QUERY', 'cut', 'UNWIND range(1, 50) AS x RETURN x']);
        expect((reply[1] as unknown[]).length).toBe(7);
      } finally {
        await client.close();
      }
    } finally {
      await db.stop();
    }
  });
});
