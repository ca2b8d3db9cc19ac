// Records every mutating admin call and every sign-in: an `audit: true` log line at once, and the entry in the
// store after the response has gone, through a bounded queue. A batch the store refuses stays at the head of the
// queue and is tried again, with a growing pause, until the store answers: an outage of the store delays entries
// but loses none unless the queue overflows (counted, and logged at error level) or the process dies meanwhile.
// Optionally (AUDIT_STORE_REQUIRED) audited writes are refused with 503 while the store is known to be unreachable.
import { STATUS_CODES } from 'node:http';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onErrorHookHandler,
  onResponseHookHandler,
  preHandlerHookHandler,
} from 'fastify';
import { mapError } from '../../http/error-handler.js';
import { redactTokenTexts } from '../../logging/logging.js';
import { HttpError } from '../../http/http-errors.js';
import { attemptedEmail, describeCall, isAuditedRoute, redirectFailure, resultOf } from './audit-mapping.js';
import type { AuditEntry } from '../../platform/stores/audit-query.js';
import { newEntryId, type AuditStore } from '../../platform/stores/audit-store.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by a route when the path does not name what it made (a create): the entry's resourceName. */
    auditResourceName?: string;
    /** Set by a sign-in route that learnt who signs in; the session user otherwise. */
    auditActor?: string;
    /** The error the request failed with (its client-facing message is recorded). */
    auditError?: unknown;
  }
}

const MAX_MESSAGE = 300;
const MAX_FIELD = 512;
const LOGIN_PATTERN = /^\/api\/auth\/login\/?$/;

export interface AuditRecorderOptions {
  store: AuditStore;
  logger: FastifyBaseLogger;
  /** Entries waiting for the store beyond this are dropped (their log lines remain) and counted. */
  maxQueue?: number;
  batchSize?: number;
  now?: () => number;
  /** The pause after a failed write, doubled at each failure up to `retryMaxMs`. */
  retryFirstMs?: number;
  retryMaxMs?: number;
  /** Called with the number of entries dropped each time some are (the metric). */
  onDropped?: (count: number) => void;
}

/** What a refused audited write answers while the audit store is unreachable (AUDIT_STORE_REQUIRED). */
export const AUDIT_STORE_UNAVAILABLE =
  'The audit log cannot be written now, so the change was not made; try again shortly';

export function createAuditRecorder(options: AuditRecorderOptions) {
  const { store, logger, maxQueue = 10_000, batchSize = 500 } = options;
  const retryFirstMs = options.retryFirstMs ?? 200;
  const retryMaxMs = options.retryMaxMs ?? 5000;
  let queue: AuditEntry[] = [];
  let writing: Promise<void> | undefined;
  let dropped = 0;
  let lastDropWarning = 0;
  /** The last write failed and its entries wait: the store is unreachable as far as this process knows. */
  let failing = false;
  let closed = false;
  let wakeUp: (() => void) | undefined;
  const now = options.now ?? Date.now;

  /** A pause that close() cuts short. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => {
      wakeUp = undefined;
    });

  async function drain(): Promise<void> {
    let delay = retryFirstMs;
    try {
      while (queue.length > 0) {
        // Appending is idempotent (each entry is written under its own id), so a batch that failed halfway is
        // simply written again.
        const batch = queue.slice(0, batchSize);
        try {
          await store.append(batch);
          queue = queue.slice(batch.length);
          delay = retryFirstMs;
          if (failing) {
            failing = false;
            logger.warn(
              { waiting: queue.length },
              'the audit store answers again; the entries kept meanwhile are being stored',
            );
          }
        } catch (error) {
          if (!failing) {
            failing = true;
            logger.error(
              { err: { message: (error as Error).message }, waiting: queue.length },
              'audit entries cannot be stored: they are kept in memory and written when the audit store answers',
            );
          }
          if (closed) return;
          await pause(delay);
          delay = Math.min(delay * 2, retryMaxMs);
        }
        if (closed && failing) return;
      }
    } finally {
      writing = undefined;
    }
  }

  return {
    /** Queues `entry` for the store. Never throws, never waits. */
    enqueue(entry: AuditEntry): void {
      if (queue.length >= maxQueue) {
        dropped++;
        options.onDropped?.(1);
        const at = Date.now();
        if (at - lastDropWarning >= 10_000) {
          lastDropWarning = at;
          logger.error(
            { dropped, waiting: queue.length },
            `audit entries LOST: ${maxQueue} entries already wait for the audit store, so new ones are dropped (only their audit log lines remain)`,
          );
        }
        return;
      }
      queue.push(entry);
      // On the next turn: entries of requests finishing together go in one pipeline.
      writing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(drain);
    },
    /** Resolves when everything queued so far has been written (it waits through an outage of the store). */
    async flush(): Promise<void> {
      while (writing) await writing;
    },
    /**
     * At shutdown: one more attempt for what waits, then no more retries. Entries still not stored are reported at
     * error level (their log lines exist).
     */
    async close(): Promise<void> {
      closed = true;
      wakeUp?.();
      while (writing) await writing;
      if (queue.length > 0) {
        writing = drain();
        await writing;
      }
      if (queue.length > 0)
        logger.error({ lost: queue.length }, 'audit entries not stored at shutdown: the audit store did not answer');
    },
    /** Throws the 503 of AUDIT_STORE_REQUIRED while the audit store is unreachable or the queue is full. */
    assertWritable(): void {
      if (failing || queue.length >= maxQueue)
        throw new HttpError(503, AUDIT_STORE_UNAVAILABLE, { 'retry-after': String(Math.ceil(retryMaxMs / 1000)) });
    },
    get dropped() {
      return dropped;
    },
    get waiting() {
      return queue.length;
    },
    get failing() {
      return failing;
    },
    now,
  };
}

export type AuditRecorder = ReturnType<typeof createAuditRecorder>;

export interface AuditHookOptions {
  recorder: AuditRecorder;
  /** Where users, settings and RBAC live: the namespace of every entry not about a deployment. */
  serverNamespace: string;
  /** The deployments' namespace when a cluster route is not given one. */
  clusterNamespace: string;
  /** AUDIT_STORE_REQUIRED: audited writes (not sign-ins) answer 503 while the audit store is unreachable. */
  refuseWhileUnavailable?: boolean;
}

const clip = (text: string | undefined, max: number) =>
  text === undefined ? undefined : text.length > max ? `${text.slice(0, max - 1)}…` : text;

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The entry for a finished request, or undefined when it is not audited. Reads no body but a sign-in's e-mail. */
export function entryFor(
  request: FastifyRequest,
  reply: FastifyReply,
  options: Omit<AuditHookOptions, 'recorder'>,
  time: number,
): AuditEntry | undefined {
  const pattern = request.routeOptions.url;
  if (!pattern) return undefined;
  const subject = describeCall({
    method: request.method,
    pattern,
    params: (request.params ?? {}) as Record<string, unknown>,
    actor: request.sessionUser?.email,
    resourceName: request.auditResourceName,
  });
  if (!subject) return undefined;
  let actor = request.auditActor ?? request.sessionUser?.email;
  if (!actor && LOGIN_PATTERN.test(pattern)) actor = attemptedEmail(request.body);
  // A call without a session was refused before it did anything and names nobody: the access log has it.
  if (!actor && !subject.signIn) return undefined;

  const status = reply.statusCode;
  let result = resultOf(status);
  let message = STATUS_CODES[status] ?? String(status);
  // The message the client was given (error bodies are built to hold no secret), never the body it sent.
  if (request.auditError !== undefined && status >= 400) message = mapError(request.auditError, 'admin').message;
  const refused = subject.signIn ? redirectFailure(reply.getHeader('location')) : undefined;
  if (refused) {
    result = 'failure';
    message = `Sign-in failed: ${refused}`;
  }
  const queryNamespace = (request.query as { namespace?: unknown } | undefined)?.namespace;
  // A route whose namespace comes from its body (a create, a manifest) says which one it acted on.
  const namespace =
    request.auditNamespace ??
    (subject.cluster !== undefined || pattern.startsWith('/api/clusters')
      ? typeof queryNamespace === 'string' && queryNamespace !== ''
        ? queryNamespace
        : options.clusterNamespace
      : options.serverNamespace);
  return {
    id: newEntryId(time),
    time,
    userId: clip(redactTokenTexts(actor ?? 'anonymous'), MAX_FIELD)!.toLowerCase(),
    ...(request.sessionUser?.serviceAccount ? { tokenId: request.sessionUser.serviceAccount.tokenId } : {}),
    action: subject.action,
    resourceType: subject.resourceType,
    // A token pasted where a name goes (a path, a body's name) stays out of the entry (docs/security.md).
    ...(subject.resourceName === undefined
      ? {}
      : { resourceName: clip(redactTokenTexts(subject.resourceName), MAX_FIELD) }),
    namespace: clip(namespace, MAX_FIELD)!,
    ...(subject.cluster === undefined ? {} : { cluster: clip(redactTokenTexts(subject.cluster), MAX_FIELD) }),
    result,
    message: clip(redactTokenTexts(message), MAX_MESSAGE)!,
    requestId: request.id,
    ip: request.ip,
    ...(header(request.headers['user-agent']) === undefined
      ? {}
      : { userAgent: clip(header(request.headers['user-agent']), MAX_FIELD) }),
  };
}

/** What the log line of an entry holds: the entry as the API shows it, plus where and which request. */
export function logFieldsOf(entry: AuditEntry): Record<string, unknown> {
  return {
    audit: true,
    timestamp: new Date(entry.time).toISOString(),
    userId: entry.userId,
    tokenId: entry.tokenId,
    action: entry.action,
    resourceType: entry.resourceType,
    resourceName: entry.resourceName,
    namespace: entry.namespace,
    result: entry.result,
    message: entry.message,
    requestId: entry.requestId,
    ip: entry.ip,
    userAgent: entry.userAgent,
  };
}

/**
 * Installs the hooks on each route of the admin plugin's scope that can be audited (isAuditedRoute), as routes are
 * added: the reads, most of the console's traffic, run no audit hook at all. The audit line is written at info level
 * even when LOG_LEVEL is higher (only `silent` silences it): an audit trail must not vanish with a quieter log.
 */
export function recordAuditEntries(app: FastifyInstance, options: AuditHookOptions): void {
  const log = app.log.level === 'silent' ? app.log : app.log.child({}, { level: 'info' });
  const onError: onErrorHookHandler = (request, _reply, error, done) => {
    request.auditError = error;
    done();
  };
  const onResponse: onResponseHookHandler = (request, reply, done) => {
    try {
      const entry = entryFor(request, reply, options, options.recorder.now());
      if (entry) {
        log.info(logFieldsOf(entry), 'audit');
        options.recorder.enqueue(entry);
      }
    } catch (error) {
      request.log.error({ err: error }, 'could not record an audit entry');
    }
    done();
  };
  // After the session and permission checks (preValidation), before the handler changes anything.
  const refuseUnaudited: preHandlerHookHandler = (request, _reply, done) => {
    // Reads change nothing; signing in and out stays possible, so an operator can reach the console meanwhile.
    if (request.method === 'GET' || (request.routeOptions.url ?? '').startsWith('/api/auth/')) return done();
    try {
      options.recorder.assertWritable();
      done();
    } catch (error) {
      done(error as Error);
    }
  };
  app.addHook('onRoute', (route) => {
    if (!isAuditedRoute(route.method, route.url)) return;
    if (options.refuseWhileUnavailable) route.preHandler = [...[route.preHandler ?? []].flat(), refuseUnaudited];
    route.onError = [...[route.onError ?? []].flat(), onError];
    route.onResponse = [...[route.onResponse ?? []].flat(), onResponse];
  });
}
