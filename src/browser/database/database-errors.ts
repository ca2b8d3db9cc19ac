// Translates failures at the database boundary into HTTP errors with FalkorDB's own text where it helps.
import { DatabaseAuthError, DatabaseUnavailableError, isReplyError } from '../../platform/falkordb/connection-pools.js';
import { CypherInputError } from '../../platform/falkordb/cypher.js';
import { ResultTooLargeError } from '../../platform/falkordb/graph-database.js';
import { HttpError } from '../../shared/http-errors.js';

export const DATABASE_UNAVAILABLE = 'Database is offline or not accessible';

export function toHttpError(error: unknown): unknown {
  if (error instanceof HttpError) return error;
  if (error instanceof CypherInputError || error instanceof ResultTooLargeError)
    return new HttpError(400, error.message);
  if (error instanceof DatabaseAuthError) return new HttpError(401, 'Database credentials of this token were rejected');
  if (error instanceof DatabaseUnavailableError) return new HttpError(503, DATABASE_UNAVAILABLE);
  if (isReplyError(error)) {
    // FalkorDB's text is passed through unchanged; clients parse `errMsg: … errCtx: … errCtxOffset: N`.
    return new HttpError(/^NOPERM\b/.test(error.message) ? 403 : 400, error.message);
  }
  return error;
}
