// The access line and the server's logger options.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
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
