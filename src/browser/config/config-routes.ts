// /api/graph/config: FalkorDB's GRAPH.CONFIG values (Admin only).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { requireRole } from '../auth/roles.js';
import { principalOf } from '../context.js';
import { sendJsonText } from '../../http/prepared-json.js';
import { hoistBodyParameter } from '../body-parameters.js';
import type { ConfigService } from './config-service.js';
import {
  ConfigListSchema,
  ConfigParamsSchema,
  ConfigReadSchema,
  ConfigSetSchema,
  SetValueBodySchema,
  SetValueQuerySchema,
} from './schemas.js';

const tags = ['config'];

/** What the configuration routes call: the configuration service. */
export interface ConfigRouteDeps {
  config: ConfigService;
}

export function configRoutes(scope: FastifyInstance, { config }: ConfigRouteDeps): void {
  const routes = scope.withTypeProvider<ZodTypeProvider>();
  const admin = requireRole('Admin', 'database configuration');

  routes.get(
    '/api/graph/config',
    {
      preValidation: admin,
      schema: {
        operationId: 'listConfig',
        tags,
        summary: 'All configuration values',
        description:
          'Every `GRAPH.CONFIG` value of the token’s database: numbers as numbers, `CMD_INFO` as `yes`/`no`.',
        response: { 200: ConfigListSchema },
      },
    },
    // Serialized by the service: every value is a number or a string it made from the database's reply, so the
    // schema's encoding pass (a copy of some forty entries per request) would check nothing the types do not.
    async (request, reply) => sendJsonText(reply, await config.listJson(principalOf(request))),
  );

  routes.get(
    '/api/graph/config/:config',
    {
      preValidation: admin,
      schema: {
        operationId: 'getConfig',
        tags,
        summary: 'One configuration value',
        description: 'One `GRAPH.CONFIG` value by name.',
        params: ConfigParamsSchema,
        response: { 200: ConfigReadSchema },
      },
    },
    async (request) => ({ config: await config.read(principalOf(request), request.params.config) }),
  );

  routes.post(
    '/api/graph/config/:config',
    {
      preValidation: [admin, hoistBodyParameter('value')],
      schema: {
        operationId: 'setConfig',
        tags,
        summary: 'Set a configuration value',
        description:
          'Sets one `GRAPH.CONFIG` value. `value` is required, in the query string (the browser API specification) or a JSON body `{"value": …}` (the FalkorDB Browser); the query wins. Integers are parsed strictly; `CMD_INFO` takes `yes`/`no`.',

        params: ConfigParamsSchema,
        querystring: SetValueQuerySchema,
        body: SetValueBodySchema,
        response: { 200: ConfigSetSchema },
      },
    },
    async (request) => {
      await config.set(principalOf(request), request.params.config, request.query.value);
      return { config: 'OK' as const };
    },
  );
}
