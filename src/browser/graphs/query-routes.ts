// GET /api/graph/{graph}?query=&timeout=[&params=]: runs Cypher and answers as server-sent events or as JSON.
import { Readable } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createErrorHandler, mapError } from '../../shared/error-handler.js';
import { BEARER_SCHEME } from '../../shared/openapi.js';
import { sendJsonText } from '../../shared/prepared-json.js';
import { verbatim } from '../../shared/verbatim-messages.js';
import { ConcurrencyLimit } from '../../shared/concurrency-limit.js';
import { HttpError } from '../../shared/http-errors.js';
import { databaseFor, principalOf, type BrowserContext, type BrowserLimits } from '../context.js';
import { cypherQuerySchema, GraphParamsSchema, requiredString } from './schemas.js';
import { openEventStream, wantsEventStream } from './sse.js';
import { resultJson, resultJsonChunks, STREAMED_ABOVE_ROWS } from './result-json.js';
import { parseQueryParams } from './query-params.js';
import { withParameters } from '../../platform/falkordb/cypher.js';
import type { RunningQueries } from '../queries/running-queries.js';

const ParamsSchema = z
  .string()
  .optional()
  .transform((text, context) => {
    if (text === undefined) return undefined;
    const parsed = parseQueryParams(text);
    if ('error' in parsed) {
      context.addIssue({ code: 'custom', message: verbatim(`Invalid parameter params: ${parsed.error}`) });
      return z.NEVER;
    }
    return parsed.params;
  })
  .meta({
    description:
      'Cypher parameters as a JSON object (`{"name": "Ada", "born": 1815}`), used in the query as `$name`; sent to FalkorDB as its `CYPHER` header, never spliced into the text. At most 64 KiB, 32 levels deep.',
  });

const queryStreamQuerySchema = (csvUrlAllowlist: readonly string[]) =>
  z.object({
    query: requiredString('query').pipe(cypherQuerySchema(csvUrlAllowlist)),
    timeout: requiredString('timeout')
      .regex(/^\d{1,10}$/, verbatim('Invalid parameter timeout'))
      .transform(Number),
    params: ParamsSchema,
  });

const RowSchema = z.record(z.string(), z.unknown());
export const QueryResultSchema = z.object({ metadata: z.array(z.string()), data: z.array(RowSchema).optional() }).meta({
  id: 'QueryResult',
  description:
    'Row values: nodes {id, labels, properties}; relationships {id, relationshipType, sourceId, destinationId, properties}; paths {nodes, edges}; points {latitude, longitude}; temporal values as ISO 8601 strings; integers beyond 2^53 as strings',
});

const jsonErrors = createErrorHandler('browser');

/** FalkorDB reads timeout 0 as "no limit": with a maximum configured, 0 and anything above it become the maximum. */
export function clampQueryTimeout(requestedMs: number, maxMs: number | undefined): number {
  if (maxMs === undefined) return requestedMs;
  return requestedMs === 0 || requestedMs > maxMs ? maxMs : requestedMs;
}

/** Parameter problems reach an event-stream client as one `error` event with status 400, before any query runs. */
function streamAwareErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const mapped = mapError(error, 'browser');
  if (!wantsEventStream(request) || mapped.statusCode !== 400) return jsonErrors(error, request, reply);
  const stream = openEventStream(request, reply);
  stream.send('error', { message: mapped.message, status: mapped.statusCode });
  stream.end();
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

export function queryRoutes(app: FastifyInstance, context: BrowserContext, running: RunningQueries): void {
  const takeQuerySlot = createQuerySlots(context.limits);
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/graph/:graph',
    {
      errorHandler: streamAwareErrors,
      // The query's own required `timeout` bounds this handler (FalkorDB stops the query), so REQUEST_TIMEOUT_MS
      // must not cut a long query short.
      config: { requestDeadline: false, errorResponses: [429] },
      schema: {
        operationId: 'runQuery',
        tags: ['graphs'],
        summary: 'Run a Cypher query (Read-Only tokens run GRAPH.RO_QUERY)',
        description:
          'With `Accept: text/event-stream`: HTTP 200 and one `result` event `{metadata, data}` or one `error` event `{message, status}`, then the end of the stream; comment heartbeats every 15 s while the query runs. Otherwise a JSON response.',
        security: [{ [BEARER_SCHEME]: [] }],
        params: GraphParamsSchema,
        querystring: queryStreamQuerySchema(context.limits.csvUrlAllowlist),
        response: {
          200: {
            description: 'Query result',
            content: { 'application/json': { schema: QueryResultSchema }, 'text/event-stream': { schema: z.string() } },
          },
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const database = databaseFor(context, principal);
      const { limits } = context;
      const options = {
        readOnly: principal.role === 'Read-Only',
        timeoutMs: clampQueryTimeout(request.query.timeout, limits.queryTimeoutMaxMs),
        maxRows: limits.queryRowsMax,
        maxBytes: limits.queryResultBytesMax,
      };
      // A bad parameter name or value is a 400 (CypherInputError) before a slot is taken.
      const cypher = request.query.params
        ? withParameters(request.query.query, request.query.params)
        : request.query.query;
      const release = takeQuerySlot(principal.tokenId, request.ip);
      // Listed for its owner (GET /api/queries) until it has been answered; DELETE aborts `control.signal`.
      const control = running.start(principal.tokenId, request.params.graph, request.query.query);
      // The slot is held until the response is gone: a streamed body still holds its rows.
      reply.raw.once('close', () => {
        control.done();
        release();
      });
      const stoppedReason = () => (control.signal.aborted ? (control.signal.reason as Error) : undefined);

      if (!wantsEventStream(request)) {
        let result;
        try {
          result = await database.queryRows(request.params.graph, cypher, { ...options, signal: control.signal });
        } catch (error) {
          throw stoppedReason() ?? error;
        }
        control.done();
        // Serialized here, once, rather than by the schema serializer; a large result is streamed in chunks.
        return sendJsonText(
          reply,
          result.rowCount > STREAMED_ABOVE_ROWS ? Readable.from(resultJsonChunks(result)) : resultJson(result),
        );
      }

      const stream = openEventStream(request, reply, context.sseHeartbeatMs);
      try {
        const signal = AbortSignal.any([stream.signal, control.signal]);
        const result = await database.queryRows(request.params.graph, cypher, { ...options, signal });
        control.done();
        if (result.rowCount > STREAMED_ABOVE_ROWS) await stream.sendChunks('result', resultJsonChunks(result));
        else stream.endWith('result', resultJson(result));
      } catch (error) {
        if (stream.signal.aborted) return reply;
        const mapped = mapError(stoppedReason() ?? error, 'browser');
        if (mapped.unexpected) request.log.error({ err: error }, 'query failed');
        stream.send('error', { message: mapped.message, status: mapped.statusCode });
      } finally {
        stream.end();
      }
      return reply;
    },
  );
}
