// openEventStream through a real Fastify and real sockets: the reply's own headers carried once each, the stream's
// headers in place of the reply's values of them, a result known whole sent through the reply (its onSend hooks see
// it) while a stream is written on the hijacked reply, and the abort signal (made only when read) aborted for a
// client that went away, whether it is read before or after.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEventStream, type EventStream } from '../../src/http/sse.js';
import { sleep } from '../support/wait.js';

const app = Fastify();
const opened: EventStream[] = [];
const sentThroughReply: string[] = [];
let baseUrl = '';

app.addHook('onSend', (request, _reply, payload, done) => {
  sentThroughReply.push(`${request.url} ${String(payload)}`);
  done(null, payload);
});

app.get('/quick', (request, reply) => {
  void reply.header('x-custom', 'kept').header('content-type', 'application/json').header('cache-control', 'max-age=5');
  const stream = openEventStream(request, reply);
  stream.endWith('result', '{"ok":true}');
  return reply;
});
app.get('/streamed', (request, reply) => {
  void reply.header('set-cookie', ['a=1', 'b=2']).header('x-count', 3).header('content-type', 'application/json');
  const stream = openEventStream(request, reply);
  stream.send('progress', { loaded: 1 });
  setImmediate(() => stream.endWith('result', '{"done":true}'));
  return reply;
});
app.get('/escaped', async (request, reply) => {
  opened.push(openEventStream(request, reply));
  await sleep(5);
  throw new Error('escaped the route');
});
app.get('/slow', (request, reply) => {
  const stream = openEventStream(request, reply);
  setTimeout(() => stream.endWith('result', '{"late":true}'), 120);
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

  it("carries the reply's repeated and numeric headers on a streamed answer", async () => {
    const res = await fetch(`${baseUrl}/streamed`);
    expect(await res.text()).toBe('event: progress\ndata: {"loaded":1}\n\nevent: result\ndata: {"done":true}\n\n');
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(res.headers.get('x-count')).toBe('3');
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  });

  it('sends a result known whole through the reply, and a stream on the hijacked reply', async () => {
    sentThroughReply.length = 0;
    const quick = await fetch(`${baseUrl}/quick`);
    expect(await quick.text()).toBe('event: result\ndata: {"ok":true}\n\n');
    expect(sentThroughReply).toEqual(['/quick event: result\ndata: {"ok":true}\n\n']);

    // Past the headers' flush the stream has started: its 200 went out alone, the result follows, chunked.
    const slow = await fetch(`${baseUrl}/slow`);
    expect(slow.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(slow.headers.get('content-length')).toBeNull();
    expect(slow.headers.get('transfer-encoding')).toBe('chunked');
    expect(await slow.text()).toBe('event: result\ndata: {"late":true}\n\n');
    expect(sentThroughReply).toHaveLength(1);
  });

  it('leaves a reply answered by the error handler alone, past the headers flush too', async () => {
    opened.length = 0;
    const res = await fetch(`${baseUrl}/escaped`);
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    await res.text();
    // The client did not go away: the stream's signal stays quiet and the connection is not cut.
    expect(opened[0]!.signal.aborted).toBe(false);
    expect(res.headers.get('connection')).not.toBe('close');
    // The stream's flush timer (50 ms) has run by now: the server is still up and answers.
    await sleep(120);
    expect((await fetch(`${baseUrl}/quick`)).status).toBe(200);
  });

  it.each(['early', 'late'] as const)('aborts the signal of a client that went away (signal read %s)', async (when) => {
    opened.length = 0;
    await openAndLeave(when);
    await expect.poll(() => opened[0]?.signal.aborted, { timeout: 2000, interval: 10 }).toBe(true);
  });
});
