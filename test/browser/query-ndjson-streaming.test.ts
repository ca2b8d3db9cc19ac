// An NDJSON result streams out of the database's reply as it arrives, and only as fast as the client
// reads it. Proof without a clock: a client that stops reading after the first line leaves most of the reply in
// FalkorDB's output buffer for our connection (CLIENT LIST `omem`), which a server holding the whole reply would
// have emptied; the query stays listed, and stoppable, until its last row was read.
import { get as httpGet, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, bearer, graphQuery, parseLines, useBrowserApp } from '../support/browser.js';
import { eventually } from '../support/wait.js';

const ROWS = 200_000;
// About 230 bytes of reply per row, 46 MB in all: more than the sockets between FalkorDB, the server and the test
// can buffer, so a server that reads only what its client takes cannot have read it all.
const QUERY = `UNWIND range(1, ${ROWS}) AS x RETURN x, '${'p'.repeat(200)}' AS pad`;

const t = useBrowserApp({
  prefix: 'ndstream',
  listen: true,
  env: { QUERY_ROWS_MAX: '1000000', QUERY_RESULT_BYTES_MAX: String(256 * 1024 * 1024) },
});
let admin: Awaited<ReturnType<typeof adminClient>>;
beforeAll(async () => {
  await graphQuery(t.falkordb, 'streamed', 'CREATE (:Seed)');
  admin = await adminClient(t.falkordb);
});
afterAll(() => admin?.close());

/** Bytes FalkorDB holds, unsent, for the Read-Only user's connections (the reply our server has not read yet). */
async function unsentBytes(): Promise<number> {
  const list = await admin.sendCommand<string>(['CLIENT', 'LIST']);
  return list
    .split('\n')
    .filter((line) => line.includes(' user=ndstream-read-only '))
    .reduce((sum, line) => sum + Number(/ omem=(\d+)/.exec(line)?.[1] ?? 0), 0);
}

const listed = async () => {
  const res = await t.app.inject({ method: 'GET', url: '/api/queries', headers: bearer(t.tokens['Read-Only']) });
  return res.json<{ queries: { id: string }[] }>().queries;
};

/** An NDJSON GET that stops reading after its first chunk, until `rest()` reads on. */
function pausedStream(query: string, timeoutMs = 60_000) {
  let response: IncomingMessage | undefined;
  let body = '';
  const url = `${t.baseUrl}/api/graph/streamed?query=${encodeURIComponent(query)}&timeout=${timeoutMs}`;
  const request = httpGet(
    url,
    { headers: { ...bearer(t.tokens['Read-Only']), accept: 'application/x-ndjson' }, agent: false },
    () => undefined,
  );
  const first = new Promise<void>((resolve, reject) => {
    request.on('error', reject);
    request.on('response', (res: IncomingMessage) => {
      response = res;
      res.setEncoding('utf8');
      res.once('data', (chunk: string) => {
        body += chunk;
        res.pause();
        resolve();
      });
    });
  });
  return {
    first,
    get status() {
      return response?.statusCode;
    },
    get body() {
      return body;
    },
    rest: () =>
      new Promise<string>((resolve, reject) => {
        response!.on('data', (chunk: string) => (body += chunk));
        response!.on('end', () => resolve(body));
        response!.on('error', reject);
        response!.resume();
      }),
    abort: () => request.destroy(new Error('aborted by the test')),
  };
}

const parse = (body: string) => parseLines(body.trimEnd() === '' ? '' : `${body.trimEnd()}\n`);

describe('NDJSON streaming', () => {
  it('reads the reply only as fast as the client: the rest waits in FalkorDB, then every row arrives in order', async () => {
    const stream = pausedStream(QUERY);
    await stream.first;
    expect(stream.status).toBe(200);
    expect(JSON.parse(stream.body.split('\n')[0]!)).toEqual({ type: 'header', columns: ['x', 'pad'] });
    // The first line is out and the client reads no further: megabytes of the reply stay in FalkorDB.
    await eventually(async () => (await unsentBytes()) > 4 * 1024 * 1024, 20_000);
    // The query is not over until its last row is read: still listed for its owner.
    expect(await listed()).toHaveLength(1);

    const lines = parse(await stream.rest());
    expect(lines).toHaveLength(ROWS + 2);
    expect(lines[1]).toEqual({ type: 'row', data: { x: 1, pad: 'p'.repeat(200) } });
    const xs = lines.slice(1, -1).map((line) => (line.data as { x: number }).x);
    expect(xs.every((x, index) => x === index + 1)).toBe(true);
    expect(lines.at(-1)).toMatchObject({ type: 'summary', rows: ROWS, truncated: false });
    await eventually(async () => (await listed()).length === 0, 5000);
    expect(await unsentBytes()).toBe(0);
  });

  it('stops mid-stream when the query is stopped: an error line in place of the summary, the reply dropped', async () => {
    const stream = pausedStream(QUERY);
    await stream.first;
    await eventually(async () => (await unsentBytes()) > 4 * 1024 * 1024, 20_000);
    const [running] = await listed();
    const stop = await t.app.inject({
      method: 'DELETE',
      url: `/api/queries/${running!.id}`,
      headers: bearer(t.tokens['Read-Only']),
    });
    expect(stop.statusCode).toBe(200);
    // The connection that held the rest of the reply is gone, so is what FalkorDB held for it.
    await eventually(async () => (await unsentBytes()) === 0, 10_000);
    const lines = parse(await stream.rest());
    expect(lines[0]).toEqual({ type: 'header', columns: ['x', 'pad'] });
    expect(lines.at(-1)).toEqual({
      type: 'error',
      message: 'The query was stopped (DELETE /api/queries/{id})',
      status: 409,
      code: 'conflict',
    });
    expect(lines.length).toBeLessThan(ROWS + 2);
    expect(lines.slice(1, -1).every((line) => line.type === 'row')).toBe(true);
  });

  it('drops the reply when the client goes away mid-stream, and frees the query', async () => {
    const stream = pausedStream(QUERY);
    await stream.first;
    await eventually(async () => (await unsentBytes()) > 4 * 1024 * 1024, 20_000);
    stream.abort();
    await eventually(async () => (await unsentBytes()) === 0, 10_000);
    await eventually(async () => (await listed()).length === 0, 5000);
    // The server goes on answering on fresh connections.
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/graph/streamed?query=${encodeURIComponent('RETURN 1 AS one')}&timeout=1000`,
      headers: { ...bearer(t.tokens['Read-Only']), accept: 'application/x-ndjson' },
    });
    expect(parse(res.body)).toEqual([
      { type: 'header', columns: ['one'] },
      { type: 'row', data: { one: 1 } },
      expect.objectContaining({ type: 'summary', rows: 1 }) as unknown,
    ]);
  });

  it('ends a stream its client stopped reading once the database has been silent past the deadline', async () => {
    // The query's timeout (3 s) and the 5 s grace bound the reply's silence: a client that reads nothing for
    // longer loses the rest, and FalkorDB what it held for it.
    const stream = pausedStream(QUERY, 3000);
    await stream.first;
    await eventually(async () => (await unsentBytes()) > 4 * 1024 * 1024, 20_000);
    await eventually(async () => (await unsentBytes()) === 0, 20_000);
    const lines = parse(await stream.rest());
    expect(lines.at(-1)).toMatchObject({ type: 'error', status: 503 });
    await eventually(async () => (await listed()).length === 0, 5000);
  });

  it('names what a write created in the rows it streams, on a graph that did not exist', async () => {
    const query = 'CREATE (n:Fresh {k: 1})-[r:MADE {at: 2}]->(:Other) RETURN n, r';
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/graph/fresh-stream?query=${encodeURIComponent(query)}&timeout=5000`,
      headers: { ...bearer(t.tokens.Admin), accept: 'application/x-ndjson' },
    });
    expect(res.statusCode).toBe(200);
    const [header, row, summary] = parse(res.body);
    expect(header).toEqual({ type: 'header', columns: ['n', 'r'] });
    expect(row).toMatchObject({
      type: 'row',
      data: { n: { labels: ['Fresh'], properties: { k: 1 } }, r: { relationshipType: 'MADE', properties: { at: 2 } } },
    });
    expect(summary).toMatchObject({ type: 'summary', rows: 1 });
  });
});
