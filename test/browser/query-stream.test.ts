import { beforeAll, describe, expect, it } from 'vitest';
import {
  abortableGet,
  adminClient,
  bearer,
  databaseSnapshot,
  graphQuery,
  parseEvents,
  useBrowserApp,
} from '../support/browser.js';
import { eventually, sleep } from '../support/wait.js';

const t = useBrowserApp({ prefix: 'stream', deps: { sseHeartbeatMs: 100 }, listen: true });
const SLOW_QUERY = 'UNWIND range(1, 20000000) AS x RETURN count(x) AS n';

beforeAll(async () => {
  await graphQuery(
    t.falkordb,
    'social',
    "CREATE (:Person {name: 'Ada', born: 1815})-[:KNOWS {since: 1833}]->(:Person {name: 'Charles'})",
  );
  // Reads of a graph that does not exist answer 404: the graphs the suite reads exist.
  await graphQuery(t.falkordb, 'csv', 'CREATE (:Seed)');
});

const url = (graph: string, query: string, timeout: string | null = '5000') =>
  `/api/graph/${encodeURIComponent(graph)}?query=${encodeURIComponent(query)}${timeout === null ? '' : `&timeout=${timeout}`}`;
const sse = (token: string) => ({ ...bearer(token), accept: 'text/event-stream' });

describe('the query stream', () => {
  it('answers an event-stream client with one result event, then ends', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: url('social', 'MATCH (p:Person) RETURN p.name AS name ORDER BY name'),
      headers: sse(t.tokens['Read-Only']),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    const events = parseEvents(res.body);
    expect(events).toHaveLength(1);
    expect(events[0]!.event).toBe('result');
    const data = events[0]!.data as { metadata: string[]; data: unknown[] };
    expect(data.data).toEqual([{ name: 'Ada' }, { name: 'Charles' }]);
    expect(data.metadata.some((line) => line.startsWith('Query internal execution time'))).toBe(true);
  });

  it('logs an event stream once, as the access line of its request', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: url('social', 'MATCH (p:Person) RETURN p.name AS name'),
      headers: { ...sse(t.tokens['Read-Only']), 'x-request-id': 'sse-access-line' },
    });
    expect(res.statusCode).toBe(200);
    const lines = t.logs.lines.filter((line) => line.reqId === 'sse-access-line');
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'request completed',
        req: expect.objectContaining({
          method: 'GET',
          url: '/api/graph/social',
          route: '/api/graph/:graph',
        }) as unknown,
        res: { statusCode: 200 },
      }),
    ]);
  });

  it('answers other clients with the same outcome as JSON', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: url('social', 'MATCH (p:Person) RETURN count(p) AS n'),
      headers: bearer(t.tokens['Read-Only']),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.json<{ data: unknown[] }>().data).toEqual([{ n: 2 }]);
  });

  it('streams a large result in chunks, every row intact, as JSON and as one SSE result event', async () => {
    const query = "UNWIND range(1, 5003) AS x RETURN x, {twice: x * 2, name: 'r' + toString(x)} AS m";
    const expected = Array.from({ length: 5003 }, (_, i) => ({
      x: i + 1,
      m: { twice: (i + 1) * 2, name: `r${i + 1}` },
    }));
    const json = await fetch(`${t.baseUrl}${url('social', query)}`, { headers: bearer(t.tokens.Admin) });
    expect(json.status).toBe(200);
    // No Content-Length: the body was written in pieces rather than built as one string first.
    expect(json.headers.get('content-length')).toBeNull();
    expect(json.headers.get('transfer-encoding')).toBe('chunked');
    const body = (await json.json()) as { metadata: string[]; data: unknown[] };
    expect(body.data).toEqual(expected);
    expect(body.metadata.some((line) => line.startsWith('Query internal execution time'))).toBe(true);

    const stream = await fetch(`${t.baseUrl}${url('social', query)}`, { headers: sse(t.tokens.Admin) });
    const events = parseEvents(await stream.text());
    expect(events.map((e) => e.event)).toEqual(['result']);
    expect((events[0]!.data as { data: unknown[] }).data).toEqual(expected);
  });

  it('answers data: [] when the query returns no rows', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: url('social', "MATCH (p:Person {name: 'Nobody'}) RETURN p"),
      headers: bearer(t.tokens.Admin),
    });
    expect(Object.keys(res.json<object>())).toEqual(['metadata', 'data']);
    expect(res.json()).toMatchObject({ data: [] });
  });

  it('encodes nodes, relationships, paths, maps, points, temporal values and big integers', async () => {
    const query = [
      'MATCH path = (a:Person {name: "Ada"})-[k:KNOWS]->(b)',
      'RETURN a, k, path, {x: 1, y: [1, "two", 3.5, true, null]} AS map, point({latitude: 51.5, longitude: -0.12}) AS where,',
      'localdatetime("2024-01-02T03:04:05") AS at, date("2024-01-02") AS day, localtime("12:30:00") AS noon, duration("P1DT2H") AS span,',
      '9007199254740993 AS big, -42 AS small, 0.5 AS half',
    ].join(' ');
    const res = await t.app.inject({ method: 'GET', url: url('social', query), headers: bearer(t.tokens.Admin) });
    expect(res.statusCode, res.body).toBe(200);
    const [row] = res.json<{ data: Record<string, unknown>[] }>().data;
    const ada = { id: 0, labels: ['Person'], properties: { name: 'Ada', born: 1815 } };
    const knows = { id: 0, relationshipType: 'KNOWS', sourceId: 0, destinationId: 1, properties: { since: 1833 } };
    expect(row).toEqual({
      a: ada,
      k: knows,
      path: { nodes: [ada, { id: 1, labels: ['Person'], properties: { name: 'Charles' } }], edges: [knows] },
      map: { x: 1, y: [1, 'two', 3.5, true, null] },
      where: { latitude: 51.5, longitude: expect.closeTo(-0.12, 5) as unknown },
      at: '2024-01-02T03:04:05',
      day: '2024-01-02',
      noon: '12:30:00',
      span: 'P1DT2H',
      big: '9007199254740993',
      small: -42,
      half: 0.5,
    });
  });

  it('runs GRAPH.RO_QUERY for Read-Only tokens, so a write fails and writes nothing', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: url('social', 'CREATE (:Intruder) RETURN 1'),
      headers: sse(t.tokens['Read-Only']),
    });
    const events = parseEvents(res.body);
    expect(events).toEqual([
      {
        event: 'error',
        data: { message: expect.stringContaining('read-only') as unknown, status: 400, code: 'database_error' },
      },
    ]);
    expect(await graphQuery(t.falkordb, 'social', 'MATCH (i:Intruder) RETURN count(i)')).toEqual([[0]]);
    const json = await t.app.inject({
      method: 'GET',
      url: url('social', 'CREATE (:Intruder) RETURN 1'),
      headers: bearer(t.tokens['Read-Only']),
    });
    expect(json.statusCode).toBe(400);
    const rw = await t.app.inject({
      method: 'GET',
      url: url('writable', 'CREATE (:Allowed) RETURN 1'),
      headers: bearer(t.tokens['Read-Write']),
    });
    expect(rw.statusCode).toBe(200);
    expect(await graphQuery(t.falkordb, 'writable', 'MATCH (a:Allowed) RETURN count(a)')).toEqual([[1]]);
  });

  it("passes FalkorDB's error text through unchanged", async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: url('social', 'MATCH (n RETURN n'),
      headers: sse(t.tokens.Admin),
    });
    const [event] = parseEvents(res.body);
    expect(event!.event).toBe('error');
    expect(event!.data).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^errMsg: .* errCtx: MATCH \(n RETURN n errCtxOffset: \d+$/) as unknown,
    });
  });

  it('leaves no graph behind when a query on a graph that did not exist fails, and keeps existing graphs', async () => {
    for (const headers of [bearer(t.tokens.Admin), sse(t.tokens['Read-Write'])]) {
      const res = await t.app.inject({ method: 'GET', url: url('never-created', 'MATCH (n RETURN n'), headers });
      expect(res.body).toContain('errMsg');
      expect((await databaseSnapshot(t.falkordb)).graphs).not.toContain('never-created');
    }
    const failed = await t.app.inject({
      method: 'GET',
      url: url('social', 'MATCH (n RETURN n'),
      headers: bearer(t.tokens.Admin),
    });
    expect(failed.statusCode).toBe(400);
    expect(await graphQuery(t.falkordb, 'social', 'MATCH (p:Person) RETURN count(p)')).toEqual([[2]]);
  });

  it('answers parameter problems before any query runs: an error event for SSE, HTTP 400 for JSON', async () => {
    const before = await databaseSnapshot(t.falkordb);
    for (const [path, message] of [
      [url('fresh-graph', 'CREATE (:X)', null), 'Missing parameter timeout'],
      [url('fresh-graph', 'CREATE (:X)', 'soon'), 'Invalid parameter timeout'],
      [url('fresh-graph', 'CREATE (:X)', '-5'), 'Invalid parameter timeout'],
      ['/api/graph/fresh-graph?timeout=100', 'Missing parameter query'],
      ['/api/graph/fresh-graph?timeout=100&query=', 'Missing parameter query'],
    ] as const) {
      const stream = await t.app.inject({ method: 'GET', url: path, headers: sse(t.tokens.Admin) });
      expect(stream.statusCode).toBe(200);
      expect(parseEvents(stream.body)).toEqual([
        { event: 'error', data: { message, status: 400, code: 'invalid_request' } },
      ]);
      const json = await t.app.inject({ method: 'GET', url: path, headers: bearer(t.tokens.Admin) });
      expect(json.statusCode).toBe(400);
      expect(json.json()).toEqual({ message, code: 'invalid_request' });
    }
    expect(await databaseSnapshot(t.falkordb)).toEqual(before);
  });

  it('passes the timeout to FalkorDB in milliseconds', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: url('social', SLOW_QUERY, '1'),
      headers: sse(t.tokens.Admin),
    });
    expect(parseEvents(res.body)).toEqual([
      { event: 'error', data: { message: 'Query timed out', status: 400, code: 'database_error' } },
    ]);
  });

  it('sends comment heartbeats while a query runs', async () => {
    const res = await fetch(`${t.baseUrl}${url('social', SLOW_QUERY, '60000')}`, { headers: sse(t.tokens.Admin) });
    const text = await res.text();
    expect(text).toMatch(/^: heartbeat\n\n/m);
    expect(parseEvents(text)).toEqual([
      { event: 'result', data: expect.objectContaining({ data: [{ n: 20_000_000 }] }) as unknown },
    ]);
  });

  it('does not hold back other requests with the same token while a slow query runs', async () => {
    let slowDone = false;
    const slow = fetch(`${t.baseUrl}${url('social', SLOW_QUERY, '60000')}`, { headers: bearer(t.tokens.Admin) }).then(
      async (res) => {
        slowDone = true;
        return res.json();
      },
    );
    // The slow query has to be running before the quick request is sent.
    await sleep(100);
    const quick = await fetch(`${t.baseUrl}/api/graph`, { headers: bearer(t.tokens.Admin) });
    expect(quick.status).toBe(200);
    expect(slowDone).toBe(false);
    expect(await slow).toMatchObject({ data: [{ n: 20_000_000 }] });
  });

  it('drops its database connection when the client goes away mid-query', async () => {
    const client = await adminClient(t.falkordb);
    const connections = async () =>
      (await client.sendCommand<string>(['CLIENT', 'LIST']))
        .split('\n')
        .filter((line) => line.includes('user=stream-admin')).length;
    try {
      const pending = abortableGet(`${t.baseUrl}${url('social', SLOW_QUERY, '60000')}`, sse(t.tokens.Admin));
      // Let the query reach FalkorDB on its connection before counting and aborting.
      await sleep(300);
      const during = await connections();
      expect(during).toBeGreaterThan(0);
      pending.abort();
      await expect(pending.done).rejects.toThrow('aborted by the test');
      // FalkorDB finishes the query on its own thread, then notices the closed socket.
      let after = during;
      await eventually(async () => (after = await connections()) < during, 5000, 100);
      expect(after).toBe(during - 1);
    } finally {
      await client.close();
    }
  });
});

describe('keys named __proto__', () => {
  it('keeps them in rows, maps and properties, as JSON and as SSE', async () => {
    await graphQuery(t.falkordb, 'protos', "CREATE (:Thing {`__proto__`: 'prop'})");
    const query = "MATCH (n:Thing) RETURN {`__proto__`: 'map', inner: 1} AS m, n, 'column' AS `__proto__`";
    const json = await t.app.inject({
      method: 'GET',
      url: url('protos', query),
      headers: bearer(t.tokens['Read-Only']),
    });
    expect(json.statusCode).toBe(200);
    const text = json.body;
    expect(text).toContain('"__proto__":"map"');
    expect(text).toContain('"__proto__":"prop"');
    expect(text).toContain('"__proto__":"column"');
    const stream = await t.app.inject({
      method: 'GET',
      url: url('protos', query),
      headers: sse(t.tokens['Read-Only']),
    });
    expect(stream.body).toContain('"__proto__":"map"');
    expect(stream.body).toContain('"__proto__":"column"');
  });
});

describe('LOAD CSV from URLs', () => {
  const refused = { message: 'LOAD CSV may only read file:// URLs given as a string literal', code: 'invalid_request' };
  const attempts = [
    "LOAD CSV FROM 'http://169.254.169.254/latest/meta-data' AS row RETURN row",
    "load /* hidden */ csv\n with headers // note\n from 'https://example.org/x.csv' AS row RETURN row",
    'LOAD CSV FROM $url AS row RETURN row',
    "LOAD CSV FROM 'file://' + 'x' AS row RETURN row",
    "LOAD CSV FROM 'file://../../etc/passwd' AS row RETURN row",
  ];

  it.each(attempts)('refuses %j with 400 on the JSON query route, explain and profile', async (query) => {
    const json = await t.app.inject({ method: 'GET', url: url('csv', query), headers: bearer(t.tokens['Read-Only']) });
    expect(json.statusCode).toBe(400);
    expect(json.json()).toEqual(refused);
    for (const route of ['explain', 'profile']) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/graph/csv/${route}?query=${encodeURIComponent(query)}`,
        headers: bearer(t.tokens.Admin),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(refused);
    }
  });

  it('answers an event-stream client with a 400 error event', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: url('csv', attempts[0]!),
      headers: sse(t.tokens['Read-Only']),
    });
    expect(parseEvents(res.body)).toEqual([{ event: 'error', data: { ...refused, status: 400 } }]);
  });

  it('lets file:// imports and a "LOAD CSV" inside a string literal through', async () => {
    const literal = await t.app.inject({
      method: 'GET',
      url: url('csv', 'RETURN \'LOAD CSV FROM "http://x" AS r\' AS s'),
      headers: bearer(t.tokens.Admin),
    });
    expect(literal.statusCode).toBe(200);
    const file = await t.app.inject({
      method: 'GET',
      url: `/api/graph/csv/explain?query=${encodeURIComponent("LOAD CSV FROM 'file://data.csv' AS row RETURN row")}`,
      headers: bearer(t.tokens.Admin),
    });
    expect(file.statusCode).not.toBe(400);
  });
});
