// Server-sent events on a hijacked reply: headers, named events, comment heartbeats, and the disconnect signal.
import type { FastifyReply, FastifyRequest } from 'fastify';

export const HEARTBEAT_INTERVAL_MS = 15_000;
/** How long the headers may wait for the first event before they are sent on their own. */
const HEADERS_FLUSH_MS = 50;

/** Whether the request's Accept header names `mediaType` (the routes offer one alternative each to JSON). */
export function accepts(request: FastifyRequest, mediaType: string): boolean {
  const accept = request.headers.accept;
  return typeof accept === 'string' && accept.includes(mediaType);
}

export function wantsEventStream(request: FastifyRequest): boolean {
  return accepts(request, 'text/event-stream');
}

/** `json` must be JSON text, which never holds a raw newline: one `data:` line carries the whole payload. */
function eventText(event: string, json: string): string {
  return `event: ${event}\ndata: ${json}\n\n`;
}

export function formatEvent(event: string, data: unknown): string {
  return eventText(event, JSON.stringify(data));
}

/** Resolves when a full socket buffer has drained, or at once when the stream is aborted. */
function drained(raw: NodeJS.WritableStream, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      raw.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    raw.once('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
}

export interface EventStream {
  send(event: string, data: unknown): void;
  /** Text already framed as events (`data: …\n\n`), written as it is. */
  write(text: string): void;
  /**
   * One event whose JSON data arrives in pieces: written as they come, waiting whenever the socket's buffer is
   * full, so a large payload is never one string. Stops early when the client goes away.
   */
  sendChunks(event: string, jsonChunks: Iterable<string>): Promise<void>;
  /** A last event given as JSON text, sent together with the end of the stream (one write, not two). */
  endWith(event: string, json: string): void;
  end(): void;
  /** Aborted when the client goes away before the stream ends. */
  signal: AbortSignal;
}

/** Headers an event stream sets itself: the reply's own values of these are left out, not sent twice. */
const STREAM_HEADERS = new Set(['content-type', 'cache-control', 'x-accel-buffering', 'content-length']);

export function openEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  heartbeatMs = HEARTBEAT_INTERVAL_MS,
): EventStream {
  void reply.hijack();
  return new HijackedEventStream(request, reply, heartbeatMs);
}

/**
 * A class, not an object literal, so that the abort controller can be made only when `signal` is read (a getter on
 * the prototype keeps one shape; the ninth session's getter in a literal gave each stream a shape of its own and
 * made the SSE query 11–15% slower). A quick query result never reads it, and creating it cost about 2 µs.
 */
class HijackedEventStream implements EventStream {
  private readonly raw: FastifyReply['raw'];
  private headersSent = false;
  private ended = false;
  private closedByClient = false;
  private controller: AbortController | undefined = undefined;
  /** One timer at a time: the headers' flush, then the heartbeat it starts (a quick result never starts one). */
  private timer: NodeJS.Timeout;
  private readonly onClose = (): void => {
    if (this.ended) return;
    this.ended = true;
    this.closedByClient = true;
    clearTimeout(this.timer);
    this.controller?.abort();
    // Nothing more will be written: release the socket now rather than at the keep-alive timeout
    // (by this point the response may already be detached from it).
    this.raw.socket?.destroy();
    this.request.log.info('event stream closed by the client');
  };

  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
    heartbeatMs: number,
  ) {
    const raw = reply.raw;
    this.raw = raw;
    this.timer = setTimeout(() => {
      this.sendHeaders();
      raw.flushHeaders();
      this.timer = setInterval(() => raw.write(': heartbeat\n\n'), heartbeatMs);
    }, HEADERS_FLUSH_MS);
    // A client that goes away may only half-close its side (FIN): watch the socket's end as well as the response's close.
    raw.on('close', this.onClose);
    raw.socket?.on('end', this.onClose);
  }

  /** Aborted when the client goes away before the stream ends. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.closedByClient) this.controller.abort();
    }
    return this.controller.signal;
  }

  /**
   * The headers go with the first write. A result that is known whole before HEADERS_FLUSH_MS ends the stream
   * with a Content-Length, in one write, as a JSON answer does (no chunked framing); a slower one shows the client
   * its 200 at HEADERS_FLUSH_MS and is streamed. Given to Node as one flat list of names and values.
   */
  private sendHeaders(contentLength?: number): void {
    if (this.headersSent) return;
    this.headersSent = true;
    const headers: string[] = [];
    const replyHeaders = this.reply.getHeaders();
    for (const name in replyHeaders) {
      const value = replyHeaders[name];
      if (typeof value === 'string' && !STREAM_HEADERS.has(name)) headers.push(name, value);
    }
    headers.push('content-type', 'text/event-stream; charset=utf-8', 'cache-control', 'no-cache');
    headers.push('x-accel-buffering', 'no');
    if (contentLength !== undefined) headers.push('content-length', String(contentLength));
    this.raw.writeHead(200, headers);
  }

  private finish(last?: string): void {
    if (this.ended) return;
    this.ended = true;
    // clearTimeout clears an interval too (Node's timers share one kind).
    clearTimeout(this.timer);
    this.raw.off('close', this.onClose);
    this.raw.socket?.off('end', this.onClose);
    this.sendHeaders(last === undefined ? 0 : Buffer.byteLength(last));
    // The stream's end is logged by the access line of its request (logging.ts), as any answer is.
    if (last === undefined) this.raw.end();
    else this.raw.end(last);
  }

  send(event: string, data: unknown): void {
    if (this.ended) return;
    this.sendHeaders();
    this.raw.write(formatEvent(event, data));
  }

  write(text: string): void {
    if (this.ended) return;
    this.sendHeaders();
    this.raw.write(text);
  }

  async sendChunks(event: string, jsonChunks: Iterable<string>): Promise<void> {
    if (this.ended) return;
    this.sendHeaders();
    const raw = this.raw;
    raw.write(`event: ${event}\ndata: `);
    for (const chunk of jsonChunks) {
      if (this.ended) return;
      if (!raw.write(chunk)) await drained(raw, this.signal);
    }
    if (!this.ended) raw.write('\n\n');
  }

  end(): void {
    this.finish();
  }

  endWith(event: string, json: string): void {
    this.finish(eventText(event, json));
  }
}
