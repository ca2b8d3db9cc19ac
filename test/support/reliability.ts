// Helpers of the reliability suites: query outcomes over real HTTP, classified the way a client sees them,
// FalkorDB's own count of client connections, and a watch on unhandled errors in this process.
import { adminClient, parseEvents } from './browser.js';
import type { TestFalkorDB } from './falkordb.js';
import { ERROR_CODE_LIST } from '../../src/http/error-codes.js';

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

const LISTED_CODES = new Set<unknown>(ERROR_CODE_LIST);

/** The browser API's error body: its message and a listed code, nothing else. */
export function isMessageBody(body: unknown): body is { message: string; code: string } {
  return (
    typeof body === 'object' &&
    body !== null &&
    Object.keys(body).sort().join() === 'code,message' &&
    typeof (body as { message: unknown }).message === 'string' &&
    LISTED_CODES.has((body as { code: unknown }).code)
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
      const data = only?.data as { message?: unknown; status?: unknown; code?: unknown } | undefined;
      if (
        events.length === 1 &&
        only?.event === 'error' &&
        typeof data?.message === 'string' &&
        typeof data.status === 'number' &&
        LISTED_CODES.has(data.code)
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
