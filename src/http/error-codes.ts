// The machine-readable `code` every error body of both APIs carries beside `message`: a fixed list, so clients can
// branch on it while messages stay free to name the field, the graph or the permission. A code names a reason a
// client can act on, never a module, an exception or an outside system's internals. docs/browser-api.md and
// docs/admin-api.md list the codes each API answers (test/unit/error-codes.test.ts keeps them in step);
// docs/decisions/error-codes.md says why these.
import type { PortError } from '../platform/port-errors.js';

/** ErrorShape of error-shapes.ts, which imports this module (an import back would be a cycle). */
type Api = 'browser' | 'admin';

interface ErrorCodeInfo {
  /** The HTTP status (or statuses) it comes with. */
  readonly status: string;
  /** Where one API answers it with other statuses too (statuses a specification of that API fixes). */
  readonly statusIn?: Partial<Record<Api, string>>;
  readonly description: string;
  /** Set when only one API can answer it. */
  readonly only?: Api;
}

export const ERROR_CODES = {
  invalid_request: {
    status: '400',
    description: 'A parameter, a body field or a setting is missing or invalid; the message names it.',
  },
  invalid_json: { status: '400', description: 'The body is not valid JSON.' },
  unsupported_content_type: {
    status: '400, 415',
    description: 'The body was sent with a Content-Type the route does not take (415 on uploads).',
  },
  malformed_request: { status: '400', description: 'The HTTP request, its URL or a path segment cannot be read.' },
  database_error: {
    status: '400',
    description: 'FalkorDB refused the query or command; the message is its own text.',
    only: 'browser',
  },
  result_too_large: {
    status: '400',
    description:
      'The result has more rows or bytes than the server allows (QUERY_ROWS_MAX, QUERY_RESULT_BYTES_MAX); it was refused whole.',
    only: 'browser',
  },
  unauthenticated: {
    status: '401',
    description: 'No credentials, or credentials that are invalid, expired or revoked.',
  },
  forbidden: {
    status: '403',
    description: 'The credentials are valid, but their role or permission does not allow the call.',
  },
  not_found: { status: '404', description: 'The graph, node, token, user, deployment or other object does not exist.' },
  route_not_found: { status: '404', description: 'No route answers this method and path.' },
  request_timeout: { status: '408', description: 'The request was not received within REQUEST_TIMEOUT_MS.' },
  conflict: {
    status: '409',
    statusIn: { browser: '409; 400 renaming or copying onto an existing graph' },
    description: 'The name is taken, or the object is in a state that does not allow the change.',
  },
  payload_too_large: { status: '413', description: 'The body or the upload is larger than its bound.' },
  unprocessable: {
    status: '422',
    description:
      'The input is well-formed but cannot be applied: an import statement failed, or the platform refused it.',
  },
  rate_limited: {
    status: '429',
    description: 'Too many requests or queries at once; retry after Retry-After seconds.',
  },
  headers_too_large: { status: '431', description: 'The request line and headers exceed what the server reads.' },
  internal_error: {
    status: '500',
    description:
      'An unexpected failure (a bug): the message says only that; the log has the cause under the request id.',
  },
  server_misconfigured: {
    status: '500',
    description:
      "A setting or secret the server needs is missing, or the platform refused the server's own credentials; the message names what to fix.",
  },
  unavailable: {
    status: '503',
    statusIn: { browser: '503; 404 from GET /api/status' },
    description:
      'A dependency (database, token store, Kubernetes, identity provider) cannot be reached or did not answer in time.',
  },
  deadline_exceeded: {
    status: '503',
    description:
      'The request, or the import it runs, was stopped at its time limit (REQUEST_TIMEOUT_MS, IMPORT_TIMEOUT_MS).',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as ErrorCode[];

/** The codes one API can answer, in the order the docs list them. */
export function errorCodesOf(shape: Api): ErrorCode[] {
  return ERROR_CODE_LIST.filter((code) => {
    const only = (ERROR_CODES[code] as ErrorCodeInfo).only;
    return only === undefined || only === shape;
  });
}

/** The statuses one API answers a code with, as its guide lists them. */
export function statusOf(code: ErrorCode, shape: Api): string {
  const info: ErrorCodeInfo = ERROR_CODES[code];
  return info.statusIn?.[shape] ?? info.status;
}

/** The code of an error known only by its status (an HttpError or a framework error without a code of its own). */
export function codeForStatus(statusCode: number): ErrorCode {
  switch (statusCode) {
    case 400:
      return 'invalid_request';
    case 401:
      return 'unauthenticated';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 408:
      return 'request_timeout';
    case 409:
      return 'conflict';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_content_type';
    case 422:
      return 'unprocessable';
    case 429:
      return 'rate_limited';
    case 431:
      return 'headers_too_large';
    case 503:
      return 'unavailable';
    default:
      return statusCode >= 500 ? 'internal_error' : 'invalid_request';
  }
}

/** The code of an adapter's failure, as each API answers it (PORT_ERROR_STATUS in error-handler.ts has the status). */
export function codeForPortError(error: Pick<PortError, 'kind' | 'rejectedBy'>, shape: Api): ErrorCode {
  switch (error.kind) {
    case 'unavailable':
    case 'timeout':
      return 'unavailable';
    case 'conflict':
      return 'conflict';
    case 'not-found':
      return 'not_found';
    case 'forbidden':
      return shape === 'browser' ? 'forbidden' : 'server_misconfigured';
    case 'unauthenticated':
      return shape === 'browser' ? 'unauthenticated' : 'server_misconfigured';
    case 'rejected':
      if (shape === 'admin') return 'unprocessable';
      if (error.rejectedBy === 'system') return 'database_error';
      return error.rejectedBy === 'bounds' ? 'result_too_large' : 'invalid_request';
  }
}
