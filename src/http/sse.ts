// Server-sent events: headers, named events, comment heartbeats, and the disconnect signal. A result known whole
// before anything was written goes out through the reply like any answer; anything streamed, on the hijacked reply.
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

const EVENT_STREAM_TYPE = 'text/event-stream; charset=utf-8';

/** Headers an event stream sets itself: the reply's own values of these are left out, not sent twice. */
const STREAM_HEADERS = new Set(['content-type', 'cache-control', 'x-accel-buffering', 'content-length']);

export function openEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  heartbeatMs = HEARTBEAT_INTERVAL_MS,
): EventStream {
  return new ReplyEventStream(request, reply, heartbeatMs);
}

/**
 * A class, not an object literal, so that the abort controller can be made only when `signal` is read (a getter on
 * the prototype keeps one shape; a getter in an object literal gave each stream a shape of its own and
 * made the SSE query 11–15% slower). A quick query result never reads it, and creating it cost about 2 µs.
 */
class ReplyEventStream implements EventStream {
  private readonly raw: FastifyReply['raw'];
  /** The answer is under way: the stream started (hijacked, headers written), or its whole result was sent. */
  private answerStarted = false;
  private ended = false;
  private closedByClient = false;
  private controller: AbortController | undefined = undefined;
  /** One timer at a time: the headers' flush, then the heartbeat it starts (a quick result never starts one). */
  private timer: NodeJS.Timeout;
  private readonly onClose = (): void => {
    if (this.ended) return;
    // A response that finished before the stream did was answered by something else (the error handler, for an
    // error the route let escape): the client did not leave, and its connection stays open for its next request.
    if (this.raw.writableFinished) {
      this.stopWatching();
      return;
    }
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
      this.startStreaming();
      if (this.ended) return;
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
   * The reply is hijacked, and its headers written, only when the stream starts: its first write, or HEADERS_FLUSH_MS
   * without one (the client then sees its 200 and waits for events). Given to Node as one flat list of names and
   * values, the reply's own headers included.
   */
  private startStreaming(): void {
    if (this.answerStarted) return;
    this.answerStarted = true;
    // Answered by something else (the error handler, for an error the route let escape): nothing more to write.
    if (this.reply.sent) {
      this.stopWatching();
      return;
    }
    void this.reply.hijack();
    const headers: string[] = [];
    const replyHeaders = this.reply.getHeaders();
    for (const name in replyHeaders) {
      if (STREAM_HEADERS.has(name)) continue;
      const value = replyHeaders[name];
      // A repeated header (Set-Cookie) goes once per value; a number as its text.
      if (Array.isArray(value)) for (const item of value) headers.push(name, item);
      else if (value !== undefined) headers.push(name, String(value));
    }
    headers.push('content-type', EVENT_STREAM_TYPE, 'cache-control', 'no-cache', 'x-accel-buffering', 'no');
    this.raw.writeHead(200, headers);
  }

  /**
   * A stream that never started (a result known whole before HEADERS_FLUSH_MS, the usual quick query) is sent
   * through the reply on the path a JSON answer takes: one write with a Content-Length, the reply's headers and
   * onSend hooks as for any answer, no copy of the headers of our own.
   */
  private finish(last?: string): void {
    if (this.ended) return;
    this.stopWatching();
    // The stream's end is logged by the access line of its request (logging.ts), as any answer is.
    if (!this.answerStarted) {
      this.answerStarted = true;
      if (this.reply.sent) return;
      void this.reply
        .header('cache-control', 'no-cache')
        .header('x-accel-buffering', 'no')
        .type(EVENT_STREAM_TYPE)
        .send(last ?? '');
      return;
    }
    if (last === undefined) this.raw.end();
    else this.raw.end(last);
  }

  /** The stream writes no more: its timer and its watch of the client stop. */
  private stopWatching(): void {
    this.ended = true;
    // clearTimeout clears an interval too (Node's timers share one kind).
    clearTimeout(this.timer);
    this.raw.off('close', this.onClose);
    this.raw.socket?.off('end', this.onClose);
  }

  send(event: string, data: unknown): void {
    if (this.ended) return;
    this.startStreaming();
    if (!this.ended) this.raw.write(formatEvent(event, data));
  }

  write(text: string): void {
    if (this.ended) return;
    this.startStreaming();
    if (!this.ended) this.raw.write(text);
  }

  async sendChunks(event: string, jsonChunks: Iterable<string>): Promise<void> {
    if (this.ended) return;
    this.startStreaming();
    if (this.ended) return;
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
