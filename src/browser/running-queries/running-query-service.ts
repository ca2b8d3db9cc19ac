// The queries each token has running, so their owner can list them and stop one. Stopping drops the
// database connection and ends the HTTP answer; FalkorDB itself has no query abort yet and keeps executing until
// the query's own timeout (documented).
import { idSequence } from '../../lib/id-sequence.js';
import { HttpError, NotFoundError } from '../../http/http-errors.js';

export interface RunningQuery {
  id: string;
  graph: string;
  query: string;
  startedAt: number;
}

interface Entry extends RunningQuery {
  tokenId: string;
  controller: AbortController;
}

/** What a stopped query answers its own client: 409, as an error body or an `error` event. */
export class QueryStoppedError extends HttpError {
  constructor() {
    super(409, 'The query was stopped (DELETE /api/queries/{id})');
  }
}

/** At most this much of a query's text is shown back in the list. */
const SHOWN_QUERY_CHARS = 1000;

export function createRunningQueries(now: () => number = Date.now) {
  const entries = new Map<string, Entry>();
  const nextId = idSequence();
  return {
    /**
     * Registers a query whose owner may stop it: stop() aborts `controller` (the query's own, so a query needs no
     * second controller and listener of its own) with a QueryStoppedError. `done(id)` forgets it (call it
     * always). Answers the query's id.
     */
    start(tokenId: string, graph: string, query: string, controller: AbortController): string {
      const entry: Entry = { id: nextId(), tokenId, graph, query, startedAt: now(), controller };
      entries.set(entry.id, entry);
      return entry.id;
    },

    done(id: string): void {
      entries.delete(id);
    },

    /** This token's running queries, oldest first. */
    list(tokenId: string): RunningQuery[] {
      return [...entries.values()]
        .filter((entry) => entry.tokenId === tokenId)
        .map(({ id, graph, query, startedAt }) => ({ id, graph, query: query.slice(0, SHOWN_QUERY_CHARS), startedAt }));
    },

    /** Stops one of this token's queries; another token's query is as absent as an unknown one (404). */
    stop(tokenId: string, id: string): void {
      const entry = entries.get(id);
      if (!entry || entry.tokenId !== tokenId) throw new NotFoundError('Query not found');
      entries.delete(id);
      entry.controller.abort(new QueryStoppedError());
    },
  };
}

export type RunningQueries = ReturnType<typeof createRunningQueries>;
