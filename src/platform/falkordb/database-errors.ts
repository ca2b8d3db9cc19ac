// The FalkorDB adapter's one translation of its clients' failures (node-redis, the query connections) into port
// errors. Every error leaving platform/falkordb is one of these, so the browser plugin's error handler answers them
// all and no call site translates.
import { ErrorReply } from '@redis/client';
import { PortError } from '../port-errors.js';

/** What a caller is told when the database cannot be reached; the reason stays in `detail` and the logs. */
export const DATABASE_UNAVAILABLE = 'Database is offline or not accessible';
const CREDENTIALS_REJECTED = 'Database credentials of this token were rejected';
const PERMISSION_DENIED = /^NOPERM\b/;

/** The connection could not be made or was lost: not the user's fault and not their credentials'. */
export class DatabaseUnavailableError extends PortError {
  constructor(
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super('unavailable', DATABASE_UNAVAILABLE, options);
    this.name = 'DatabaseUnavailableError';
  }
}

/** The server refused the credentials (WRONGPASS, NOAUTH, a disabled user). */
export class DatabaseAuthError extends PortError {
  constructor(readonly detail: string) {
    super('unauthenticated', CREDENTIALS_REJECTED);
    this.name = 'DatabaseAuthError';
  }
}

/** The server answered a command with an error: its text verbatim (clients parse `errMsg: … errCtx: …`). */
export class DatabaseReplyError extends PortError {
  constructor(message: string) {
    super(PERMISSION_DENIED.test(message) ? 'forbidden' : 'rejected', message, { rejectedBy: 'system' });
    this.name = 'DatabaseReplyError';
  }
}

/** A result beyond the caller's bounds: refused whole, never cut short silently. */
export class ResultTooLargeError extends PortError {
  constructor(message: string) {
    super('rejected', message, { rejectedBy: 'bounds' });
    this.name = 'ResultTooLargeError';
  }
}

/**
 * Error replies that describe the server's state, not the command: it is loading its data after a restart (LOADING),
 * running a script or module command that blocks it (BUSY), a replica without its master (MASTERDOWN), a cluster
 * moving slots or not serving them (TRYAGAIN, CLUSTERDOWN). The same command succeeds later.
 */
const TRANSIENT_REPLY = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN)\b/;
/** Loading a dataset or a failover takes seconds; a client polling sooner only adds load. */
const TRANSIENT_RETRY_AFTER_SECONDS = 1;

/** The server answered that it cannot serve now (TRANSIENT_REPLY): 503 with Retry-After, never a client error. */
export class DatabaseBusyError extends PortError {
  constructor(readonly detail: string) {
    const condition = TRANSIENT_REPLY.exec(detail)?.[1] ?? 'BUSY';
    super('unavailable', `The database cannot answer now (${condition}); try again shortly`, {
      retryAfterSeconds: TRANSIENT_RETRY_AFTER_SECONDS,
    });
    this.name = 'DatabaseBusyError';
  }
}

export function isTransientReply(message: string): boolean {
  return TRANSIENT_REPLY.test(message);
}

/** A query route's read of a graph that does not exist: reads never create graphs (docs/decisions/query-api.md). */
export class GraphNotFoundError extends PortError {
  constructor(graph: string) {
    super('not-found', `Graph ${graph} not found`);
    this.name = 'GraphNotFoundError';
  }
}

/** FalkorDB's answer to GRAPH.RO_QUERY on a key that does not exist. */
export function isEmptyKeyReply(error: unknown): boolean {
  return error instanceof Error && /Invalid graph operation on empty key/i.test(error.message);
}

/** A reply error (the server answered with an error) versus a transport failure. */
export function isReplyError(error: unknown): error is DatabaseReplyError {
  return error instanceof DatabaseReplyError;
}

export function isAuthFailure(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /^(WRONGPASS|NOAUTH)|invalid username-password pair|user is disabled/i.test(message);
}

/** How a command ended, besides its error: past its reply deadline, or abandoned by its caller. */
export interface CommandFate {
  timedOut?: boolean;
  aborted?: boolean;
}

/**
 * A failure of one command as a port error (port errors, such as a reply past its bound, pass as they are).
 */
export function translateCommandError(error: unknown, fate: CommandFate = {}): PortError {
  if (fate.timedOut) return new PortError('timeout', 'The database did not answer in time', { cause: error });
  if (fate.aborted) return new DatabaseUnavailableError('request aborted', { cause: error });
  if (error instanceof PortError) return error;
  if (isAuthFailure(error)) return new DatabaseAuthError((error as Error).message);
  if (error instanceof ErrorReply)
    return isTransientReply(error.message)
      ? new DatabaseBusyError(error.message)
      : new DatabaseReplyError(error.message);
  return new DatabaseUnavailableError('connection to the database failed', { cause: error });
}

/**
 * Whether the connection a command failed on must be dropped: always, except after an answer from the server
 * (an error reply, refused credentials), which leaves the connection in step.
 */
export function connectionLost(error: PortError): boolean {
  return !(error instanceof DatabaseReplyError || error instanceof DatabaseAuthError);
}

/** A failure to open a connection as a port error. */
export function translateConnectError(error: unknown, target: string): PortError {
  if (error instanceof PortError) return error;
  if (isAuthFailure(error)) return new DatabaseAuthError((error as Error).message);
  if (error instanceof ErrorReply && isTransientReply(error.message)) return new DatabaseBusyError(error.message);
  return new DatabaseUnavailableError(`cannot connect to ${target}`, { cause: error });
}
