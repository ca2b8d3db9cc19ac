// openEventStream through a real Fastify and real sockets: the reply's own headers carried once each, the stream's
// headers in place of the reply's values of them, and the abort signal (made only when read) aborted for a client
// that went away, whether it is read before or after.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEventStream, type EventStream } from '../../src/shared/sse.js';

const app = Fastify();
const opened: EventStream[] = [];
let baseUrl = '';

app.get('/quick', (request, reply) => {
  void reply.header('x-custom', 'kept').header('content-type', 'application/json').header('cache-control', 'max-age=5');
  const stream = openEventStream(request, reply);
  stream.endWith('result', '{"ok":true}');
  return reply;
});
app.get('/held', (request, reply) => {
  const stream = openEventStream(request, reply);
  opened.push(stream);
  if (request.headers['x-read-signal'] === 'early') void stream.signal;
  stream.write(': open\n\n');
  return reply;
});

beforeAll(async () => {
  await app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(() => app.close());

/** Opens /held, waits for its first bytes, then goes away. */
function openAndLeave(readSignal: 'early' | 'late'): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${baseUrl}/held`, { headers: { 'x-read-signal': readSignal } }, (response) => {
      response.once('data', () => {
        request.destroy();
        resolve();
      });
    });
    request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
  });
}

describe('openEventStream', () => {
  it("sends the reply's headers once each, with the stream's own in place of the reply's values of them", async () => {
    const res = await fetch(`${baseUrl}/quick`);
    const body = await res.text();
    expect(res.status).toBe(200);
    expect(body).toBe('event: result\ndata: {"ok":true}\n\n');
    expect(res.headers.get('x-custom')).toBe('kept');
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
  });

  it.each(['early', 'late'] as const)('aborts the signal of a client that went away (signal read %s)', async (when) => {
    opened.length = 0;
    await openAndLeave(when);
    await expect.poll(() => opened[0]?.signal.aborted, { timeout: 2000, interval: 10 }).toBe(true);
  });
});
