// The body form of the query (`POST /api/graph/{graph}/query`), reads of graphs that do not exist, the query-less
// `POST /api/graph/{graph}`, and route words as graph names: through the app, on a real FalkorDB.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  databaseSnapshot,
  graphQuery,
  parseEvents,
  parseLines,
  useBrowserApp,
  type TestRole,
} from '../support/browser.js';

const t = useBrowserApp({ prefix: 'qbody', listen: true });
beforeAll(async () => {
  await graphQuery(
    t.falkordb,
    'people',
    "CREATE (:Person {name: 'Ada', born: 1815}), (:Person {name: 'Charles', born: 1791})",
  );
});

const post = (role: TestRole, graph: string, payload: unknown, accept?: string) =>
  t.as(role).inject({
    method: 'POST',
    url: `/api/graph/${encodeURIComponent(graph)}/query`,
    payload,
    headers: accept ? { accept } : {},
  });

const graphs = async () => (await databaseSnapshot(t.falkordb)).graphs;

describe('POST /api/graph/{graph}/query', () => {
  it('runs a parameterised query from a JSON body, for every role', async () => {
    for (const role of ['Read-Only', 'Read-Write', 'Admin'] as const) {
      const res = await post(role, 'people', {
        query: 'MATCH (p:Person) WHERE p.born < $before RETURN p.name AS name',
        params: { before: 1800 },
        timeout: 5000,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json<{ data: unknown[] }>().data).toEqual([{ name: 'Charles' }]);
    }
  });

  it('takes a query and params far beyond what a URL carries (a bulk UNWIND write)', async () => {
    const rows = Array.from({ length: 1500 }, (_, index) => ({ id: index, name: `name-${index}` }));
    const params = JSON.stringify({ rows });
    expect(params.length).toBeGreaterThan(19_000);
    const res = await post('Read-Write', 'bulk', {
      query: 'UNWIND $rows AS row CREATE (:Row {id: row.id, name: row.name})',
      params: { rows },
    });
    expect(res.statusCode, res.body).toBe(200);
    const count = await post('Read-Only', 'bulk', { query: 'MATCH (r:Row) RETURN count(r) AS rows' });
    expect(count.json<{ data: unknown[] }>().data).toEqual([{ rows: 1500 }]);

    // A query text of 40,000 characters: a comment pads it, as a generated query would be long.
    const query = `RETURN 1 AS one // ${'x'.repeat(40_000)}`;
    const long = await fetch(`${t.baseUrl}/api/graph/people/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.tokens['Read-Only']}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    expect(long.status).toBe(200);
    expect(((await long.json()) as { data: unknown[] }).data).toEqual([{ one: 1 }]);
    // The GET form cannot carry it: the URL is refused as too large.
    const viaUrl = await fetch(`${t.baseUrl}/api/graph/people?query=${encodeURIComponent(query)}&timeout=5000`, {
      headers: { authorization: `Bearer ${t.tokens['Read-Only']}` },
    });
    expect(viaUrl.status).toBe(431);
  });

  it('answers as server-sent events and as NDJSON by Accept', async () => {
    const body = { query: 'MATCH (p:Person {name: $name}) RETURN p.born AS born', params: { name: 'Ada' } };
    const events = parseEvents((await post('Read-Only', 'people', body, 'text/event-stream')).body);
    expect(events).toEqual([{ event: 'result', data: expect.objectContaining({ data: [{ born: 1815 }] }) as unknown }]);
    const ndjson = await post('Read-Only', 'people', body, 'application/x-ndjson');
    expect(ndjson.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const lines = parseLines(ndjson.body);
    expect(lines[0]).toEqual({ type: 'header', columns: ['born'] });
    expect(lines[1]).toEqual({ type: 'row', data: { born: 1815 } });
    expect(lines[2]).toMatchObject({ type: 'summary', rows: 1, truncated: false });
  });

  it('cuts at maxRows and says so', async () => {
    const res = await post('Read-Only', 'people', { query: 'UNWIND range(1, 10) AS n RETURN n', maxRows: 3 });
    expect(res.json()).toMatchObject({ data: [{ n: 1 }, { n: 2 }, { n: 3 }], truncated: true });
  });

  it('refuses what it does not understand with 400, in the API error shape', async () => {
    const cases: unknown[] = [
      {},
      { query: '' },
      { query: 'RETURN 1', parameters: { a: 1 } },
      { query: 'RETURN 1', params: [1] },
      { query: 'RETURN 1', params: { a: 'x'.repeat(70_000) } },
      { query: 'RETURN 1', timeout: '5000' },
      { query: 'RETURN 1', timeout: -1 },
      { query: 'RETURN 1', maxRows: 0 },
      { query: 'RETURN $a', params: { 'a b': 1 } },
    ];
    for (const payload of cases) {
      const res = await post('Read-Write', 'people', payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(typeof res.json<{ message: unknown }>().message).toBe('string');
    }
    const csv = await post('Read-Write', 'people', { query: "LOAD CSV FROM 'http://example.com/x.csv' AS r RETURN r" });
    expect(csv.statusCode).toBe(400);
  });

  it('lets a Read-Only token only read', async () => {
    const res = await post('Read-Only', 'people', { query: "CREATE (:Person {name: 'Eve'})" });
    expect(res.statusCode).toBe(400);
    expect((await graphQuery(t.falkordb, 'people', "MATCH (p {name: 'Eve'}) RETURN p")).length).toBe(0);
  });
});

describe('a query on a graph that does not exist', () => {
  it('answers 404 and creates no graph, for a read in every form and role', async () => {
    const read = 'MATCH (n) RETURN n';
    for (const role of ['Read-Only', 'Read-Write'] as const)
      for (const accept of [undefined, 'application/x-ndjson']) {
        const viaBody = await post(role, 'nope', { query: read }, accept);
        expect(viaBody.statusCode, `${role} ${accept}`).toBe(404);
        expect(viaBody.json()).toEqual({ message: 'Graph nope not found', code: 'not_found' });
        const viaUrl = await t.as(role).inject({
          method: 'GET',
          url: `/api/graph/nope?query=${encodeURIComponent(read)}&timeout=5000`,
          headers: accept ? { accept } : {},
        });
        expect(viaUrl.statusCode).toBe(404);
      }
    // A read that returns rows without touching a graph, streamed: still no graph.
    const rows = await post(
      'Read-Write',
      'nope',
      { query: 'UNWIND range(1, 3) AS n RETURN n' },
      'application/x-ndjson',
    );
    expect(rows.statusCode).toBe(404);
    const events = parseEvents(
      (
        await t.as('Read-Write').inject({
          method: 'GET',
          url: `/api/graph/nope?query=${encodeURIComponent(read)}&timeout=5000`,
          headers: { accept: 'text/event-stream' },
        })
      ).body,
    );
    expect(events).toEqual([
      { event: 'error', data: { message: 'Graph nope not found', status: 404, code: 'not_found' } },
    ]);
    expect(await graphs()).not.toContain('nope');
    const listed = await t.as('Read-Only').inject({ method: 'GET', url: '/api/graph' });
    expect(listed.json<{ opts: string[] }>().opts).not.toContain('nope');
  });

  it('lets a write create it, as before', async () => {
    const res = await post('Read-Write', 'made-by-write', { query: "CREATE (:City {name: 'Turin'})" });
    expect(res.statusCode, res.body).toBe(200);
    expect(await graphs()).toContain('made-by-write');
  });

  it('answers data: [] for zero rows on a graph that exists', async () => {
    const res = await post('Read-Only', 'people', { query: "MATCH (p:Person {name: 'nobody'}) RETURN p" });
    expect(res.json()).toMatchObject({ data: [] });
    const viaUrl = await t.as('Read-Only').inject({
      method: 'GET',
      url: `/api/graph/people?query=${encodeURIComponent("MATCH (p:Person {name: 'nobody'}) RETURN p")}&timeout=5000`,
    });
    expect(viaUrl.json()).toMatchObject({ data: [] });
  });
});

describe('POST /api/graph/{graph} (create)', () => {
  it('refuses a body with fields, so a query sent there is not dropped', async () => {
    const res = await t.as('Read-Write').inject({
      method: 'POST',
      url: '/api/graph/created-by-mistake',
      payload: { query: "CREATE (:X {name: 'lost'})" },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ message: string }>().message).toMatch(/POST \/api\/graph\/\{graph\}\/query/);
    expect(await graphs()).not.toContain('created-by-mistake');
  });

  it('still creates a graph without a body or with an empty one', async () => {
    for (const [graph, payload] of [
      ['created-bare', undefined],
      ['created-empty', {}],
    ] as const) {
      const res = await t.as('Read-Write').inject({ method: 'POST', url: `/api/graph/${graph}`, payload });
      expect(res.statusCode, res.body).toBe(200);
      expect(await graphs()).toContain(graph);
    }
  });
});

describe('route words as graph names', () => {
  it('refuses `config` as a graph name, and the configuration routes keep their paths', async () => {
    const created = await t.as('Admin').inject({ method: 'POST', url: '/api/graph/config' });
    expect(created.statusCode).toBe(400);
    expect(created.json<{ message: string }>().message).toMatch(/config is a route of the API/);
    const query = await post('Admin', 'config', { query: 'RETURN 1' });
    expect(query.statusCode).toBe(400);
    expect(await graphs()).not.toContain('config');
    const configs = await t.as('Admin').inject({ method: 'GET', url: '/api/graph/config' });
    expect(configs.statusCode).toBe(200);
    expect(configs.json()).toHaveProperty('configs');
  });
});
