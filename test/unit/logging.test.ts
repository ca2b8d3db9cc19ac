import type { FastifyReply, FastifyRequest } from 'fastify';
import { spawn, execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import {
  BatchedLineStream,
  DescriptorSink,
  FLUSH_INTERVAL_MS,
  LogFanOut,
  writeToDescriptor,
} from '../../src/logging/log-destinations.js';
import { LogRing } from '../../src/logging/log-ring.js';
import {
  AccessLog,
  accessLineText,
  loggerOptions,
  requestSummary,
  requestSummaryJson,
  serverLogger,
} from '../../src/logging/logging.js';
import { jsonString } from '../../src/lib/json-string.js';

/** A destination that keeps every chunk it is handed, as handed. */
function chunkSink() {
  const chunks: string[] = [];
  return { chunks, write: (chunk: string) => chunks.push(chunk) };
}

/** What Fastify hands the log controller: the request's child logger and the fields the line reads. */
function answered(log: pino.Logger, url: string, route: string | undefined, statusCode: number, elapsedTime: number) {
  const request = {
    log,
    id: 'req-1',
    method: 'GET',
    url,
    ip: '10.1.2.3',
    ...(route === undefined ? {} : { routeOptions: { url: route } }),
  } as unknown as FastifyRequest;
  const reply = { statusCode, elapsedTime } as unknown as FastifyReply;
  return { request, reply };
}

function withoutTime(line: string): Record<string, unknown> {
  const { time, ...rest } = JSON.parse(line) as Record<string, unknown>;
  expect(typeof time).toBe('number');
  return rest;
}

describe('the access line', () => {
  const cases: [string, string | undefined, number][] = [
    ['/api/graph/people?query=MATCH%20(n)%20RETURN%20n&timeout=5000', '/api/graph/:graph', 200],
    ['/api/status', '/api/status', 503],
    ['/no/such/"route"\\', undefined, 404],
  ];

  it.each(cases)('for %s is, field for field, the line pino writes for the same request', (url, route, status) => {
    const composed = chunkSink();
    const throughPino = chunkSink();
    // The server's logger and its sink: the line is composed and written to the sink.
    const server = serverLogger('info', composed);
    const fast = server.logger.child({ reqId: 'req-1' });
    // Any other logger: the line goes through pino's own info().
    const slow = pino(loggerOptions('info'), throughPino).child({ reqId: 'req-1' });
    const first = answered(fast, url, route, status, 1.23456);
    new AccessLog(server.accessLines).requestCompleted(null, first.request, first.reply);
    const second = answered(slow, url, route, status, 1.23456);
    new AccessLog().requestCompleted(null, second.request, second.reply);

    expect(composed.chunks).toHaveLength(1);
    expect(throughPino.chunks).toHaveLength(1);
    expect(composed.chunks[0]!.endsWith('}\n')).toBe(true);
    expect(composed.chunks[0]!.indexOf('\n')).toBe(composed.chunks[0]!.length - 1);
    expect(withoutTime(composed.chunks[0]!)).toEqual(withoutTime(throughPino.chunks[0]!));
    const line = withoutTime(composed.chunks[0]!);
    expect(line).toMatchObject({
      level: 30,
      pid: process.pid,
      reqId: 'req-1',
      res: { statusCode: status },
      responseTime: 1.23,
      msg: 'request completed',
    });
    // No query string (Cypher, OAuth codes) in the line: the path, and a hash to correlate identical requests.
    expect(JSON.stringify(line)).not.toContain('MATCH');
    expect((line.req as Record<string, unknown>).url).toBe(url.split('?')[0]);
  });

  it('writes a response time that is not a number as null, as pino does, so the line stays JSON', () => {
    expect(JSON.parse(accessLineText('{"level":30', '', '{"method":"GET"}', 200, Number.NaN, '}\n'))).toEqual({
      level: 30,
      req: { method: 'GET' },
      res: { statusCode: 200 },
      responseTime: null,
      msg: 'request completed',
    });
  });

  it('quotes a string as JSON.stringify does, escapes and lone surrogates included', () => {
    const texts = [
      '',
      '/api/graph',
      'a"b',
      'a\\b',
      'tab\there',
      'nul\u0000',
      '\u001f',
      'caf\u00e9',
      '\u{1f600}',
      '\ud800',
      'x\udc00y',
      '\u2028\u007f',
    ];
    for (const text of texts) expect(jsonString(text)).toBe(JSON.stringify(text));
  });

  it.each([
    ['/api/graph/people?query=x', '/api/graph/:graph', '10.1.2.3', 'GET'],
    ['/api/status', '/api/status', undefined, 'GET'],
    ['/no/such/"route"\\\u0001', undefined, '::ffff:10.0.0.1', 'POST'],
    ['/caf\u00e9/\ud83d?', undefined, '10.1.2.3', 'GET'],
    ['/odd', 42, 10, 'GET'],
  ])('summarises %s field for field as JSON.stringify(requestSummary(…)) does', (url, route, ip, method) => {
    const request = {
      method,
      url,
      ip,
      ...(route === undefined ? {} : { routeOptions: { url: route } }),
    } as unknown as FastifyRequest;
    expect(requestSummaryJson(request)).toBe(JSON.stringify(requestSummary(request)));
  });

  it('writes nothing when the route logs above info (probes) or the logger is silent', () => {
    const sink = chunkSink();
    for (const [level, childLevel] of [
      ['info', 'warn'],
      ['silent', undefined],
    ] as const) {
      const server = serverLogger(level, sink);
      const log = server.logger.child({ reqId: 'probe' }, childLevel ? { level: childLevel } : {});
      const { request, reply } = answered(log, '/healthz', '/healthz', 200, 0.1);
      new AccessLog(server.accessLines).requestCompleted(null, request, reply);
      new AccessLog().requestCompleted(null, request, reply);
    }
    expect(sink.chunks).toEqual([]);
  });

  it("hands the line to a logger that is not pino's through its own info()", () => {
    const calls: [Record<string, unknown>, string][] = [];
    const other = { info: (fields: Record<string, unknown>, msg: string) => calls.push([fields, msg]) };
    const { request, reply } = answered(other as unknown as pino.Logger, '/api/status', '/api/status', 200, 0.5);
    new AccessLog().requestCompleted(null, request, reply);
    expect(calls).toEqual([[{ req: request, res: { statusCode: 200 }, responseTime: 0.5 }, 'request completed']]);
  });

  it('logs a request that ended in an error at error level, through pino, with the error', () => {
    const sink = chunkSink();
    const log = pino(loggerOptions('info'), sink).child({ reqId: 'broken' });
    const { request, reply } = answered(log, '/api/graph', '/api/graph', 500, 2);
    new AccessLog().requestCompleted(new Error('socket hang up'), request, reply);
    expect(sink.chunks).toHaveLength(1);
    expect(JSON.parse(sink.chunks[0]!)).toMatchObject({
      level: 50,
      reqId: 'broken',
      msg: 'request errored',
      err: { message: 'socket hang up' },
      res: { statusCode: 500 },
    });
  });
});

describe('BatchedLineStream', () => {
  function scheduled() {
    const pending: (() => void)[] = [];
    return { pending, schedule: (flush: () => void) => pending.push(flush) };
  }

  it('hands the lines written before the scheduled flush to the sink in one write', () => {
    const sink = chunkSink();
    const interval = scheduled();
    const stream = new BatchedLineStream(sink, { schedule: interval.schedule });
    stream.write('a\n');
    stream.write('b\n');
    expect(sink.chunks).toEqual([]);
    expect(interval.pending).toHaveLength(1);
    interval.pending.shift()!();
    expect(sink.chunks).toEqual(['a\nb\n']);
    stream.write('c\n');
    expect(interval.pending).toHaveLength(1);
    interval.pending.shift()!();
    expect(sink.chunks).toEqual(['a\nb\n', 'c\n']);
  });

  it('writes a large batch at once, and what is pending on flush() (at exit)', () => {
    const sink = chunkSink();
    const interval = scheduled();
    const stream = new BatchedLineStream(sink, { schedule: interval.schedule, maxPendingChars: 10 });
    stream.write('12345\n');
    stream.write('67890\n');
    expect(sink.chunks).toEqual(['12345\n67890\n']);
    stream.write('tail\n');
    stream.flush();
    expect(sink.chunks).toEqual(['12345\n67890\n', 'tail\n']);
    // The scheduled flush finds nothing left, and writes nothing.
    for (const flush of interval.pending.splice(0)) flush();
    expect(sink.chunks).toHaveLength(2);
  });

  it('gathers the lines of several event-loop turns and flushes them by itself after the interval', () => {
    // Fake clocks: the interval is checked to the millisecond, whatever the machine's load.
    vi.useFakeTimers();
    try {
      const sink = chunkSink();
      const stream = new BatchedLineStream(sink);
      stream.write('x\n');
      vi.advanceTimersByTime(FLUSH_INTERVAL_MS - 1);
      stream.write('y\n');
      expect(sink.chunks).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(sink.chunks).toEqual(['x\ny\n']);
      stream.write('z\n');
      vi.advanceTimersByTime(FLUSH_INTERVAL_MS);
      expect(sink.chunks).toEqual(['x\ny\n', 'z\n']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('with a ring, encodes each line once, into the ring, and hands the sink those bytes in batches', () => {
    const written: string[] = [];
    const kinds: string[] = [];
    const sink = {
      write: (chunk: string | Uint8Array) => {
        kinds.push(typeof chunk === 'string' ? 'text' : 'bytes');
        written.push(Buffer.from(chunk).toString('utf8'));
      },
    };
    const ring = new LogRing(100, 8192);
    const interval = scheduled();
    const stream = new BatchedLineStream(sink, { schedule: interval.schedule, ring });
    stream.write('{"msg":"a"}\n');
    stream.write('{"msg":"caf\u00e9"}\n');
    // The ring has each line at once; the sink gets them as one batch when it is written.
    expect(ring.tail()).toEqual(['{"msg":"a"}', '{"msg":"caf\u00e9"}']);
    expect(written).toEqual([]);
    interval.pending.shift()!();
    expect([kinds, written]).toEqual([['bytes'], ['{"msg":"a"}\n{"msg":"caf\u00e9"}\n']]);
    expect(ring.tail()).toEqual(['{"msg":"a"}', '{"msg":"caf\u00e9"}']);
    stream.write('{"msg":"b"}\n');
    stream.flush();
    expect(written[1]).toBe('{"msg":"b"}\n');
    expect(ring.tail(2)).toEqual(['{"msg":"caf\u00e9"}', '{"msg":"b"}']);
    // As a pino destination: logger.flush(callback) is answered once the batch is written.
    const logger = pino({ base: null, timestamp: false }, stream);
    logger.info('c');
    const flushed = vi.fn();
    logger.flush(flushed);
    expect(flushed).toHaveBeenCalledOnce();
    expect(written[2]).toBe('{"level":30,"msg":"c"}\n');
  });

  it("with a ring, hands the sink a batch that filled a block in order, and an evicted block's bytes intact", () => {
    const written: string[] = [];
    const sink = { write: (chunk: string | Uint8Array) => written.push(Buffer.from(chunk).toString('utf8')) };
    // One line of capacity: the block a batch began in falls out of the ring as soon as the next one starts, and is
    // not reused while its bytes are still to be written.
    const ring = new LogRing(1, 200_000);
    const streamWithRing = new BatchedLineStream(sink, {
      ring,
      schedule: () => undefined,
      maxPendingChars: 1_000_000,
    });
    const big = (index: number) => `{"n":${index},"msg":"${String(index).repeat(100_000)}"}\n`;
    // 100 KB each: a 256 KiB block holds two, so five lines span three blocks, the first two evicted meanwhile.
    const lines = [0, 1, 2, 3, 4].map(big);
    for (const line of lines) streamWithRing.write(line);
    streamWithRing.flush();
    expect(written.length).toBe(3);
    expect(written.join('')).toBe(lines.join(''));
    expect(ring.tail()).toEqual([lines[4]!.slice(0, -1)]);
    // Lines after the batch start a new one.
    streamWithRing.write('{"msg":"after"}\n');
    streamWithRing.flush();
    expect(written.at(-1)).toBe('{"msg":"after"}\n');
    // And the sink gets nothing when nothing is pending.
    streamWithRing.flush();
    expect(written.at(-1)).toBe('{"msg":"after"}\n');
    expect(written.length).toBe(4);
  });

  it('does not keep the process alive for its pending lines (exit flushes them)', () => {
    const timersBefore = process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const stream = new BatchedLineStream(chunkSink());
    stream.write('z\n');
    expect(process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length).toBe(timersBefore);
    stream.flush();
  });
});

describe('DescriptorSink', () => {
  const scratch = () => mkdtempSync(path.join(os.tmpdir(), 'descriptor-sink-'));

  it('writes each batch whole, multi-byte characters included', () => {
    const file = path.join(scratch(), 'out.log');
    const fd = openSync(file, 'w');
    const sink = new DescriptorSink(fd);
    sink.write('{"msg":"Zoë at the café"}\n');
    sink.write('{"msg":"plain"}\n');
    closeSync(fd);
    expect(readFileSync(file, 'utf8')).toBe('{"msg":"Zoë at the café"}\n{"msg":"plain"}\n');
  });

  it('finishes a partial write and waits out a full pipe, losing nothing', async () => {
    // A non-blocking pipe whose reader starts late: the first write fills it (64 KiB go), the next ones meet EAGAIN
    // until the reader drains it.
    const dir = scratch();
    const fifo = path.join(dir, 'fifo');
    const out = path.join(dir, 'out.log');
    execFileSync('mkfifo', [fifo]);
    const idleReader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    // The reader opens the pipe at once and reads after 0.3 s.
    const reader = spawn('sh', ['-c', `exec 3< '${fifo}'; sleep 0.3; cat <&3 > '${out}'`], { stdio: 'ignore' });
    const exited = new Promise((resolve) => reader.once('exit', resolve));
    const attempts: number[] = [];
    let failures = 0;
    const sink = new DescriptorSink(writer, (fd, data) => {
      attempts.push(typeof data === 'string' ? Buffer.byteLength(data) : data.length);
      try {
        return writeToDescriptor(fd, data);
      } catch (error) {
        failures++;
        throw error;
      }
    });
    const batch = `${'{"msg":"é"}\n'.repeat(40_000)}`;
    try {
      sink.write(batch);
    } finally {
      closeSync(writer);
      closeSync(idleReader);
    }
    await exited;
    expect(readFileSync(out, 'utf8')).toBe(batch);
    expect(failures).toBeGreaterThan(0); // EAGAIN met and waited out
    expect(attempts[1]).toBeLessThan(attempts[0]!); // the rest of a partial write, not the batch again
  });

  it('drops a batch the descriptor refuses for good instead of throwing into the request', () => {
    const sink = new DescriptorSink(1, () => {
      throw Object.assign(new Error('broken pipe'), { code: 'EPIPE' });
    });
    expect(() => sink.write('line\n')).not.toThrow();
  });
});

describe('LogFanOut', () => {
  it('hands every line to every sink, in order', () => {
    const first = chunkSink();
    const second = chunkSink();
    const fanOut = new LogFanOut([first, second]);
    fanOut.write('one\n');
    fanOut.write('two\n');
    expect(first.chunks).toEqual(['one\n', 'two\n']);
    expect(second.chunks).toEqual(['one\n', 'two\n']);
  });
});
