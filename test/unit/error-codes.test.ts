// The error `code` each API answers: every mapped error carries one from the fixed list, and each API's guide lists
// exactly the codes that API can answer, with their statuses.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PortError, type PortErrorKind, type RejectedBy } from '../../src/platform/port-errors.js';
import { DatabaseReplyError, ResultTooLargeError } from '../../src/platform/falkordb/database-errors.js';
import { ReplyTooLargeError } from '../../src/platform/falkordb/resp-reader.js';
import { CypherInputError } from '../../src/platform/falkordb/cypher.js';
import { ERROR_CODES, errorCodesOf, statusOf, type ErrorCode } from '../../src/http/error-codes.js';
import { mapError } from '../../src/http/error-handler.js';
import { HttpError, MisconfiguredError } from '../../src/http/http-errors.js';
import { errorBody, type ErrorShape } from '../../src/http/error-shapes.js';

/** The rows of the "Error codes" table of a guide: code → [status, meaning]. */
function documentedCodes(file: string): Record<string, [string, string]> {
  const text = readFileSync(new URL(`../../docs/${file}`, import.meta.url), 'utf8');
  const section = text.split('### Error codes')[1]?.split(/\n#/)[0] ?? '';
  return Object.fromEntries(
    [...section.matchAll(/^\| `([^`]+)` \| ([^|]+) \| (.+) \|$/gm)].map((row) => [
      row[1]!,
      [row[2]!.trim(), row[3]!.trim()],
    ]),
  );
}

describe('error codes', () => {
  it.each([
    ['browser', 'browser-api.md'],
    ['admin', 'admin-api.md'],
  ] as const)('the %s guide lists every code its API answers, with its status, and no other', (shape, file) => {
    const expected = Object.fromEntries(
      errorCodesOf(shape).map((code) => [code, [statusOf(code, shape), ERROR_CODES[code].description]]),
    );
    expect(documentedCodes(file)).toEqual(expected);
  });

  it("maps an adapter's failure to the code of the status each API answers", () => {
    const codes = (shape: ErrorShape) =>
      (['unavailable', 'timeout', 'conflict', 'not-found', 'forbidden', 'unauthenticated', 'rejected'] as const).map(
        (kind: PortErrorKind) => {
          const mapped = mapError(new PortError(kind, 'detail'), shape);
          return [kind, mapped.statusCode, mapped.code];
        },
      );
    expect(codes('browser')).toEqual([
      ['unavailable', 503, 'unavailable'],
      ['timeout', 503, 'unavailable'],
      ['conflict', 409, 'conflict'],
      ['not-found', 404, 'not_found'],
      ['forbidden', 403, 'forbidden'],
      ['unauthenticated', 401, 'unauthenticated'],
      ['rejected', 400, 'invalid_request'],
    ]);
    expect(codes('admin')).toEqual([
      ['unavailable', 503, 'unavailable'],
      ['timeout', 503, 'unavailable'],
      ['conflict', 409, 'conflict'],
      ['not-found', 404, 'not_found'],
      ['forbidden', 500, 'server_misconfigured'],
      ['unauthenticated', 500, 'server_misconfigured'],
      ['rejected', 422, 'unprocessable'],
    ]);
  });

  it("tells FalkorDB's own refusal and a result past its bounds from an input the adapter refused", () => {
    const refusal = (rejectedBy?: RejectedBy) => new PortError('rejected', 'x', { rejectedBy });
    expect(mapError(new DatabaseReplyError('errMsg: Invalid input'), 'browser')).toMatchObject({
      statusCode: 400,
      code: 'database_error',
      message: 'errMsg: Invalid input',
    });
    expect(mapError(new ResultTooLargeError('too many rows'), 'browser')).toMatchObject({
      statusCode: 400,
      code: 'result_too_large',
    });
    expect(mapError(new ReplyTooLargeError('rows', 3), 'browser').code).toBe('result_too_large');
    expect(mapError(new CypherInputError('bad label'), 'browser').code).toBe('invalid_request');
    // The admin API answers any refusal as 422, whoever refused.
    for (const by of ['system', 'bounds', undefined] as const)
      expect(mapError(refusal(by), 'admin')).toMatchObject({ statusCode: 422, code: 'unprocessable' });
  });

  it('answers a missing setting as server_misconfigured, keeping its message, and a deadline as deadline_exceeded', () => {
    const missing = mapError(new MisconfiguredError('Server configuration error: AUTH_SECRET not set'), 'browser');
    expect(missing).toMatchObject({
      statusCode: 500,
      code: 'server_misconfigured',
      message: 'Server configuration error: AUTH_SECRET not set',
    });
    expect(mapError(new HttpError(503, 'stopped', {}, undefined, 'deadline_exceeded')).code).toBe('deadline_exceeded');
  });

  it('gives an error known only by its status the code of that status, and anything unknown internal_error', () => {
    const statuses = [400, 401, 403, 404, 409, 413, 415, 422, 429, 503];
    const codes = statuses.map((status) => mapError(new HttpError(status, 'x')).code);
    expect(codes).toEqual<ErrorCode[]>([
      'invalid_request',
      'unauthenticated',
      'forbidden',
      'not_found',
      'conflict',
      'payload_too_large',
      'unsupported_content_type',
      'unprocessable',
      'rate_limited',
      'unavailable',
    ]);
    expect(mapError(new Error('a bug')).code).toBe('internal_error');
  });

  it('puts the code beside the message in both shapes', () => {
    expect(errorBody('browser', 404, 'Graph g not found', 'not_found')).toEqual({
      message: 'Graph g not found',
      code: 'not_found',
    });
    expect(errorBody('admin', 404, 'User u not found', 'not_found')).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'User u not found',
      code: 'not_found',
    });
  });
});
