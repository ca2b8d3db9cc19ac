// /api/DBVersion, /api/info, /api/monitor, /api/connection-info and /api/graph/{graph}/memory|count/nodes|count/edges:
// the FalkorDB Browser's server-facts routes, at its paths and in its shapes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { principalOf } from '../context.js';
import { openEventStream, wantsEventStream } from '../../http/sse.js';
import {
  ConnectionInfoSchema,
  CountParamsSchema,
  countEventStreamSchema,
  DbVersionSchema,
  EdgeCountSchema,
  GraphMemorySchema,
  InfoQuerySchema,
  InfoSchema,
  MonitorSchema,
  NodeCountSchema,
} from './schemas.js';
import type { ServerService } from './server-service.js';

const tags = ['server'];

/** What the server-facts routes call: the server service. */
export interface ServerRouteDeps {
  server: ServerService;
}

export function serverRoutes(scope: FastifyInstance, { server }: ServerRouteDeps): void {
  const routes = scope.withTypeProvider<ZodTypeProvider>();

  routes.get(
    '/api/DBVersion',
    {
      config: { errorResponses: [503] },
      schema: {
        operationId: 'getDatabaseVersion',
        tags,
        summary: 'The graph module and its version',
        description:
          '`MODULE LIST` of the token’s database: `{result: ["graph", 41603]}` for FalkorDB 4.16.3. 503 `Graph module not found` when the server has no graph module.',
        response: { 200: DbVersionSchema },
      },
    },
    async (request) => ({ result: await server.moduleVersion(principalOf(request)) }),
  );

  routes.get(
    '/api/info',
    {
      schema: {
        operationId: 'getServerInfo',
        tags,
        summary: 'INFO sections of the database server',
        description: `The text of \`INFO <section>\` for one allow-listed section (all of them without \`section\`). The host's file paths (\`executable\`, \`config_file\`) are left out.`,
        querystring: InfoQuerySchema,
        response: { 200: InfoSchema },
      },
    },
    async (request) => ({ result: await server.info(principalOf(request), request.query.section) }),
  );

  routes.get(
    '/api/monitor',
    {
      schema: {
        operationId: 'getMonitor',
        tags,
        summary: 'Memory and the running and waiting queries',
        description:
          'Memory figures from `INFO memory` and the queries `GRAPH.INFO` reports running or waiting, as `{name, series}` points for charts plus one entry per query. Only an Admin token sees the text of the queries.',
        response: { 200: MonitorSchema },
      },
    },
    async (request) => server.monitor(principalOf(request)),
  );

  routes.get(
    '/api/connection-info',
    {
      schema: {
        operationId: 'getConnectionInfo',
        tags,
        summary: 'Role, replication and cluster mode of the database server',
        description:
          'From `INFO replication` and `INFO cluster`: the server’s role, its replicas (address, port, state) or its primary, and whether cluster mode is on. Never a password.',
        response: { 200: ConnectionInfoSchema },
      },
    },
    async (request) => ({ result: await server.connectionInfo(principalOf(request)) }),
  );

  routes.get(
    '/api/graph/:graph/memory',
    {
      config: { errorResponses: [404] },
      schema: {
        operationId: 'getGraphMemory',
        tags,
        summary: 'Memory used by one graph',
        description:
          '`GRAPH.MEMORY USAGE` of the graph, as FalkorDB answers it (`result`) and as an object (`usage`, in MB). 404 when the graph does not exist.',
        params: CountParamsSchema,
        response: { 200: GraphMemorySchema },
      },
    },
    async (request) => server.graphMemory(principalOf(request), request.params.graph),
  );

  // Registered without the type provider: the two routes differ only in the key of their one number.
  for (const what of ['nodes', 'edges'] as const) {
    scope.get(
      `/api/graph/:graph/count/${what}`,
      {
        config: { errorResponses: [404] },
        schema: {
          operationId: what === 'nodes' ? 'countNodes' : 'countEdges',
          tags,
          summary: `Number of ${what === 'nodes' ? 'nodes' : 'relationships'} in a graph`,
          description: `\`{result: {${what}: N}}\`, or with \`Accept: text/event-stream\` one \`result\` event carrying \`{${what}: N}\` (the FalkorDB Browser's form). 404 when the graph does not exist.`,
          params: CountParamsSchema,
          response: {
            200: {
              description: 'The count',
              content: {
                'application/json': { schema: what === 'nodes' ? NodeCountSchema : EdgeCountSchema },
                'text/event-stream': { schema: countEventStreamSchema(what) },
              },
            },
          },
        },
      },
      async (request: FastifyRequest<{ Params: { graph: string } }>, reply: FastifyReply) => {
        const count = await server.count(principalOf(request), request.params.graph, what);
        const result = what === 'nodes' ? { nodes: count } : { edges: count };
        if (!wantsEventStream(request)) return { result };
        const stream = openEventStream(request, reply);
        stream.send('result', result);
        stream.end();
        return reply;
      },
    );
  }
}
