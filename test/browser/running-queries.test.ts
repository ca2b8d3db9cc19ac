// GET /api/queries and DELETE /api/queries/{id}: a token sees its own running queries and can stop one;
// the stopped query's client gets a clear answer at once, and no other token can see or stop it.
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, graphQuery, parseEvents, useBrowserApp } from '../support/browser.js';
import { eventually } from '../support/wait.js';

const t = useBrowserApp({ prefix: 'running', listen: true });
const SLOW_QUERY = 'UNWIND range(1, 40000000) AS x RETURN count(x) AS n';

// Read-Only queries need an existing graph (a read of a missing key fails at once).
beforeAll(() => graphQuery(t.falkordb, 'running', 'CREATE (:Seed)'));

interface Listed {
  id: string;
  graph: string;
  query: string;
  started_at: string;
  elapsed_ms: number;
}
const list = async (token: string) => {
  const res = await t.app.inject({ method: 'GET', url: '/api/queries', headers: bearer(token) });
  expect(res.statusCode).toBe(200);
  return res.json<{ queries: Listed[] }>().queries;
};
const waitForListed = async (token: string): Promise<Listed[]> => {
  let queries: Listed[] = [];
  await eventually(async () => (queries = await list(token)).length > 0, 5000, 20);
  return queries;
};
const slow = (token: string, accept?: string) =>
  fetch(`${t.baseUrl}/api/graph/running?query=${encodeURIComponent(SLOW_QUERY)}&timeout=30000`, {
    headers: { ...bearer(token), ...(accept ? { accept } : {}) },
  });

describe('running queries', () => {
  it('lists a running query to its own token only, and stops it: the JSON client gets 409 at once', async () => {
    const started = Date.now();
    const answer = slow(t.tokens['Read-Only']);
    const [running] = await waitForListed(t.tokens['Read-Only']);
    expect(running).toMatchObject({ graph: 'running', query: SLOW_QUERY });
    expect(Date.parse(running!.started_at)).toBeGreaterThanOrEqual(started - 1000);
    expect(await list(t.tokens['Read-Write'])).toEqual([]);
    // Another token can neither see nor stop it.
    const foreign = await t.app.inject({
      method: 'DELETE',
      url: `/api/queries/${running!.id}`,
      headers: bearer(t.tokens.Admin),
    });
    expect([foreign.statusCode, foreign.json()]).toEqual([404, { message: 'Query not found', code: 'not_found' }]);

    const stop = await t.app.inject({
      method: 'DELETE',
      url: `/api/queries/${running!.id}`,
      headers: bearer(t.tokens['Read-Only']),
    });
    expect([stop.statusCode, stop.json()]).toEqual([200, { message: 'Query stopped', id: running!.id }]);
    const res = await answer;
    expect([res.status, await res.json()]).toEqual([
      409,
      { message: 'The query was stopped (DELETE /api/queries/{id})', code: 'conflict' },
    ]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await list(t.tokens['Read-Only'])).toEqual([]);
    const again = await t.app.inject({
      method: 'DELETE',
      url: `/api/queries/${running!.id}`,
      headers: bearer(t.tokens['Read-Only']),
    });
    expect(again.statusCode).toBe(404);
  });

  it('stops an event stream with an error event, and forgets queries that ended by themselves', async () => {
    const answer = slow(t.tokens['Read-Write'], 'text/event-stream');
    const [running] = await waitForListed(t.tokens['Read-Write']);
    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: `/api/queries/${running!.id}`,
          headers: bearer(t.tokens['Read-Write']),
        })
      ).statusCode,
    ).toBe(200);
    const res = await answer;
    expect(res.status).toBe(200);
    expect(parseEvents(await res.text())).toEqual([
      {
        event: 'error',
        data: { message: 'The query was stopped (DELETE /api/queries/{id})', status: 409, code: 'conflict' },
      },
    ]);

    // FalkorDB keeps executing a stopped query (it has no abort), so on two cores this one may wait for the
    // threads the stopped ones still hold: its timeout leaves room for that.
    const quick = await t.app.inject({
      method: 'GET',
      url: `/api/graph/running?query=${encodeURIComponent('RETURN 1 AS one')}&timeout=30000`,
      headers: bearer(t.tokens.Admin),
    });
    expect(quick.statusCode).toBe(200);
    expect(await list(t.tokens.Admin)).toEqual([]);
  });
});
