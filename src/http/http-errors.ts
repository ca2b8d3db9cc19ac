// HttpError: the one way a handler fails a request on purpose. Anything else thrown becomes a generic 500.
import type { ErrorCode } from './error-codes.js';

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    /** Extra headers the error response must carry (e.g. Retry-After). */
    readonly headers: Record<string, string> = {},
    cause?: unknown,
    /** The body's `code`, when it is not the one of the status (codeForStatus in error-codes.ts). */
    readonly code?: ErrorCode,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'HttpError';
  }
}

/** A setting or secret the server needs is missing or unusable: the operator's to fix, not a bug (500). */
export class MisconfiguredError extends HttpError {
  constructor(message: string) {
    super(500, message, {}, undefined, 'server_misconfigured');
  }
}

/** @fastify/rate-limit's errorResponseBuilder for both APIs: 429 `Too many <what>; try again in N seconds`, with Retry-After. */
export function tooManyRequests(what: string) {
  return (_request: unknown, limit: { ttl: number }): HttpError => {
    const seconds = Math.ceil(limit.ttl / 1000);
    return new HttpError(429, `Too many ${what}; try again in ${seconds} seconds`, { 'retry-after': String(seconds) });
  };
}

export class BadRequestError extends HttpError {
  constructor(message: string) {
    super(400, message);
  }
}

export class UnauthorizedError extends HttpError {
  constructor(message: string) {
    super(401, message);
  }
}

export class ForbiddenError extends HttpError {
  constructor(message: string) {
    super(403, message);
  }
}

export class NotFoundError extends HttpError {
  constructor(message: string) {
    super(404, message);
  }
}

export class ConflictError extends HttpError {
  constructor(message: string) {
    super(409, message);
  }
}

export class UnprocessableError extends HttpError {
  constructor(message: string) {
    super(422, message);
  }
}
