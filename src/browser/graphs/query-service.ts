// Running one Cypher query for a token: its slots (QUERIES_PER_TOKEN, QUERIES_PER_CLIENT), its listing for
// GET /api/queries and DELETE /api/queries/{id}, its bounds, and the database call. The route only shapes the reply.
import type { JsonValue } from '../../platform/falkordb/compact-reply.js';
import type { CypherValue } from '../../platform/falkordb/cypher.js';
import { withParameters } from '../../platform/falkordb/cypher.js';
import type { QueryRows, QueryStream } from '../../platform/falkordb/graph-database.js';
import { ConcurrencyLimit } from '../../lib/concurrency-limit.js';
import { HttpError } from '../../http/http-errors.js';
import { databaseFor, type BrowserContext, type BrowserLimits, type Principal } from '../context.js';
import { limitRows } from './result-json.js';
import { QueryStoppedError, type RunningQueries } from '../running-queries/running-query-service.js';

/** FalkorDB reads timeout 0 as "no limit": with a maximum configured, 0 and anything above it become the maximum. */
export function clampQueryTimeout(requestedMs: number, maxMs: number | undefined): number {
  if (maxMs === undefined) return requestedMs;
  return requestedMs === 0 || requestedMs > maxMs ? maxMs : requestedMs;
}

/**
 * Takes a query slot for the token and for the client address (QUERIES_PER_TOKEN, QUERIES_PER_CLIENT), or answers
 * 429: one holder cannot fill the database's worker threads, or the server's memory, with parallel queries.
 */
export function createQuerySlots(limits: Pick<BrowserLimits, 'queriesPerToken' | 'queriesPerClient'>) {
  const perToken = new ConcurrencyLimit(limits.queriesPerToken);
  const perClient = new ConcurrencyLimit(limits.queriesPerClient);
  return function takeQuerySlot(tokenId: string, clientAddress: string): () => void {
    const releaseToken = perToken.tryAcquire(tokenId);
    if (!releaseToken)
      throw new HttpError(
        429,
        `Too many queries running for this token (at most ${perToken.max}); try again when one ends`,
        { 'retry-after': '1' },
      );
    const releaseClient = perClient.tryAcquire(clientAddress);
    if (!releaseClient) {
      releaseToken();
      throw new HttpError(
        429,
        `Too many queries running from this client (at most ${perClient.max}); try again when one ends`,
        { 'retry-after': '1' },
      );
    }
    return () => {
      releaseToken();
      releaseClient();
    };
  };
}

export interface QueryRequest {
  graph: string;
  query: string;
  params?: Record<string, CypherValue>;
  /** As asked; clamped to QUERY_TIMEOUT_MAX_MS. */
  timeoutMs: number;
  /** A row cap of the caller's: the result is cut there and marked truncated instead of refused. */
  maxRows?: number;
  /** Rows in the typed value format (`format: "typed"`). */
  typed?: boolean;
}

/** One query, begun: `rows()` runs it (once), `finish()` gives its slots back and forgets it (call it always). */
export interface QueryRun {
  rows(): Promise<QueryRows>;
  /**
   * Runs it with its rows read from the database as they are taken (NDJSON). The query stays listed, and can be
   * stopped, until its last row has been read; finish() drops what was not.
   */
  stream(): Promise<StreamedResult>;
  finish(): void;
}

/** A streamed result with the caller's row cap applied. */
export interface StreamedResult extends Omit<QueryStream, 'batches'> {
  /** Set when the caller asked for a row cap (`maxRows`): whether the result had more rows. */
  truncated?: boolean;
  batches(): AsyncGenerator<JsonValue[][]>;
}

/** Why a query's signal is aborted once its answer has gone out (or its client has gone). */
const ANSWER_GONE = new Error('the answer to the query is gone');

export function createQueryService(context: BrowserContext, running: RunningQueries) {
  const takeQuerySlot = createQuerySlots(context.limits);
  const { limits } = context;
  return {
    /** A query slot of the caller's for work that is not one query (an uploaded batch); call the result to free it. */
    takeSlot: (principal: Principal, clientAddress: string): (() => void) =>
      takeQuerySlot(principal.tokenId, clientAddress),

    /**
     * Takes the caller's slots (429 without one) and lists the query for its owner. A bad parameter name or value
     * is a 400 (CypherInputError) before any slot is taken.
     */
    begin(principal: Principal, clientAddress: string, request: QueryRequest): QueryRun {
      const cypher = request.params ? withParameters(request.query, request.params) : request.query;
      const release = takeQuerySlot(principal.tokenId, clientAddress);
      // The query's one signal: aborted by finish() (an answer whose response is gone stops reading) or by its
      // owner's stop (DELETE /api/queries/{id}, while it is listed).
      const gone = new AbortController();
      // Listed for its owner until it has been answered.
      const id = running.start(principal.tokenId, request.graph, request.query, gone);
      let finished = false;
      // Whether the reading of the database's answer has ended (read through, failed or given up): past that, nothing
      // listens to `gone`. Ending it also takes the query off its owner's list.
      let settled = false;
      const settle = () => {
        settled = true;
        running.done(id);
      };
      const queryOptions = () => ({
        readOnly: principal.role === 'Read-Only',
        timeoutMs: clampQueryTimeout(request.timeoutMs, limits.queryTimeoutMaxMs),
        maxRows: limits.queryRowsMax,
        maxBytes: limits.queryResultBytesMax,
        signal: gone.signal,
        // Reads never create graphs: a query that changes nothing on a missing graph is a 404.
        missingGraph: 'not-found' as const,
        ...(request.typed ? { typedValues: true } : {}),
      });
      // A query its owner stopped says so, whatever the database connection reported.
      const stopped = (error: unknown) =>
        gone.signal.reason instanceof QueryStoppedError ? gone.signal.reason : error;
      return {
        async stream() {
          let result: QueryStream;
          try {
            result = await databaseFor(context, principal).queryStream(request.graph, cypher, queryOptions());
          } catch (error) {
            settle();
            throw stopped(error);
          }
          const { maxRows } = request;
          return {
            hasColumns: result.hasColumns,
            columns: result.columns,
            rowCount: maxRows === undefined ? result.rowCount : Math.min(result.rowCount, maxRows),
            ...(result.typed ? { typed: true } : {}),
            ...(maxRows === undefined ? {} : { truncated: result.rowCount > maxRows }),
            statistics: () => result.statistics(),
            async *batches() {
              try {
                yield* result.batches(maxRows);
              } catch (error) {
                throw stopped(error);
              } finally {
                settle();
              }
            },
          };
        },
        async rows() {
          try {
            const result = await databaseFor(context, principal).queryRows(request.graph, cypher, queryOptions());
            return limitRows(result, request.maxRows);
          } catch (error) {
            throw stopped(error);
          } finally {
            settle();
          }
        },
        finish() {
          if (finished) return;
          finished = true;
          running.done(id);
          // Only a query still being read is stopped: aborting a settled one would build and dispatch an abort event
          // per query for no listener (seen in the query route's profile). A reason made once: abort() without one
          // builds a DOMException (and its stack).
          if (!settled) gone.abort(ANSWER_GONE);
          release();
        },
      };
    },
  };
}

export type QueryService = ReturnType<typeof createQueryService>;
