// GET /api/graph/{graph}?query=&timeout=[&params=] and POST /api/graph/{graph}/query {query, params, timeout, maxRows}:
// run Cypher and answer as JSON, server-sent events or NDJSON, by Accept.
import { Readable } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createErrorHandler, mapError } from '../../http/error-handler.js';
import { queryParameterAlias } from '../body-parameters.js';
import { sendJsonText, sendText } from '../../http/prepared-json.js';
import { principalOf } from '../context.js';
import type { QueryRequest, QueryService, StreamedResult } from './query-service.js';
import {
  BODY_QUERY_DEFAULT_TIMEOUT_MS,
  GraphParamsSchema,
  queryBodySchema,
  QueryResultSchema,
  queryStreamQuerySchema,
  TypedQueryResultSchema,
} from './schemas.js';
import { accepts, openEventStream, wantsEventStream } from '../../http/sse.js';
import { ndjsonLines, resultJson, resultJsonChunks, STREAMED_ABOVE_ROWS } from './result-json.js';

const jsonErrors = createErrorHandler('browser');

/** FalkorDB's statistics lines of a read, for the examples of the API document. */
const QUERY_METADATA_EXAMPLE = ['Cached execution: 0', 'Query internal execution time: 0.312 milliseconds'];

/**
 * A streamed result's NDJSON lines. A failure after the header line (the query stopped, the database connection
 * lost, the reply past its bytes bound) ends the answer with an `error` line in place of the summary.
 */
async function* streamedNdjson(result: StreamedResult, request: FastifyRequest): AsyncGenerator<string> {
  try {
    yield* ndjsonLines({
      columns: result.columns,
      batches: result.batches(),
      summary: () => ({ metadata: result.statistics(), rows: result.rowCount, truncated: !!result.truncated }),
      typed: result.typed,
    });
  } catch (error) {
    const mapped = mapError(error, 'browser');
    if (mapped.unexpected) request.log.error({ err: error }, 'query failed');
    yield `${JSON.stringify({ type: 'error', message: mapped.message, status: mapped.statusCode, code: mapped.code })}\n`;
  }
}

/** Parameter problems reach an event-stream client as one `error` event with status 400, before any query runs. */
function streamAwareErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const mapped = mapError(error, 'browser');
  if (!wantsEventStream(request) || mapped.statusCode !== 400) return jsonErrors(error, request, reply);
  const stream = openEventStream(request, reply);
  stream.send('error', { message: mapped.message, status: mapped.statusCode, code: mapped.code });
  stream.end();
}

const QUERY_ANSWERS =
  'With `Accept: text/event-stream`: HTTP 200 and one `result` event `{metadata, data}` or one `error` event `{message, status, code}`, then the end of the stream; comment heartbeats every 15 s while the query runs. With `Accept: application/x-ndjson`: one JSON object per line, `{"type":"header","columns":[…]}`, then `{"type":"row","data":{…}}` per row, then `{"type":"summary","metadata":[…],"rows":n,"truncated":false}`; rows are sent as they arrive from the database. An error before the first line is a JSON error response; one after it (the query stopped, the connection lost) ends the stream with `{"type":"error","message":…,"status":n,"code":…}` in place of the summary. Otherwise a JSON response `{metadata, data}` (`data` is `[]` without rows). A query that changes nothing on a graph that does not exist answers 404 and creates no graph; a write creates the graph. With `format=typed` every row value is tagged with its kind (TypedValue) and the answer says `"format": "typed"`.';

/** The body form's own bound: the longest query and the largest `params` as JSON, with room for the framing. */
const QUERY_BODY_LIMIT_BYTES = 4 * 1_000_000 + 64 * 1024 + 4096;

/**
 * What the query routes call: the query service, the URLs LOAD CSV may read (checked by the schemas), and the
 * interval of the event stream's heartbeats.
 */
export interface QueryRouteDeps {
  queries: QueryService;
  csvUrlAllowlist: readonly string[];
  sseHeartbeatMs: number;
}

export function queryRoutes(
  scope: FastifyInstance,
  { queries, csvUrlAllowlist, sseHeartbeatMs }: QueryRouteDeps,
): void {
  const routes = scope.withTypeProvider<ZodTypeProvider>();

  /** One query's answer, as the Accept header asks: the two routes differ only in where the fields are read. */
  async function answer(
    request: FastifyRequest,
    reply: FastifyReply,
    query: QueryRequest,
  ): Promise<FastifyReply | undefined> {
    const run = queries.begin(principalOf(request), request.ip, query);
    // The slots are held until the response is gone: a streamed body still holds its rows.
    reply.raw.once('close', () => run.finish());

    if (!wantsEventStream(request) && accepts(request, 'application/x-ndjson')) {
      const result = await run.stream();
      // Rows go out as the database's reply arrives, and only as fast as the client reads them: the socket to the
      // database is paused while the response is not draining, so a long result is never held whole.
      return sendText(
        reply,
        'application/x-ndjson; charset=utf-8',
        Readable.from(streamedNdjson(result, request), { highWaterMark: 1 }),
      );
    }
    if (!wantsEventStream(request)) {
      const result = await run.rows();
      // Serialized here, once, rather than by the schema serializer; a large result is streamed in chunks.
      return sendJsonText(
        reply,
        result.rowCount > STREAMED_ABOVE_ROWS ? Readable.from(resultJsonChunks(result)) : resultJson(result),
      );
    }

    const stream = openEventStream(request, reply, sseHeartbeatMs);
    try {
      // A client that goes away closes the response, whose 'close' (above) stops the query: no signal of the
      // stream's own is needed to stop it.
      const result = await run.rows();
      if (result.rowCount > STREAMED_ABOVE_ROWS) await stream.sendChunks('result', resultJsonChunks(result));
      else stream.endWith('result', resultJson(result));
    } catch (error) {
      if (stream.signal.aborted) return reply;
      const mapped = mapError(error, 'browser');
      if (mapped.unexpected) request.log.error({ err: error }, 'query failed');
      stream.send('error', { message: mapped.message, status: mapped.statusCode, code: mapped.code });
    } finally {
      stream.end();
    }
    return reply;
  }

  // One operation per form with the three media types; each is a named schema. The streams are text whose events or
  // lines are described by QueryEvent and QueryLine (`contentSchema`); a generated client asks for the JSON media
  // type to get a typed body (docs/decisions/query-contract-for-clients.md).
  const queryResponses = {
    200: {
      description: 'The query result, as the Accept header asks',
      content: {
        // The typed form first: it is the one with a mark (`format`), so a generated client that tries the branches in
        // order (openapi-python-client) reads each result as the form it is; the other order reads a typed result
        // as a plain one.
        'application/json': {
          schema: z.union([TypedQueryResultSchema, QueryResultSchema]).meta({
            examples: [
              { metadata: QUERY_METADATA_EXAMPLE, data: [{ name: 'Ada', born: 1815 }] },
              {
                format: 'typed',
                metadata: QUERY_METADATA_EXAMPLE,
                data: [{ name: { type: 'String', value: 'Ada' }, born: { type: 'Integer', value: '1815' } }],
              },
            ],
          }),
        },
        'text/event-stream': {
          schema: z.string().meta({
            description: 'Server-sent events: one QueryEvent (`result` or `error`), then the end of the stream',
            contentMediaType: 'text/event-stream',
            contentSchema: { $ref: '#/components/schemas/QueryEvent' },
            examples: [
              `event: result\ndata: ${JSON.stringify({ metadata: QUERY_METADATA_EXAMPLE, data: [{ name: 'Ada', born: 1815 }] })}\n\n`,
            ],
          }),
        },
        'application/x-ndjson': {
          schema: z.string().meta({
            description: 'One QueryLine per line: a header, a row per row, then a summary (or an error)',
            contentMediaType: 'application/x-ndjson',
            contentSchema: { $ref: '#/components/schemas/QueryLine' },
            examples: [
              [
                { type: 'header', columns: ['name', 'born'] },
                { type: 'row', data: { name: 'Ada', born: 1815 } },
                { type: 'summary', metadata: QUERY_METADATA_EXAMPLE, rows: 1, truncated: false },
              ]
                .map((line) => `${JSON.stringify(line)}\n`)
                .join(''),
            ],
          }),
        },
      },
    },
  };

  routes.get(
    '/api/graph/:graph',
    {
      errorHandler: streamAwareErrors,
      // `params` was this parameter's name; a generated client's own local of that name shadowed it.
      preValidation: queryParameterAlias('params', 'parameters'),
      // The query's own required `timeout` bounds this handler (FalkorDB stops the query), so REQUEST_TIMEOUT_MS
      // must not cut a long query short.
      config: { requestDeadline: false, errorResponses: [404, 409, 429] },
      schema: {
        operationId: 'runQuery',
        tags: ['graphs'],
        summary: 'Run a Cypher query given in the URL (Read-Only tokens run GRAPH.RO_QUERY)',
        description: `${QUERY_ANSWERS} A long query or large \`params\` is better sent to \`POST /api/graph/{graph}/query\`, which takes them in a JSON body.`,
        params: GraphParamsSchema,
        querystring: queryStreamQuerySchema(csvUrlAllowlist),
        response: queryResponses,
      },
    },
    async (request, reply) => {
      const { query, parameters: params, timeout, maxRows, format } = request.query;
      return answer(request, reply, {
        graph: request.params.graph,
        query,
        params,
        timeoutMs: timeout,
        maxRows,
        typed: format === 'typed',
      });
    },
  );

  routes.post(
    '/api/graph/:graph/query',
    {
      errorHandler: streamAwareErrors,
      bodyLimit: QUERY_BODY_LIMIT_BYTES,
      // As the GET form: the query's `timeout` bounds it.
      config: { requestDeadline: false, errorResponses: [404, 409, 429] },
      schema: {
        operationId: 'runQueryFromBody',
        tags: ['graphs'],
        summary: 'Run a Cypher query given in a JSON body (Read-Only tokens run GRAPH.RO_QUERY)',
        description: `The GET form's query as a JSON body, bounded the same way (QUERY_TIMEOUT_MAX_MS, QUERY_ROWS_MAX, QUERY_RESULT_BYTES_MAX, the query slots of QUERIES_PER_TOKEN and QUERIES_PER_CLIENT) and listed in \`GET /api/queries\` while it runs. ${QUERY_ANSWERS}`,
        params: GraphParamsSchema,
        body: queryBodySchema(csvUrlAllowlist),
        response: queryResponses,
      },
    },
    async (request, reply) => {
      const { query, params, timeout, maxRows, format } = request.body;
      return answer(request, reply, {
        graph: request.params.graph,
        query,
        params,
        timeoutMs: timeout ?? BODY_QUERY_DEFAULT_TIMEOUT_MS,
        maxRows,
        typed: format === 'typed',
      });
    },
  );
}
