// /api/graph: list, create, delete, rename, duplicate, explain, profile, info, count and export.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireRole } from '../auth/roles.js';
import { principalOf } from '../context.js';
import { attachmentDisposition, type GraphService } from './graph-service.js';
import { hoistBodyParameter } from '../body-parameters.js';
import {
  CountResultSchema,
  CreateGraphBodySchema,
  explainQuerySchema,
  GraphChangedSchema,
  GraphCreatedSchema,
  GraphInfoSchema,
  GraphListSchema,
  type GraphList,
  GraphParamsSchema,
  InfoQuerySchema,
  PlanSchema,
  ProfileSchema,
  CountEventStreamSchema,
  messageSaying,
  SourceNameBodySchema,
  SourceNameQuerySchema,
} from './schemas.js';
import { openEventStream, wantsEventStream } from '../../http/sse.js';
import { sendJsonText } from '../../http/prepared-json.js';

const tags = ['graphs'];

/** What the graph routes call: the graph service, and the URLs LOAD CSV may read in an explained query. */
export interface GraphRouteDeps {
  graphs: GraphService;
  csvUrlAllowlist: readonly string[];
}

export function graphRoutes(scope: FastifyInstance, { graphs, csvUrlAllowlist }: GraphRouteDeps): void {
  const routes = scope.withTypeProvider<ZodTypeProvider>();
  const ExplainQuerySchema = explainQuerySchema(csvUrlAllowlist);

  routes.get(
    '/api/graph',
    {
      schema: {
        operationId: 'listGraphs',
        tags,
        summary: 'List graph names',
        description: "The names of the graphs of the token's database the caller may see, in the database's order.",
        response: { 200: GraphListSchema },
      },
    },
    // Serialized here: an array of names from the database, which the schema's encoding pass would only copy.
    async (request, reply) =>
      sendJsonText(reply, JSON.stringify({ opts: await graphs.list(principalOf(request)) } satisfies GraphList)),
  );

  routes.post(
    '/api/graph/:graph',
    {
      preValidation: requireRole('Read-Write', 'creating a graph'),
      schema: {
        operationId: 'createGraph',
        tags,
        summary: 'Create a graph, or verify that it exists',
        description:
          'Creates an empty graph (a write, kept across restarts), or answers that it exists. Takes no body: a body with fields is refused (400), so a query sent here by mistake is never dropped silently; queries go to `POST /api/graph/{graph}/query`.',
        params: GraphParamsSchema,
        body: CreateGraphBodySchema,
        response: { 200: messageSaying('Graph social created', 'Graph social already exists') },
      },
    },
    async (request) => ({ message: await graphs.create(principalOf(request), request.params.graph) }),
  );

  routes.delete(
    '/api/graph/:graph',
    {
      preValidation: requireRole('Read-Write', 'deleting a graph'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'deleteGraph',
        tags,
        summary: 'Delete a graph',
        description:
          'Deletes a graph and everything in it (GRAPH.DELETE). Needs the Read-Write or Admin role. 404 when the graph does not exist.',
        params: GraphParamsSchema,
        response: { 200: messageSaying('Graph social deleted') },
      },
    },
    async (request) => ({ message: await graphs.remove(principalOf(request), request.params.graph) }),
  );

  routes.patch(
    '/api/graph/:graph',
    {
      preValidation: [requireRole('Read-Write', 'renaming a graph'), hoistBodyParameter('sourceName')],
      config: { errorResponses: [404] },
      schema: {
        operationId: 'renameGraph',
        tags,
        summary: 'Rename graph `sourceName` to `graph`',
        description:
          'Renames the graph named by `sourceName` (in the query string, or in the JSON body) to `graph`. Needs the Read-Write or Admin role. 404 when the source does not exist; 409 when `graph` exists already.',
        params: GraphParamsSchema,
        querystring: SourceNameQuerySchema,
        body: SourceNameBodySchema,
        response: { 200: GraphCreatedSchema },
      },
    },
    async (request) => {
      const source = request.query.sourceName;
      await graphs.rename(principalOf(request), source, request.params.graph);
      return { data: { result: 'OK' as const } };
    },
  );

  routes.patch(
    '/api/graph/:graph/duplicate',
    {
      preValidation: [requireRole('Read-Write', 'duplicating a graph'), hoistBodyParameter('sourceName')],
      config: { errorResponses: [404] },
      schema: {
        operationId: 'duplicateGraph',
        tags,
        summary: 'Copy graph `sourceName` to a new graph `graph` (GRAPH.COPY)',
        description:
          'Copies the graph named by `sourceName` (in the query string, or in the JSON body) to a new graph `graph` with GRAPH.COPY; the source is left unchanged. Needs the Read-Write or Admin role. 404 when the source does not exist; 409 when `graph` exists already.',
        params: GraphParamsSchema,
        querystring: SourceNameQuerySchema,
        body: SourceNameBodySchema,
        response: { 200: GraphChangedSchema },
      },
    },
    async (request) => {
      const source = request.query.sourceName;
      await graphs.duplicate(principalOf(request), source, request.params.graph);
      return { result: { status: 'OK' as const } };
    },
  );

  routes.get(
    '/api/graph/:graph/explain',
    {
      config: { errorResponses: [404] },
      schema: {
        operationId: 'explainQuery',
        tags,
        summary: 'Execution plan of a query, without running it',
        description:
          "The execution plan FalkorDB would use for `query` (GRAPH.EXPLAIN), one line per operation; the query is not run and nothing is written. 404 when the graph does not exist; 400 with the database's text when the query does not parse.",
        params: GraphParamsSchema,
        querystring: ExplainQuerySchema,
        response: { 200: PlanSchema },
      },
    },
    async (request) => ({
      result: await graphs.explain(principalOf(request), request.params.graph, request.query.query),
    }),
  );

  routes.get(
    '/api/graph/:graph/profile',
    {
      preValidation: requireRole('Read-Write', 'profiling (it executes the query)'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'profileQuery',
        tags,
        summary: 'Run a query and return its profile',
        description:
          'Runs `query` and answers its plan with the records and time of each operation (GRAPH.PROFILE). The query is executed, writes included, so it needs the Read-Write or Admin role. 404 when the graph does not exist.',
        params: GraphParamsSchema,
        querystring: ExplainQuerySchema,
        response: { 200: ProfileSchema },
      },
    },
    async (request) => ({
      result: await graphs.profile(principalOf(request), request.params.graph, request.query.query),
    }),
  );

  routes.get(
    '/api/graph/:graph/info',
    {
      config: { errorResponses: [404] },
      schema: {
        operationId: 'graphInfo',
        tags,
        summary: 'Functions, property keys, labels or relationship types of a graph',
        description:
          'One list about a graph, chosen by `type`: its functions, property keys, labels or relationship types. 404 when the graph does not exist.',
        params: GraphParamsSchema,
        querystring: InfoQuerySchema,
        response: { 200: GraphInfoSchema },
      },
    },
    async (request) => ({
      result: { data: await graphs.info(principalOf(request), request.params.graph, request.query.type) },
    }),
  );

  routes.get(
    '/api/graph/:graph/count',
    {
      config: { errorResponses: [404] },
      schema: {
        operationId: 'countGraph',
        tags,
        summary: 'Numbers of nodes and relationships (one `result` event with Accept: text/event-stream)',
        description:
          'The numbers of nodes and relationships of a graph. Answers JSON, or one `result` event on a `text/event-stream` when the request accepts it. 404 when the graph does not exist.',
        params: GraphParamsSchema,
        response: {
          200: {
            description: 'Counts',
            content: {
              'application/json': { schema: CountResultSchema },
              'text/event-stream': { schema: CountEventStreamSchema },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const counts = await graphs.count(principalOf(request), request.params.graph);
      if (!wantsEventStream(request)) return { result: counts };
      const stream = openEventStream(request, reply);
      stream.send('result', counts);
      stream.end();
      return reply;
    },
  );

  routes.get(
    '/api/graph/:graph/export',
    {
      config: { errorResponses: [404] },
      schema: {
        operationId: 'exportGraph',
        tags,
        summary: 'The graph serialized by DUMP (load it back with RESTORE)',
        description:
          "The graph serialized by the database's DUMP command, as bytes to store and load back with RESTORE (`POST /api/graph/{graph}/import`). 404 when the graph does not exist.",
        params: GraphParamsSchema,
        response: {
          200: {
            description: 'DUMP bytes',
            content: {
              'application/octet-stream': {
                schema: z.string().meta({
                  format: 'binary',
                  description: "The DUMP payload: the database's binary serialization of the graph",
                  examples: ['<binary DUMP payload>'],
                }),
              },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const dump = await graphs.export(principalOf(request), request.params.graph);
      return reply
        .type('application/octet-stream')
        .header('content-disposition', attachmentDisposition(`${request.params.graph}.dump`))
        .send(dump as unknown as string); // a Buffer: Fastify sends it as is, no serializer
    },
  );
}
