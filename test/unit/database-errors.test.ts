// The FalkorDB adapter's one translation of its clients' failures into port errors, and what the browser API
// answers for each (through the same mapping its error handler uses).
import { ErrorReply } from 'redis';
import { describe, expect, it } from 'vitest';
import {
  connectionLost,
  DATABASE_UNAVAILABLE,
  DatabaseAuthError,
  DatabaseReplyError,
  DatabaseUnavailableError,
  ResultTooLargeError,
  translateCommandError,
  translateConnectError,
} from '../../src/platform/falkordb/database-errors.js';
import { CypherInputError } from '../../src/platform/falkordb/cypher.js';
import { ReplyTooLargeError } from '../../src/platform/falkordb/resp-reader.js';
import { PortError } from '../../src/platform/port-errors.js';
import { mapError } from '../../src/http/error-handler.js';

const browser = (error: unknown) => {
  const { statusCode, message } = mapError(error, 'browser');
  return { statusCode, message };
};

describe('translateCommandError', () => {
  it('passes the server’s error text through verbatim: 400, or 403 for NOPERM; the connection stays', () => {
    const syntax = translateCommandError(new ErrorReply('errMsg: Invalid input errCtx: RETURN x errCtxOffset: 7'));
    expect(syntax).toBeInstanceOf(DatabaseReplyError);
    expect(browser(syntax)).toEqual({
      statusCode: 400,
      message: 'errMsg: Invalid input errCtx: RETURN x errCtxOffset: 7',
    });
    expect(connectionLost(syntax)).toBe(false);
    const denied = translateCommandError(
      new ErrorReply("NOPERM User reader has no permissions to run the 'graph.query' command"),
    );
    expect([denied.kind, browser(denied).statusCode]).toEqual(['forbidden', 403]);
  });

  it.each(['WRONGPASS invalid username-password pair or user is disabled.', 'NOAUTH Authentication required.'])(
    'answers refused credentials (%s) with 401 and a message that names no detail',
    (text) => {
      const refused = translateCommandError(new ErrorReply(text));
      expect(refused).toBeInstanceOf(DatabaseAuthError);
      expect((refused as DatabaseAuthError).detail).toBe(text);
      expect(browser(refused)).toEqual({
        statusCode: 401,
        message: 'Database credentials of this token were rejected',
      });
      expect(connectionLost(refused)).toBe(false);
    },
  );

  it('answers a lost connection with 503 and drops the connection, keeping the reason for the log', () => {
    const lost = translateCommandError(new Error('Socket closed unexpectedly'));
    expect(lost).toBeInstanceOf(DatabaseUnavailableError);
    expect(browser(lost)).toEqual({ statusCode: 503, message: DATABASE_UNAVAILABLE });
    expect((lost.cause as Error).message).toBe('Socket closed unexpectedly');
    expect(connectionLost(lost)).toBe(true);
  });

  it('reports a command past its deadline as a timeout and an abandoned one as unavailable, whatever the error', () => {
    const late = translateCommandError(new ErrorReply('ERR anything'), { timedOut: true });
    expect([late.kind, browser(late)]).toEqual([
      'timeout',
      { statusCode: 503, message: 'The database did not answer in time' },
    ]);
    const aborted = translateCommandError(new Error('destroyed'), { aborted: true });
    expect([aborted, (aborted as DatabaseUnavailableError).detail]).toEqual([
      expect.any(DatabaseUnavailableError),
      'request aborted',
    ]);
    expect(connectionLost(late) && connectionLost(aborted)).toBe(true);
  });

  it('lets port errors through unchanged; a reply past its bound drops the connection', () => {
    const tooLarge = new ReplyTooLargeError('rows', 10);
    expect(translateCommandError(tooLarge)).toBe(tooLarge);
    expect(connectionLost(tooLarge)).toBe(true);
    const conflict = new PortError('conflict', 'x');
    expect(translateCommandError(conflict)).toBe(conflict);
  });
});

describe('translateConnectError', () => {
  it('tells refused credentials from an unreachable server', () => {
    expect(translateConnectError(new ErrorReply('WRONGPASS nope'), 'db:6379')).toBeInstanceOf(DatabaseAuthError);
    const refused = translateConnectError(
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      'db:6379',
    );
    expect([refused, (refused as DatabaseUnavailableError).detail]).toEqual([
      expect.any(DatabaseUnavailableError),
      'cannot connect to db:6379',
    ]);
  });
});

describe('the adapter’s own refusals', () => {
  it('answer 400 with their message', () => {
    expect(
      browser(new ResultTooLargeError('The result has more than the 5 rows allowed: add LIMIT to the query')),
    ).toEqual({
      statusCode: 400,
      message: 'The result has more than the 5 rows allowed: add LIMIT to the query',
    });
    expect(browser(new CypherInputError('values must not contain NUL characters'))).toEqual({
      statusCode: 400,
      message: 'values must not contain NUL characters',
    });
  });
});
