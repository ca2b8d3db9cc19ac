// GET /api/queries and DELETE /api/queries/{id}: a token's own running queries, listed and stopped.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { principalOf } from '../context.js';
import type { RunningQueries } from './running-query-service.js';
import { QueryIdParamsSchema, QueryStoppedSchema, RunningQueryListSchema } from './schemas.js';

const tags = ['graphs'];

/** What the running-query routes call: the running queries, and the clock their elapsed times are read on. */
export interface QueryControlRouteDeps {
  running: RunningQueries;
  now: () => number;
}

export function queryControlRoutes(scope: FastifyInstance, { running, now }: QueryControlRouteDeps): void {
  const routes = scope.withTypeProvider<ZodTypeProvider>();
  routes.get(
    '/api/queries',
    {
      schema: {
        operationId: 'listRunningQueries',
        tags,
        summary: "This token's running queries",
        description: 'Queries of the calling token that run now, oldest first; the text is cut at 1,000 characters.',
        response: { 200: RunningQueryListSchema },
      },
    },
    (request) => ({
      queries: running.list(principalOf(request).tokenId).map((query) => ({
        id: query.id,
        graph: query.graph,
        query: query.query,
        started_at: new Date(query.startedAt).toISOString(),
        elapsed_ms: now() - query.startedAt,
      })),
    }),
  );

  routes.delete(
    '/api/queries/:id',
    {
      config: { errorResponses: [404] },
      schema: {
        operationId: 'stopQuery',
        tags,
        summary: 'Stop one of this token’s running queries',
        description:
          'Drops the database connection and ends the query’s HTTP answer (409 `The query was stopped`, or an `error` event). FalkorDB has no query abort yet: the database keeps executing the query until its own `timeout`. 404 for an unknown id or another token’s query.',
        params: QueryIdParamsSchema,
        response: { 200: QueryStoppedSchema },
      },
    },
    (request) => {
      running.stop(principalOf(request).tokenId, request.params.id);
      return { message: 'Query stopped', id: request.params.id };
    },
  );
}
