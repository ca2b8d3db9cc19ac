// `Accept: application/x-ndjson` streams a header, one line per row and a summary; `maxRows` cuts a result
// and says so with `truncated` in every answer form, instead of refusing it.
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, graphQuery, parseEvents, parseLines, useBrowserApp } from '../support/browser.js';

const t = useBrowserApp({ prefix: 'ndjson', env: { QUERY_ROWS_MAX: '10000' } });
beforeAll(async () => {
  await graphQuery(
    t.falkordb,
    'people',
    "CREATE (:Person {name: 'Ada', born: 1815})-[:KNOWS {since: 1833}]->(:Person {name: 'Charles', born: 1791})",
  );
});

const run = (query: string, options: { accept?: string; maxRows?: string; role?: 'Read-Only' | 'Admin' } = {}) =>
  t.app.inject({
    method: 'GET',
    url: `/api/graph/people?query=${encodeURIComponent(query)}&timeout=20000${options.maxRows === undefined ? '' : `&maxRows=${options.maxRows}`}`,
    headers: {
      ...bearer(t.tokens[options.role ?? 'Read-Only']),
      ...(options.accept ? { accept: options.accept } : {}),
    },
  });

const NDJSON = 'application/x-ndjson';
const lines = (body: string) => {
  expect(body.endsWith('\n')).toBe(true);
  return parseLines(body);
};

describe('NDJSON results', () => {
  it('answers a header with the columns, one line per decoded row, and a summary with the statistics', async () => {
    const res = await run('MATCH (a:Person)-[r:KNOWS]->(b) RETURN a.name AS name, r.since AS since, b ORDER BY name', {
      accept: NDJSON,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    const [header, row, summary, ...rest] = lines(res.body);
    expect(rest).toEqual([]);
    expect(header).toEqual({ type: 'header', columns: ['name', 'since', 'b'] });
    expect(row).toEqual({
      type: 'row',
      data: {
        name: 'Ada',
        since: 1833,
        b: { id: expect.any(Number) as unknown, labels: ['Person'], properties: { name: 'Charles', born: 1791 } },
      },
    });
    expect(summary).toMatchObject({ type: 'summary', rows: 1, truncated: false });
    expect((summary!.metadata as string[]).some((line) => line.startsWith('Query internal execution time'))).toBe(true);
  });

  it('streams a long result line by line, every row once and in order', async () => {
    const res = await run('UNWIND range(1, 5000) AS x RETURN x, toString(x) AS text', { accept: NDJSON });
    expect(res.statusCode).toBe(200);
    const parsed = lines(res.body);
    expect(parsed).toHaveLength(5002);
    const rows = parsed.slice(1, -1).map((line) => (line.data as { x: number; text: string }).x);
    expect(rows).toEqual(Array.from({ length: 5000 }, (_, index) => index + 1));
    expect(parsed.at(-1)).toMatchObject({ type: 'summary', rows: 5000, truncated: false });
  });

  it('answers a query without columns with a header of none and a summary of its statistics', async () => {
    const res = await run("CREATE (:Person {name: 'Grace'})", { accept: NDJSON, role: 'Admin' });
    const [header, summary] = lines(res.body);
    expect(header).toEqual({ type: 'header', columns: [] });
    expect(summary).toMatchObject({ type: 'summary', rows: 0, truncated: false });
    expect(summary!.metadata).toContain('Nodes created: 1');
  });

  it('answers an error before the first line as a JSON error, and keeps the role rules', async () => {
    const bad = await run('RETURN nothing', { accept: NDJSON });
    expect([bad.statusCode, bad.headers['content-type']]).toEqual([400, 'application/json; charset=utf-8']);
    expect(bad.json<{ message: string }>().message).toMatch(/nothing/);
    const write = await run("CREATE (:Person {name: 'Eve'})", { accept: NDJSON });
    expect(write.statusCode).toBe(400);
    expect(await graphQuery(t.falkordb, 'people', "MATCH (p:Person {name: 'Eve'}) RETURN p")).toEqual([]);
  });
});

describe('maxRows', () => {
  const QUERY = 'UNWIND range(1, 10) AS x RETURN x';

  it('cuts a longer JSON result and says so; a shorter one is whole and says that too', async () => {
    const cut = await run(QUERY, { maxRows: '3' });
    expect(cut.statusCode).toBe(200);
    expect(cut.json()).toMatchObject({ data: [{ x: 1 }, { x: 2 }, { x: 3 }], truncated: true });
    const whole = await run(QUERY, { maxRows: '10' });
    expect(whole.json<{ data: unknown[]; truncated: boolean }>()).toMatchObject({ truncated: false });
    expect(whole.json<{ data: unknown[] }>().data).toHaveLength(10);
  });

  it('leaves the specified body as it is when not asked for', async () => {
    const plain = await run(QUERY);
    expect(Object.keys(plain.json())).toEqual(['metadata', 'data']);
  });

  it('marks the result event and the NDJSON summary', async () => {
    const events = parseEvents((await run(QUERY, { maxRows: '2', accept: 'text/event-stream' })).body);
    expect(events).toEqual([
      { event: 'result', data: expect.objectContaining({ data: [{ x: 1 }, { x: 2 }], truncated: true }) as unknown },
    ]);
    const parsed = lines((await run(QUERY, { maxRows: '4', accept: NDJSON })).body);
    expect(parsed).toHaveLength(6);
    expect(parsed.at(-1)).toMatchObject({ type: 'summary', rows: 4, truncated: true });
  });

  it.each(['0', '-1', 'ten', '1.5', '1000000000'])('refuses maxRows=%s with 400', async (maxRows) => {
    const res = await run(QUERY, { maxRows });
    expect([res.statusCode, res.json()]).toEqual([
      400,
      { message: 'Invalid parameter maxRows', code: 'invalid_request' },
    ]);
  });
});
