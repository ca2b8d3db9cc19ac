// Readable log lines for a terminal. The stdout sink turns each JSON line pino wrote into one line of text; the log
// ring keeps the JSON. Only what the JSON line has is printed, so pino's redaction still decides what can appear.

import type { LineSink } from './line-sink.js';

const LEVEL_WORDS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

const two = (n: number): string => String(n).padStart(2, '0');

/** Local time as HH:MM:SS.mmm. */
export function clockTime(epochMs: number): string {
  const d = new Date(epochMs);
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const scalar = (value: unknown): string | undefined =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;

/** One JSON log line as readable text (no newline); a line that is not a JSON object is returned as it is. */
export function formatLogLine(line: string): string {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return line;
  }
  if (!isRecord(entry)) return line;
  const parts: string[] = [];
  if (typeof entry.time === 'number') parts.push(clockTime(entry.time));
  const level = typeof entry.level === 'number' ? (LEVEL_WORDS[entry.level] ?? String(entry.level)) : 'LOG';
  parts.push(level.padEnd(5));
  const req = isRecord(entry.req) ? entry.req : undefined;
  const res = isRecord(entry.res) ? entry.res : undefined;
  if (req) {
    const method = scalar(req.method);
    const url = scalar(req.url);
    if (method || url) parts.push([method, url].filter(Boolean).join(' '));
  }
  if (res && scalar(res.statusCode)) parts.push(`-> ${scalar(res.statusCode)}`);
  if (typeof entry.responseTime === 'number') parts.push(`${entry.responseTime.toFixed(1)} ms`);
  if (typeof entry.msg === 'string') parts.push(entry.msg);
  const skip = new Set(['time', 'level', 'msg', 'req', 'res', 'responseTime', 'pid', 'hostname', 'reqId', 'v']);
  for (const [key, value] of Object.entries(entry)) {
    if (skip.has(key)) continue;
    const text = scalar(value);
    if (text !== undefined) parts.push(`${key}=${text}`);
    else if (key === 'err' && isRecord(value) && typeof value.stack === 'string') parts.push(`\n${value.stack}`);
  }
  return parts.join(' ');
}

/** A sink that writes each batch of JSON lines to `inner` as readable lines. */
export class PrettySink implements LineSink {
  constructor(private readonly inner: LineSink) {}

  write(chunk: string | Uint8Array): void {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const out = text
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => `${formatLogLine(line)}\n`)
      .join('');
    if (out.length > 0) this.inner.write(out);
  }
}

export type LogFormat = 'auto' | 'pretty' | 'json';

/** Whether stdout gets readable lines: `pretty`, or `auto` on a terminal. */
export const prettyOnStdout = (format: LogFormat, isTty: boolean): boolean =>
  format === 'pretty' || (format === 'auto' && isTty);
