// /api/graph/config: FalkorDB's GRAPH.CONFIG values (Admin only).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { integerValue } from '../../platform/falkordb/compact-reply.js';
import { BadRequestError } from '../../shared/http-errors.js';
import { BEARER_SCHEME } from '../../shared/openapi.js';
import { requireRole } from '../auth/roles.js';
import { databaseFor, principalOf, type BrowserContext } from '../context.js';
import { translated } from '../database/database-errors.js';

const security = [{ [BEARER_SCHEME]: [] }];
const tags = ['config'];
const STRING_VALUED = 'CMD_INFO';

const ConfigNameSchema = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'must be a configuration parameter name such as TIMEOUT');
const ConfigParamsSchema = z.object({ config: ConfigNameSchema });
const ConfigValueSchema = z.union([z.number(), z.string()]);
const SetValueQuerySchema = z.object({ value: z.string().max(1024).optional() });
const SetValueBodySchema = z.object({ value: z.union([z.string().max(1024), z.number()]).optional() }).nullish();

/** `CMD_INFO` is reported as the `yes`/`no` it is set with; other numbers stay numbers, text stays text. */
export function presentConfigValue(name: string, raw: unknown): number | string {
  if (name.toUpperCase() === STRING_VALUED) {
    if (raw === 1 || raw === '1') return 'yes';
    if (raw === 0 || raw === '0') return 'no';
    return String(raw);
  }
  return typeof raw === 'number' ? raw : /^-?\d+$/.test(String(raw)) ? integerValue(raw) : String(raw);
}

/** The seed's rule: integers, parsed strictly (`12abc` is refused), except for `CMD_INFO`. */
export function parseConfigValue(name: string, value: string | number | undefined): string {
  if (value === undefined || value === '') throw new BadRequestError('Missing parameter value');
  const text = String(value).trim();
  if (name.toUpperCase() === STRING_VALUED) return text;
  if (!/^-?\d{1,19}$/.test(text)) throw new BadRequestError(`Invalid value for ${name}: must be an integer`);
  return text;
}

export function configRoutes(app: FastifyInstance, context: BrowserContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const admin = requireRole('Admin', 'database configuration');
  const db = (request: Parameters<typeof principalOf>[0]) => databaseFor(context, principalOf(request));

  routes.get(
    '/api/graph/config',
    { preHandler: admin, schema: { operationId: 'listConfig', tags, summary: 'All configuration values', security, response: { 200: z.object({ configs: z.record(z.string(), ConfigValueSchema) }) } } },
    async (request) => {
      const pairs = (await translated(() => db(request).configGet('*'))) as [string, unknown][];
      return { configs: Object.fromEntries(pairs.map(([name, value]) => [name, presentConfigValue(name, value)])) };
    },
  );

  routes.get(
    '/api/graph/config/:config',
    { preHandler: admin, schema: { operationId: 'getConfig', tags, summary: 'One configuration value', security, params: ConfigParamsSchema, response: { 200: z.object({ config: ConfigValueSchema }) } } },
    async (request) => {
      const pair = await translated(() => db(request).configGet(request.params.config));
      return { config: presentConfigValue(request.params.config, pair[1]) };
    },
  );

  routes.post(
    '/api/graph/config/:config',
    {
      preHandler: admin,
      schema: {
        operationId: 'setConfig',
        tags,
        summary: 'Set a configuration value (`value` in the query string or the JSON body)',
        security,
        params: ConfigParamsSchema,
        querystring: SetValueQuerySchema,
        body: SetValueBodySchema,
        response: { 200: z.object({ config: z.literal('OK') }) },
      },
    },
    async (request) => {
      const value = parseConfigValue(request.params.config, request.query.value ?? request.body?.value);
      await translated(() => db(request).configSet(request.params.config, value));
      return { config: 'OK' as const };
    },
  );
}
