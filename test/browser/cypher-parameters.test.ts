// `params` on the query route: every JSON value type arrives in FalkorDB as the value it is, text never
// becomes Cypher, and bad parameters are a 400 before anything runs.
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, graphQuery, parseEvents, useBrowserApp } from '../support/browser.js';
import { parseQueryParams } from '../../src/browser/graphs/cypher-parameters.js';

const t = useBrowserApp({ prefix: 'params' });
beforeAll(async () => {
  await graphQuery(
    t.falkordb,
    'people',
    "CREATE (:Person {name: 'Ada', born: 1815}), (:Person {name: 'Charles', born: 1791})",
  );
});

const run = (query: string, params: unknown, token = t.tokens['Read-Only'], accept?: string) =>
  t.app.inject({
    method: 'GET',
    url: `/api/graph/people?query=${encodeURIComponent(query)}&timeout=5000&params=${encodeURIComponent(typeof params === 'string' ? params : JSON.stringify(params))}`,
    headers: { ...bearer(token), ...(accept ? { accept } : {}) },
  });

describe('query parameters', () => {
  it('passes every JSON value type through as that value', async () => {
    const params = {
      nothing: null,
      yes: true,
      no: false,
      int: 42,
      negative: -7,
      float: 1.5,
      text: 'Ada "the first" \\ Lovelace ü 🙂',
      list: [1, 'two', [3]],
      map: { a: 1, b: ['x'] },
    };
    const res = await run(
      'RETURN $nothing AS nothing, $yes AS yes, $no AS no, $int AS int, $negative AS negative, $float AS float, $text AS text, $list AS list, $map AS map',
      params,
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ data: unknown[] }>().data).toEqual([params]);
  });

  it('uses parameters in matching, as JSON and as an event stream', async () => {
    const json = await run('MATCH (p:Person) WHERE p.born < $before RETURN p.name AS name', { before: 1800 });
    expect(json.json<{ data: unknown[] }>().data).toEqual([{ name: 'Charles' }]);
    const events = parseEvents(
      (
        await run(
          'MATCH (p:Person {name: $name}) RETURN p.born AS born',
          { name: 'Ada' },
          t.tokens['Read-Only'],
          'text/event-stream',
        )
      ).body,
    );
    expect(events).toEqual([{ event: 'result', data: expect.objectContaining({ data: [{ born: 1815 }] }) as unknown }]);
  });

  it('keeps a value that looks like Cypher a value: nothing is created', async () => {
    const before = await graphQuery(t.falkordb, 'people', 'MATCH (n) RETURN count(n)');
    const res = await run(
      'RETURN $name AS name',
      { name: '" RETURN 1 UNION CREATE (:Injected) RETURN 1 //' },
      t.tokens['Read-Write'],
    );
    expect(res.json<{ data: unknown[] }>().data).toEqual([{ name: '" RETURN 1 UNION CREATE (:Injected) RETURN 1 //' }]);
    expect(await graphQuery(t.falkordb, 'people', 'MATCH (n) RETURN count(n)')).toEqual(before);
  });

  it.each([
    ['[1, 2]', 'Invalid parameter params: params must be a JSON object'],
    ['{"name": ', 'Invalid parameter params: params must be a JSON object'],
    ['"text"', 'Invalid parameter params: params must be a JSON object'],
    [JSON.stringify({ 'bad name': 1 }), 'invalid parameter name bad name'],
    [JSON.stringify({ x: 'a\u0000b' }), 'values must not contain NUL characters'],
    [
      JSON.stringify({ deep: JSON.parse('['.repeat(40) + ']'.repeat(40)) as unknown }),
      'Invalid parameter params: params: values nest deeper than 32 levels',
    ],
  ])('refuses params %s with 400 before running anything', async (params, message) => {
    const res = await run('RETURN 1 AS one', params);
    expect([res.statusCode, res.json()]).toEqual([400, { message, code: 'invalid_request' }]);
    const events = parseEvents((await run('RETURN 1 AS one', params, t.tokens['Read-Only'], 'text/event-stream')).body);
    expect(events).toEqual([{ event: 'error', data: { message, status: 400, code: 'invalid_request' } }]);
  });

  it('bounds the size of params', () => {
    expect(parseQueryParams(JSON.stringify({ big: 'x'.repeat(70_000) }))).toEqual({
      error: 'params must be at most 65536 bytes',
    });
  });
});
