// One query against the browser API, its result read as NDJSON (`Accept: application/x-ndjson`) line by line as it
// arrives and handed to a writer, which waits for its output to drain: the shell holds one chunk at a time. The answer
// is read through node:http, whose socket stops reading while a chunk waits (read through fetch's web stream, with a
// promise per row, the shell's peak memory grew with the result's length: bench/shell-memory.ts), and split into lines
// on its bytes (a newline byte never occurs inside a UTF-8 character). For NDJSON and JSON output a row's `data` object
// is passed through as the server's bytes, without being parsed and serialised again, one write per network chunk:
// no string or object per row. With a parse and a re-serialisation per row, the shell's peak memory streaming
// 1,000,000 rows was 20-35 MiB above a 1,000-row result's; passed through, a few MiB (bench/shell-memory.ts). Stopping
// (Ctrl-C) asks the server to stop the query (DELETE /api/queries/{id}, found in GET /api/queries) and drops the
// connection.
import type { IncomingMessage } from 'node:http';
import http from 'node:http';
import https from 'node:https';
import { connectionCause } from '../cli-errors.js';
import type { ResultWriter } from './formats.js';

export interface Connection {
  server: string;
  token: string;
}

export interface QueryOutcome {
  ok: boolean;
  rows: number;
  /** The server's statistics (`Nodes created: 1`, `Query internal execution time: …`). */
  statistics: string[];
  truncated?: boolean;
  message?: string;
  /** 0 when ok; else the HTTP status of the failure (0 when no answer came, -1 when stopped). */
  status: number;
  stopped?: boolean;
}

interface RunningQuery {
  id: string;
  graph: string;
  query: string;
  started_at: string;
}

const headers = (connection: Connection, accept: string) => ({
  authorization: `Bearer ${connection.token}`,
  accept,
});

/** How the server begins a row's line (src/browser/graphs/result-json.ts); the line ends with the object's `}`. */
const ROW_PREFIX = Buffer.from('{"type":"row","data":');

/** A row line as the server frames it: its `data` object is the bytes between the prefix and the last `}`. */
function isRowLine(line: Buffer): boolean {
  return (
    line.length > ROW_PREFIX.length &&
    line[line.length - 1] === 0x7d &&
    line.compare(ROW_PREFIX, 0, ROW_PREFIX.length, 0, ROW_PREFIX.length) === 0
  );
}

/** A GET whose answer is read as a Node stream (with its backpressure), stopped by `signal`. */
function streamGet(url: URL, requestHeaders: Record<string, string>, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.get(url, { headers: requestHeaders, signal }, resolve);
    // Errors after the answer began (a dropped connection, the abort) reach the reader through the answer itself.
    req.on('error', reject);
  });
}

/** The server's message of an error answer. */
async function messageOf(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res as AsyncIterable<Buffer>) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON
  }
  return `${res.statusCode} ${res.statusMessage}`;
}

export class QueryRun {
  private readonly abort = new AbortController();
  private readonly startedAt = Date.now();
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly connection: Connection,
    private readonly graph: string,
    private readonly query: string,
  ) {}

  /** Runs the query, writing each row as it comes. */
  async run(params: Record<string, unknown>, timeoutMs: number, writer: ResultWriter): Promise<QueryOutcome> {
    const search = new URLSearchParams({ query: this.query, timeout: String(timeoutMs) });
    if (Object.keys(params).length > 0) search.set('params', JSON.stringify(params));
    const url = new URL(`/api/graph/${encodeURIComponent(this.graph)}?${search.toString()}`, this.connection.server);
    let res: IncomingMessage;
    try {
      res = await streamGet(url, headers(this.connection, 'application/x-ndjson'), this.abort.signal);
    } catch (error) {
      if (this.abort.signal.aborted) return this.stoppedOutcome(0);
      return {
        ok: false,
        rows: 0,
        statistics: [],
        status: 0,
        message: `cannot reach ${this.connection.server}: ${connectionCause(error)}`,
      };
    }
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300)
      return { ok: false, rows: 0, statistics: [], status, message: await messageOf(res) };
    let rows = 0;
    // The start of a line whose end has not arrived yet.
    let pending: Buffer | undefined;
    // Rows of the current chunk a pass-through writer takes as bytes, written together before anything else is.
    const raw: Buffer[] = [];
    const flushRaw = async () => {
      if (raw.length === 0) return;
      const full = writer.rawRows!(raw);
      raw.length = 0;
      if (full) await full;
    };
    try {
      for await (const chunk of res as AsyncIterable<Buffer>) {
        let start = 0;
        let end: number;
        while ((end = chunk.indexOf(10, start)) !== -1) {
          const line = pending ? Buffer.concat([pending, chunk.subarray(start, end)]) : chunk.subarray(start, end);
          pending = undefined;
          start = end + 1;
          if (line.length === 0) continue;
          if (writer.rawRows && isRowLine(line)) {
            rows++;
            raw.push(line.subarray(ROW_PREFIX.length, line.length - 1));
            continue;
          }
          await flushRaw();
          const event = JSON.parse(line.toString('utf8')) as
            | { type: 'header'; columns: string[] }
            | { type: 'row'; data: Record<string, unknown> }
            | { type: 'summary'; metadata: string[]; rows: number; truncated: boolean }
            | { type: 'error'; message: string; status: number };
          if (event.type === 'row') {
            rows++;
            // A writer answers a promise only when its output is full: then the reading waits for it to drain.
            const full = writer.row(event.data);
            if (full) await full;
          } else if (event.type === 'header') await writer.header(event.columns);
          else if (event.type === 'summary') {
            await writer.end();
            res.destroy();
            return { ok: true, rows, statistics: event.metadata, truncated: event.truncated, status: 0 };
          } else {
            await writer.end();
            res.destroy();
            if (this.stopping) return this.stoppedOutcome(rows);
            return { ok: false, rows, statistics: [], status: event.status, message: event.message };
          }
        }
        // The rows' bytes are views of this chunk: written (copied) before the next one is read.
        await flushRaw();
        if (start < chunk.length) {
          const rest = chunk.subarray(start);
          // A copy: a slice would keep the whole chunk alive while a long line arrives.
          pending = pending ? Buffer.concat([pending, rest]) : Buffer.from(rest);
        }
      }
    } catch (error) {
      if (this.abort.signal.aborted) return this.stoppedOutcome(rows);
      return { ok: false, rows, statistics: [], status: 0, message: `the result broke off: ${connectionCause(error)}` };
    }
    if (this.stopping) return this.stoppedOutcome(rows);
    return { ok: false, rows, statistics: [], status: 0, message: 'the result ended without its summary' };
  }

  private stoppedOutcome(rows: number): QueryOutcome {
    return { ok: false, rows, statistics: [], status: -1, stopped: true, message: 'stopped' };
  }

  /** Asks the server to stop this query, then drops the connection. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      try {
        const res = await fetch(new URL('/api/queries', this.connection.server), {
          headers: headers(this.connection, 'application/json'),
        });
        if (res.ok) {
          const { queries } = (await res.json()) as { queries: RunningQuery[] };
          // Ours: the same graph and text, started since we sent it; the newest when the token runs it twice.
          const text = this.query.slice(0, 1000);
          const ours = queries
            .filter(
              (q) => q.graph === this.graph && q.query === text && Date.parse(q.started_at) >= this.startedAt - 1000,
            )
            .at(-1);
          if (ours)
            await fetch(new URL(`/api/queries/${encodeURIComponent(ours.id)}`, this.connection.server), {
              method: 'DELETE',
              headers: headers(this.connection, 'application/json'),
            }).then((r) => r.body?.cancel());
        } else await res.body?.cancel();
      } catch {
        // The connection is dropped below in any case.
      } finally {
        this.abort.abort();
      }
    })();
    return this.stopping;
  }
}
