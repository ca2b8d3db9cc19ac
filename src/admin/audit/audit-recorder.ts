// Records every mutating admin call and every sign-in: an `audit: true` log line at once, and the entry in the
// store after the response has gone, through a bounded queue whose failures are logged and never reach a request.
import { STATUS_CODES } from 'node:http';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onErrorHookHandler,
  onResponseHookHandler,
} from 'fastify';
import { mapError } from '../../shared/error-handler.js';
import { attemptedEmail, describeCall, isAuditedRoute, redirectFailure, resultOf } from './audit-mapping.js';
import type { AuditEntry } from './audit-query.js';
import { newEntryId, type AuditStore } from './audit-store.js';

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
}

export function createAuditRecorder(options: AuditRecorderOptions) {
  const { store, logger, maxQueue = 10_000, batchSize = 500 } = options;
  let queue: AuditEntry[] = [];
  let writing: Promise<void> | undefined;
  let dropped = 0;
  let lastWarning = 0;
  const now = options.now ?? Date.now;

  function warnAtMostEvery10s(fields: Record<string, unknown>, message: string): void {
    const at = Date.now();
    if (at - lastWarning < 10_000) return;
    lastWarning = at;
    logger.warn(fields, message);
  }

  async function drain(): Promise<void> {
    try {
      while (queue.length > 0) {
        const batch = queue.slice(0, batchSize);
        queue = queue.slice(batch.length);
        try {
          await store.append(batch);
        } catch (error) {
          warnAtMostEvery10s(
            { err: { message: (error as Error).message }, lost: batch.length },
            'audit entries could not be stored (their audit log lines were written)',
          );
        }
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
        warnAtMostEvery10s({ dropped }, 'audit queue full: entries dropped (their audit log lines were written)');
        return;
      }
      queue.push(entry);
      // On the next turn: entries of requests finishing together go in one pipeline.
      writing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(drain);
    },
    /** Resolves when everything queued so far has been written (or failed). */
    async flush(): Promise<void> {
      while (writing) await writing;
    },
    get dropped() {
      return dropped;
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
  const namespace =
    subject.cluster !== undefined || pattern.startsWith('/api/clusters')
      ? typeof queryNamespace === 'string' && queryNamespace !== ''
        ? queryNamespace
        : options.clusterNamespace
      : options.serverNamespace;
  return {
    id: newEntryId(time),
    time,
    userId: clip(actor ?? 'anonymous', MAX_FIELD)!.toLowerCase(),
    action: subject.action,
    resourceType: subject.resourceType,
    ...(subject.resourceName === undefined ? {} : { resourceName: clip(subject.resourceName, MAX_FIELD) }),
    namespace: clip(namespace, MAX_FIELD)!,
    ...(subject.cluster === undefined ? {} : { cluster: clip(subject.cluster, MAX_FIELD) }),
    result,
    message: clip(message, MAX_MESSAGE)!,
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
  app.addHook('onRoute', (route) => {
    if (!isAuditedRoute(route.method, route.url)) return;
    route.onError = [...[route.onError ?? []].flat(), onError];
    route.onResponse = [...[route.onResponse ?? []].flat(), onResponse];
  });
}
