// pino options shared by the process and the tests: what gets redacted and how a request is summarised.
import { hash } from 'node:crypto';
import { hostname } from 'node:os';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { levels, pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { jsonString } from '../lib/json-string.js';
import { TOKEN_PREFIX } from '../lib/service-account-tokens.js';

/**
 * Keys whose values never reach a log line, at whatever depth (up to MAX_DEPTH) they appear in a logged object:
 * credentials, tokens, keys, and the headers that carry them.
 */
const SENSITIVE_KEYS = new Set([
  'authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'password',
  'currentPassword',
  'newPassword',
  'secret',
  'client_secret',
  'clientSecret',
  'private_key',
  'privateKey',
  'token',
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'id_token',
  'idToken',
  'authSecret',
  'encryptionKey',
  'sessionSecret',
]);
const CENSOR = '[Redacted]';
const MAX_DEPTH = 4;

/**
 * A service account token's text (`gdbsa_` and its base62 characters: lib/service-account-tokens.ts), or a piece
 * of one, wherever it was pasted: a path, a query, a field. The prefix is there so that such text can be found.
 */
const TOKEN_TEXT = new RegExp(`${TOKEN_PREFIX}[0-9A-Za-z]*`, 'g');
const TOKEN_CENSOR = '[Redacted token]';

/** `text` with every service account token in it replaced; `text` itself when it holds none. */
export function redactTokenTexts(text: string): string {
  return text.includes(TOKEN_PREFIX) ? text.replace(TOKEN_TEXT, TOKEN_CENSOR) : text;
}

/**
 * A copy of `value` with sensitive keys censored, or `value` itself when it holds none. Plain objects and arrays
 * are walked; class instances (a request, an error) are left to their serializers, which emit no secrets. This
 * replaced pino's path-based redaction, whose `*.key` wildcards cost about 17 µs per log line (a fifth of the
 * CPU of an admin read at 10,000 requests a second) for a narrower guarantee (one level deep).
 */
export function censorSecrets(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactTokenTexts(value);
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    const items = value as unknown[];
    let copy: unknown[] | undefined;
    items.forEach((item, index) => {
      const next = censorSecrets(item, depth + 1);
      if (next !== item) (copy ??= [...items])[index] = next;
    });
    return copy ?? value;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const inner = record[key];
    const next = SENSITIVE_KEYS.has(key) ? CENSOR : censorSecrets(inner, depth + 1);
    if (next !== inner) (copy ??= { ...record })[key] = next;
  }
  return copy ?? value;
}

/**
 * Query strings carry Cypher text (`?query=`), OAuth `code`/`state` and other caller input: no access line holds
 * them. The path stays (but for a token pasted into it); the query string is replaced by a short hash so identical
 * requests can still be correlated.
 */
export function loggableUrl(url: string): string {
  const queryStart = url.indexOf('?');
  return redactTokenTexts(queryStart === -1 ? url : url.slice(0, queryStart));
}

/** First 16 hex digits of the SHA-256 of the query string, or undefined when the URL has none. */
export function queryHash(url: string): string | undefined {
  const queryStart = url.indexOf('?');
  if (queryStart === -1 || queryStart === url.length - 1) return undefined;
  // The one-shot form: no Hash object per logged query.
  return hash('sha256', url.slice(queryStart + 1), 'hex').slice(0, 16);
}

/**
 * What an access line says of a request: method, path without its query string, client address, and, when a
 * route matched, its template and a hash of the query string. Callers may log a plain `req` object too; only a
 * string URL is summarised.
 */
export function requestSummary(request: FastifyRequest): Record<string, unknown> {
  const url: unknown = request.url;
  const summary: Record<string, unknown> = {
    method: request.method,
    url: typeof url === 'string' ? loggableUrl(url) : url,
    remoteAddress: request.ip,
  };
  // The route template names the operation without the caller's path parameters (graph names, user names).
  const route = (request.routeOptions as FastifyRequest['routeOptions'] | undefined)?.url;
  if (route !== undefined) summary.route = route;
  const hash = typeof url === 'string' ? queryHash(url) : undefined;
  if (hash !== undefined) summary.queryHash = hash;
  return summary;
}

/**
 * `JSON.stringify(requestSummary(request))`, composed field by field: JSON.stringify of the summary object took
 * about 0.9 µs of every access line in the server (a third of that in a loop), this about a tenth.
 */
export function requestSummaryJson(request: FastifyRequest): string {
  const url: unknown = request.url;
  const method: unknown = request.method;
  const address: unknown = request.ip;
  const route: unknown = (request.routeOptions as FastifyRequest['routeOptions'] | undefined)?.url;
  const textOrAbsent = (value: unknown) => value === undefined || typeof value === 'string';
  if (typeof url !== 'string' || typeof method !== 'string' || !textOrAbsent(address) || !textOrAbsent(route))
    return JSON.stringify(requestSummary(request));
  let json = `{"method":${jsonString(method)},"url":${jsonString(loggableUrl(url))}`;
  if (typeof address === 'string') json += `,"remoteAddress":${jsonString(address)}`;
  if (typeof route === 'string') json += `,"route":${jsonString(route)}`;
  const hash = queryHash(url);
  // Hex digits: nothing to escape.
  if (hash !== undefined) json += `,"queryHash":"${hash}"`;
  return `${json}}`;
}

/**
 * The JSON text of an access line, from its parts: `levelAndTime` and `bindings` as pino writes them for any other
 * line (level, time, pid, hostname, request id), `end` closes it. Pure, for the test that compares it with what pino
 * writes for the same fields.
 */
export function accessLineText(
  levelAndTime: string,
  bindings: string,
  summaryJson: string,
  statusCode: number,
  responseTime: number,
  end: string,
): string {
  // As pino writes a number that is not finite: null (JSON has no NaN).
  const time = Number.isFinite(responseTime) ? responseTime : null;
  return `${levelAndTime}${bindings},"req":${summaryJson},"res":{"statusCode":${statusCode}},"responseTime":${time},"msg":"request completed"${end}`;
}

/**
 * Where the server's access lines go when they are composed here rather than by pino: the destination the server's
 * logger writes to, and the bindings that logger puts on every line (serverLogger builds both, so nothing is read
 * back from pino's internals).
 */
export interface AccessLineSink {
  write(line: string): unknown;
  /** `,"pid":…,"hostname":…`: the server logger's base bindings, as JSON members. */
  readonly bindings: string;
}

/**
 * The server's logger over `destination`, with the sink its access lines are composed into. The base bindings are set
 * here (pino's own defaults, pid and hostname), so the access line writes the same ones.
 */
export function serverLogger(
  level: string,
  destination: DestinationStream,
): { logger: Logger; accessLines: AccessLineSink } {
  const base = { pid: process.pid, hostname: hostname() };
  const logger = pino({ ...loggerOptions(level), base }, destination);
  const bindings = `,"pid":${base.pid},"hostname":${jsonString(base.hostname)}`;
  return { logger, accessLines: { write: (line) => destination.write(line), bindings } };
}

const INFO = levels.values.info!;

/**
 * One access line per request, when it has been answered, instead of Fastify's two (every line costs a redaction
 * pass, and "incoming request" says nothing the completion line does not).
 *
 * With a sink (the server's own logger, serverLogger), the line of a request answered without error is composed here
 * and written to it, instead of going through pino's object serialization: it cost about a third as much in a loop
 * (the access line was the largest cost left in the simple routes). It holds no secret by construction (method, path
 * without its query string, address, route template, status, time), so the censoring pass has nothing to do on it.
 * Without a sink (tests' and other loggers), the line goes through the request logger's own info().
 */
export class AccessLog extends LogController {
  constructor(private readonly sink?: AccessLineSink) {
    super();
  }

  override incomingRequest(): void {
    // logged on completion
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const responseTime = Math.round(reply.elapsedTime * 100) / 100;
    if (error) {
      request.log.error(
        { req: request, res: { statusCode: reply.statusCode }, responseTime, err: error },
        'request errored',
      );
      return;
    }
    if (!this.sink) {
      request.log.info({ req: request, res: { statusCode: reply.statusCode }, responseTime }, 'request completed');
      return;
    }
    // A level pino does not number (silent) logs nothing.
    if ((levels.values[request.log.level] ?? Infinity) > INFO) return;
    this.sink.write(
      accessLineText(
        `{"level":${INFO},"time":${Date.now()}`,
        `${this.sink.bindings},"reqId":${jsonString(String(request.id))}`,
        requestSummaryJson(request),
        reply.statusCode,
        responseTime,
        '}\n',
      ),
    );
  }
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    formatters: { log: (object) => censorSecrets(object) as Record<string, unknown> },
    serializers: {
      req: requestSummary,
    },
  };
}
