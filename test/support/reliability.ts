// Helpers of the reliability suites: real HTTP against a listening app, query outcomes classified the way a client
// sees them, FalkorDB's own count of client connections, and a watch on unhandled errors in this process.
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { ADMIN, startAdminTestApp, type Adapter, type AdminTestApp } from './admin.js';
import { adminClient, parseEvents } from './browser.js';
import type { TestFalkorDB } from './falkordb.js';

/** Listens on a free loopback port and returns the base URL. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

export type OutcomeKind = 'result' | 'error-event' | 'http-error' | 'broken';

export interface QueryOutcome {
  kind: OutcomeKind;
  startedAt: number;
  endedAt: number;
  /** HTTP status, or the `status` of an SSE `error` event. */
  status?: number;
  message?: string;
  /** What was wrong with a broken answer (socket error, unparsable body, ...). */
  detail?: string;
}

function isMessageBody(body: unknown): body is { message: string } {
  return (
    typeof body === 'object' &&
    body !== null &&
    Object.keys(body).join() === 'message' &&
    typeof (body as { message: unknown }).message === 'string'
  );
}

/**
 * One query as a client sees it: a `result`, a clean SSE `error` event `{message, status}`, a clean HTTP error in
 * the browser shape `{message}`, or anything else (`broken`: a dropped socket, a malformed stream or body).
 */
export async function runQuery(
  url: string,
  headers: Record<string, string>,
  timeoutMs = 20_000,
): Promise<QueryOutcome> {
  const startedAt = Date.now();
  const done = (outcome: Omit<QueryOutcome, 'startedAt' | 'endedAt'>): QueryOutcome => ({
    ...outcome,
    startedAt,
    endedAt: Date.now(),
  });
  let status = 0;
  let text = '';
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    status = res.status;
    text = await res.text();
  } catch (error) {
    return done({ kind: 'broken', detail: `request failed: ${String(error)}` });
  }
  try {
    if (status === 200 && (headers.accept ?? '').includes('text/event-stream')) {
      const events = parseEvents(text);
      const [only] = events;
      if (events.length === 1 && only?.event === 'result') return done({ kind: 'result', status });
      const data = only?.data as { message?: unknown; status?: unknown } | undefined;
      if (
        events.length === 1 &&
        only?.event === 'error' &&
        typeof data?.message === 'string' &&
        typeof data.status === 'number'
      ) {
        return done({ kind: 'error-event', status: data.status, message: data.message });
      }
      return done({ kind: 'broken', status, detail: `stream: ${text.slice(0, 200)}` });
    }
    const body = JSON.parse(text) as unknown;
    if (status === 200) return done({ kind: 'result', status });
    if (isMessageBody(body)) return done({ kind: 'http-error', status, message: body.message });
    return done({ kind: 'broken', status, detail: `body: ${text.slice(0, 200)}` });
  } catch (error) {
    return done({ kind: 'broken', status, detail: `${String(error)}: ${text.slice(0, 200)}` });
  }
}

/** The client connections FalkorDB holds right now, not counting the one that asks. */
export async function falkordbClientCount(falkordb: TestFalkorDB): Promise<number> {
  const client = await adminClient(falkordb);
  try {
    const list = await client.sendCommand<string>(['CLIENT', 'LIST']);
    return list.split('\n').filter((line) => line.trim()).length - 1;
  } finally {
    await client.close();
  }
}

/** Polls `check` until it returns true or `timeoutMs` passes; returns whether it did. */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  intervalMs = 50,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Records unhandled rejections and uncaught exceptions of this process between start() and stop(). */
export function watchProcessErrors(): { errors: unknown[]; stop: () => void } {
  const errors: unknown[] = [];
  const record = (error: unknown) => errors.push(error);
  process.on('unhandledRejection', record);
  process.on('uncaughtException', record);
  return {
    errors,
    stop: () => {
      process.off('unhandledRejection', record);
      process.off('uncaughtException', record);
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Logs in through the real route and returns the `token` cookie for a Cookie header. */
export async function loginCookie(app: FastifyInstance, email: string, password: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
  const cookie = res.cookies.find((c) => c.name === 'token');
  if (res.statusCode !== 200 || !cookie) throw new Error(`login failed (${res.statusCode}): ${res.body}`);
  return `token=${cookie.value}`;
}

export interface ListeningAdminApp {
  t: AdminTestApp;
  baseUrl: string;
  /** The first admin's session, for a Cookie header. */
  cookie: string;
}

/** Starts an admin test app listening on loopback in beforeAll and closes it in afterAll; read it inside tests. */
export function listeningAdminApp(adapter: Adapter): ListeningAdminApp {
  const fixture = {} as ListeningAdminApp;
  beforeAll(async () => {
    fixture.t = await startAdminTestApp(adapter);
    fixture.cookie = await loginCookie(fixture.t.app, ADMIN.email, ADMIN.password);
    fixture.baseUrl = await listen(fixture.t.app);
  });
  afterAll(() => fixture.t.close());
  return fixture;
}
