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

export function openEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  heartbeatMs = HEARTBEAT_INTERVAL_MS,
): EventStream {
  void reply.hijack();
  const raw = reply.raw;
  let headersSent = false;
  /**
   * The headers go with the first write. A result that is known whole before HEADERS_FLUSH_MS ends the stream
   * with a Content-Length, in one write, as a JSON answer does (no chunked framing); a slower one shows the client
   * its 200 at HEADERS_FLUSH_MS and is streamed.
   */
  const sendHeaders = (contentLength?: number) => {
    if (headersSent) return;
    headersSent = true;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(reply.getHeaders()))
      if (typeof value === 'string') headers[name] = value;
    raw.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      ...(contentLength === undefined ? {} : { 'content-length': String(contentLength) }),
    });
  };
  // One timer at a time: the headers' flush, then the heartbeat it starts (a quick result never starts one).
  let timer: NodeJS.Timeout = setTimeout(() => {
    sendHeaders();
    raw.flushHeaders();
    timer = setInterval(() => raw.write(': heartbeat\n\n'), heartbeatMs);
  }, HEADERS_FLUSH_MS);

  const controller = new AbortController();
  const socket = raw.socket;
  let ended = false;
  const onClose = () => {
    if (!ended) {
      ended = true;
      clearTimeout(timer);
      controller.abort();
      // Nothing more will be written: release the socket now rather than at the keep-alive timeout
      // (by this point the response may already be detached from it).
      socket?.destroy();
      request.log.info('event stream closed by the client');
    }
  };
  // A client that goes away may only half-close its side (FIN): watch the socket's end as well as the response's close.
  raw.on('close', onClose);
  socket?.on('end', onClose);
  const finish = (last?: string) => {
    if (ended) return;
    ended = true;
    // clearTimeout clears an interval too (Node's timers share one kind).
    clearTimeout(timer);
    raw.off('close', onClose);
    socket?.off('end', onClose);
    sendHeaders(last === undefined ? 0 : Buffer.byteLength(last));
    // The stream's end is logged by the access line of its request (logging.ts), as any answer is.
    if (last === undefined) raw.end();
    else raw.end(last);
  };
  return {
    signal: controller.signal,
    send(event, data) {
      if (ended) return;
      sendHeaders();
      raw.write(formatEvent(event, data));
    },
    write(text) {
      if (ended) return;
      sendHeaders();
      raw.write(text);
    },
    async sendChunks(event, jsonChunks) {
      if (ended) return;
      sendHeaders();
      raw.write(`event: ${event}\ndata: `);
      for (const chunk of jsonChunks) {
        if (ended) return;
        if (!raw.write(chunk)) await drained(raw, controller.signal);
      }
      if (!ended) raw.write('\n\n');
    },
    end() {
      finish();
    },
    endWith(event, json) {
      finish(eventText(event, json));
    },
  };
}
