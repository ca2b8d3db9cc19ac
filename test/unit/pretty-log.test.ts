import { describe, expect, it } from 'vitest';
import { clockTime, formatLogLine, prettyOnStdout, PrettySink } from '../../src/logging/pretty-log.js';

describe('readable log lines', () => {
  const time = new Date(2026, 10, 28, 9, 5, 7, 42).getTime();

  it('prints local time, the level word and the message, without the epoch milliseconds', () => {
    const line = JSON.stringify({ level: 30, time, pid: 1, hostname: 'h', msg: 'Server listening', port: 3000 });
    const text = formatLogLine(line);
    expect(text).toBe('09:05:07.042 INFO  Server listening port=3000');
    expect(text).not.toContain(String(time));
  });

  it('prints method, URL, status and duration of an access line', () => {
    const line = JSON.stringify({
      level: 30,
      time,
      reqId: 'req-1',
      req: { method: 'GET', url: '/api/status', headers: { authorization: '[Redacted]' } },
      res: { statusCode: 200 },
      responseTime: 1.234,
      msg: 'request completed',
    });
    expect(formatLogLine(line)).toBe('09:05:07.042 INFO  GET /api/status -> 200 1.2 ms request completed');
  });

  it('prints only what the JSON line has (a redacted value stays redacted) and keeps a non-JSON line', () => {
    expect(formatLogLine(JSON.stringify({ level: 50, time, msg: 'x', token: '[Redacted]' }))).toBe(
      '09:05:07.042 ERROR x token=[Redacted]',
    );
    expect(formatLogLine('not json')).toBe('not json');
  });

  it('turns a batch of JSON lines, given as bytes, into one readable line each', () => {
    const written: string[] = [];
    const sink = new PrettySink({ write: (chunk) => written.push(String(chunk)) });
    const a = JSON.stringify({ level: 40, time, msg: 'a' });
    const b = JSON.stringify({ level: 20, time, msg: 'b' });
    sink.write(Buffer.from(`${a}\n${b}\n`));
    expect(written).toEqual([`${clockTime(time)} WARN  a\n${clockTime(time)} DEBUG b\n`]);
  });

  it('is pretty for LOG_FORMAT=pretty, or auto on a terminal', () => {
    expect(prettyOnStdout('pretty', false)).toBe(true);
    expect(prettyOnStdout('auto', true)).toBe(true);
    expect(prettyOnStdout('auto', false)).toBe(false);
    expect(prettyOnStdout('json', true)).toBe(false);
  });
});
