// /api/graph: list, create, delete, rename, duplicate, explain, profile, info, count and export.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { BEARER_SCHEME } from '../../shared/openapi.js';
import { verbatim } from '../../shared/verbatim-messages.js';
import { requireRole } from '../auth/roles.js';
import { databaseFor, principalOf, type BrowserContext } from '../context.js';
import {
  attachmentDisposition,
  countGraph,
  createGraph,
  deleteGraph,
  duplicateGraph,
  explainQuery,
  exportGraph,
  graphInfo,
  INFO_TYPES,
  renameGraph,
  requireGraph,
} from './graph-service.js';
import { hoistBodyParameter } from '../query-parameters.js';
import { cypherQuerySchema, GraphNameSchema, GraphParamsSchema, MessageSchema, requiredString } from './schemas.js';
import { openEventStream, wantsEventStream } from './sse.js';

const security = [{ [BEARER_SCHEME]: [] }];
const tags = ['graphs'];

/**
 * `sourceName` is a required query parameter (the seed); the public browser's JSON body copy is moved into the query
 * before validation (hoistBodyParameter), and the query wins when both are sent.
 */
const SourceNameQuerySchema = z.object({ sourceName: requiredString('sourceName').pipe(GraphNameSchema) });
const SourceNameBodySchema = z.object({ sourceName: GraphNameSchema.optional() }).nullish();

const InfoQuerySchema = z.object({
  type: z.enum(INFO_TYPES, {
    error: (issue) =>
      issue.input === undefined
        ? verbatim('Missing parameter type')
        : verbatim(`Invalid parameter type: must be one of ${INFO_TYPES.join(', ')}`),
  }),
});
const CountSchema = z.object({ nodes: z.number().int(), edges: z.number().int() });

export function graphRoutes(app: FastifyInstance, context: BrowserContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const ExplainQuerySchema = z.object({
    query: requiredString('query').pipe(cypherQuerySchema(context.limits.csvUrlAllowlist)),
  });
  const db = (request: Parameters<typeof principalOf>[0]) => databaseFor(context, principalOf(request));

  routes.get(
    '/api/graph',
    {
      schema: {
        operationId: 'listGraphs',
        tags,
        summary: 'List graph names',
        security,
        response: { 200: z.object({ opts: z.array(z.string()) }) },
      },
    },
    async (request) => ({ opts: await db(request).listGraphs() }),
  );

  routes.post(
    '/api/graph/:graph',
    {
      preValidation: requireRole('Read-Write', 'creating a graph'),
      schema: {
        operationId: 'createGraph',
        tags,
        summary: 'Create a graph, or verify that it exists',
        security,
        params: GraphParamsSchema,
        response: { 200: MessageSchema },
      },
    },
    async (request) => ({ message: await createGraph(db(request), request.params.graph) }),
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
        security,
        params: GraphParamsSchema,
        response: { 200: MessageSchema },
      },
    },
    async (request) => ({ message: await deleteGraph(db(request), request.params.graph) }),
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
        security,
        params: GraphParamsSchema,
        querystring: SourceNameQuerySchema,
        body: SourceNameBodySchema,
        response: { 200: z.object({ data: z.object({ result: z.literal('OK') }) }) },
      },
    },
    async (request) => {
      const source = request.query.sourceName;
      await renameGraph(db(request), source, request.params.graph);
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
        security,
        params: GraphParamsSchema,
        querystring: SourceNameQuerySchema,
        body: SourceNameBodySchema,
        response: { 200: z.object({ result: z.object({ status: z.literal('OK') }) }) },
      },
    },
    async (request) => {
      const source = request.query.sourceName;
      await duplicateGraph(db(request), source, request.params.graph);
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
        security,
        params: GraphParamsSchema,
        querystring: ExplainQuerySchema,
        response: { 200: z.object({ result: z.array(z.string()) }) },
      },
    },
    async (request) => ({ result: await explainQuery(db(request), request.params.graph, request.query.query) }),
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
        security,
        params: GraphParamsSchema,
        querystring: ExplainQuerySchema,
        response: { 200: z.object({ result: z.array(z.string()) }) },
      },
    },
    async (request) => {
      const database = db(request);
      await requireGraph(database, request.params.graph);
      return { result: await database.profile(request.params.graph, request.query.query) };
    },
  );

  routes.get(
    '/api/graph/:graph/info',
    {
      config: { errorResponses: [404] },
      schema: {
        operationId: 'graphInfo',
        tags,
        summary: 'Functions, property keys, labels or relationship types of a graph',
        security,
        params: GraphParamsSchema,
        querystring: InfoQuerySchema,
        response: { 200: z.object({ result: z.object({ data: z.array(z.record(z.string(), z.string())) }) }) },
      },
    },
    async (request) => ({ result: { data: await graphInfo(db(request), request.params.graph, request.query.type) } }),
  );

  routes.get(
    '/api/graph/:graph/count',
    {
      config: { errorResponses: [404] },
      schema: {
        operationId: 'countGraph',
        tags,
        summary: 'Numbers of nodes and relationships (one `result` event with Accept: text/event-stream)',
        security,
        params: GraphParamsSchema,
        response: {
          200: {
            description: 'Counts',
            content: {
              'application/json': { schema: z.object({ result: CountSchema }) },
              'text/event-stream': { schema: z.string() },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const counts = await countGraph(db(request), request.params.graph);
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
        security,
        params: GraphParamsSchema,
        response: {
          200: {
            description: 'DUMP bytes',
            content: { 'application/octet-stream': { schema: z.string().meta({ format: 'binary' }) } },
          },
        },
      },
    },
    async (request, reply) => {
      const dump = await exportGraph(db(request), request.params.graph);
      return reply
        .type('application/octet-stream')
        .header('content-disposition', attachmentDisposition(`${request.params.graph}.dump`))
        .send(dump as unknown as string); // a Buffer: Fastify sends it as is, no serializer
    },
  );
}
