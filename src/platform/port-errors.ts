// The failures every adapter reports, whatever its outside system: each adapter translates its client's errors into
// these once, and each API plugin's error handler maps them to its own status codes and body shape.

export type PortErrorKind =
  /** The system cannot be reached, or answered that it cannot serve now. */
  | 'unavailable'
  /** The system did not answer within its deadline. */
  | 'timeout'
  /** A stale version was written, or the object already exists. */
  | 'conflict'
  | 'not-found'
  /** The system refused an operation to our credentials; `detail` names what to grant. */
  | 'forbidden'
  /** The system refused our credentials themselves. */
  | 'unauthenticated'
  /** The system refused the input as invalid. */
  | 'rejected';

/**
 * Who refused a `rejected` operation: the outside system itself (the message is its own text), or the adapter because
 * a reply went past the caller's bounds. Unset: the adapter refused the input before sending it.
 */
export type RejectedBy = 'system' | 'bounds';

export class PortError extends Error {
  /** A condition expected to pass by itself: clients are told (Retry-After) to try again after this many seconds. */
  readonly retryAfterSeconds: number | undefined;
  readonly rejectedBy: RejectedBy | undefined;

  constructor(
    readonly kind: PortErrorKind,
    message: string,
    options?: { cause?: unknown; retryAfterSeconds?: number; rejectedBy?: RejectedBy },
  ) {
    super(message, options);
    this.name = 'PortError';
    this.retryAfterSeconds = options?.retryAfterSeconds;
    this.rejectedBy = options?.rejectedBy;
  }
}

export function isPortError(error: unknown, kind?: PortErrorKind): error is PortError {
  return error instanceof PortError && (kind === undefined || error.kind === kind);
}
