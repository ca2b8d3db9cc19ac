// Maps every error a request can raise to one status and one body in the owning API's shape.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { PortError, type PortErrorKind } from '../platform/port-errors.js';
import { HttpError } from './http-errors.js';
import { errorBody, type ErrorShape } from './error-shapes.js';
import { codeForPortError, codeForStatus, type ErrorCode } from './error-codes.js';
import { addErrorResponses } from './openapi.js';
import { REQUEST_NOT_RECEIVED } from './client-errors.js';
import { RequestDeadlineError } from './request-deadline.js';
import { isVerbatim } from '../lib/verbatim-messages.js';

export interface MappedError {
  statusCode: number;
  message: string;
  /** The machine-readable reason (error-codes.ts). */
  code: ErrorCode;
  headers: Record<string, string>;
  /** True when the cause is ours, not the client's: log it with its stack. */
  unexpected: boolean;
}

const GENERIC_500 = 'Internal server error';

interface ValidationIssue {
  instancePath: string;
  message?: string;
}

function describeValidation(context: string | undefined, issues: ValidationIssue[]): string {
  const fixed = issues.find((issue) => isVerbatim(issue.message));
  if (fixed?.message) return fixed.message;
  return issues
    .map((issue) => {
      const where = [context ?? 'request', ...issue.instancePath.split('/').filter(Boolean)].join('.');
      return `${where}: ${issue.message ?? 'is invalid'}`;
    })
    .join('; ');
}

/** A request its route schema refused: 400 naming each field that failed. */
function invalidRequest(context: string | undefined, issues: ValidationIssue[]): MappedError {
  return {
    statusCode: 400,
    message: describeValidation(context, issues),
    code: 'invalid_request',
    headers: {},
    unexpected: false,
  };
}

function isFastifyError(error: unknown): error is FastifyError {
  return error instanceof Error && typeof (error as Partial<FastifyError>).code === 'string';
}

/**
 * What each API answers for an adapter's failure. The browser API speaks for a database the token holder owns: its
 * refusals are the caller's (400, 401, 403). The admin API speaks for the server's own platform credentials: a
 * refusal of those is the operator's to fix (500 naming what to grant), and an invalid object is a 422.
 */
const PORT_ERROR_STATUS: Record<ErrorShape, Record<PortErrorKind, number>> = {
  browser: {
    unavailable: 503,
    timeout: 503,
    conflict: 409,
    'not-found': 404,
    forbidden: 403,
    unauthenticated: 401,
    rejected: 400,
  },
  admin: {
    unavailable: 503,
    timeout: 503,
    conflict: 409,
    'not-found': 404,
    forbidden: 500,
    unauthenticated: 500,
    rejected: 422,
  },
};

export function portErrorStatus(kind: PortErrorKind, shape: ErrorShape): number {
  return PORT_ERROR_STATUS[shape][kind];
}

/** Pure mapping, kept apart from the reply so it can be read (and tested) on its own. */
export function mapError(error: unknown, shape: ErrorShape = 'admin'): MappedError {
  if (error instanceof PortError) {
    const statusCode = portErrorStatus(error.kind, shape);
    const headers: Record<string, string> =
      error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(error.retryAfterSeconds) };
    // A refusal of the server's own credentials is a deployment problem worth an error line; outages are warnings.
    return {
      statusCode,
      message: error.message,
      code: codeForPortError(error, shape),
      headers,
      unexpected: statusCode === 500,
    };
  }
  if (error instanceof HttpError) {
    // 503 is an outage the message already explains (a store or database away), not a bug to trace.
    return {
      statusCode: error.statusCode,
      message: error.message,
      code: error.code ?? codeForStatus(error.statusCode),
      headers: error.headers,
      unexpected: error.statusCode >= 500 && error.statusCode !== 503,
    };
  }
  if (error instanceof RequestDeadlineError) {
    // REQUEST_TIMEOUT_MS ran out; the work behind it may still finish, but nobody waits for it.
    return {
      statusCode: 503,
      message: 'The request was not answered in time',
      code: 'deadline_exceeded',
      headers: {},
      unexpected: false,
    };
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    return invalidRequest(error.validationContext, error.validation);
  }
  if (isFastifyError(error) && !isResponseSerializationError(error)) {
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        // Both API specifications list 400 for a body that cannot be accepted; a wrong Content-Type is one of those.
        return {
          statusCode: 400,
          message: 'Unsupported Content-Type: send application/json',
          code: 'unsupported_content_type',
          headers: {},
          unexpected: false,
        };
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return {
          statusCode: 400,
          message: 'Invalid JSON: the body is empty',
          code: 'invalid_json',
          headers: {},
          unexpected: false,
        };
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return {
          statusCode: 400,
          message: 'Invalid JSON in request body',
          code: 'invalid_json',
          headers: {},
          unexpected: false,
        };
      case 'FST_ERR_MAX_PARAM_LENGTH':
        return {
          statusCode: 400,
          message: 'A path segment is too long',
          code: 'malformed_request',
          headers: {},
          unexpected: false,
        };
      case 'FST_ERR_BAD_URL':
        return { statusCode: 400, message: 'Malformed URL', code: 'malformed_request', headers: {}, unexpected: false };
      default:
        break;
    }
    if (error.validation) {
      return invalidRequest(error.validationContext, error.validation);
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500)
      return {
        statusCode: status,
        message: error.message,
        code: codeForStatus(status),
        headers: {},
        unexpected: false,
      };
  }
  if (error instanceof SyntaxError && (error as Partial<FastifyError>).statusCode === 400) {
    // The JSON body parser reports malformed JSON and __proto__ poisoning as a SyntaxError with statusCode 400.
    return {
      statusCode: 400,
      message: 'Invalid JSON in request body',
      code: 'invalid_json',
      headers: {},
      unexpected: false,
    };
  }
  return { statusCode: 500, message: GENERIC_500, code: 'internal_error', headers: {}, unexpected: true };
}

/** REQUEST_TIMEOUT_MS ran out while the body was still arriving: the client was too slow, not the server. */
function slowClient(error: unknown): MappedError | undefined {
  if (!(error instanceof RequestDeadlineError) || error.bodyReceived) return undefined;
  return {
    statusCode: 408,
    message: REQUEST_NOT_RECEIVED,
    code: 'request_timeout',
    headers: { connection: 'close' },
    unexpected: false,
  };
}

/** The first line of what lies under an error, for a log line without a stack. */
function causeOf(error: unknown): string | undefined {
  const cause = error instanceof Error ? error.cause : undefined;
  const detail = (error as { detail?: unknown } | undefined)?.detail;
  const parts = [typeof detail === 'string' ? detail : undefined, cause instanceof Error ? cause.message : undefined];
  const text = parts.filter((part) => part !== undefined).join(': ');
  return text === '' ? undefined : text.split('\n')[0];
}

/** Answers every error in the API's shape: adapters' port errors, HttpErrors, validation and framework errors. */
export function createErrorHandler(shape: ErrorShape) {
  return function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
    const mapped = slowClient(error) ?? mapError(error, shape);
    if (mapped.unexpected) request.log.error({ err: error }, 'request failed');
    else if (mapped.statusCode === 503)
      request.log.warn(
        { statusCode: 503, reason: mapped.message, cause: causeOf(error) },
        'request failed: a dependency is unavailable',
      );
    else request.log.info({ statusCode: mapped.statusCode, reason: mapped.message }, 'request rejected');
    void reply
      .code(mapped.statusCode)
      .headers(mapped.headers)
      .type('application/json; charset=utf-8')
      .send(errorBody(shape, mapped.statusCode, mapped.message, mapped.code));
  };
}

/**
 * What each API plugin installs first: its error handler (the adapters translated their failures into port errors
 * already, so no call site wraps a call) and its error responses on every route it declares.
 */
export function installErrorHandling(scope: FastifyInstance, shape: ErrorShape): void {
  scope.setErrorHandler(createErrorHandler(shape));
  scope.addHook('onRoute', addErrorResponses(shape));
}
