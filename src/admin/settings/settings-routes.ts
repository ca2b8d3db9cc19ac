// GET and PATCH /api/settings/: the settings document without its write-only values.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { COOKIE_SCHEME } from '../../shared/openapi.js';
import type { AdminContext } from '../context.js';
import { requirePermission } from '../permissions/permissions.js';
import { SettingsPatchSchema, SettingsSchema, type Settings } from './settings-schema.js';

const tags = ['settings'];
const security = [{ [COOKIE_SCHEME]: [] }];

/**
 * The settings change rarely and are read on every console page: each version is encoded through the response
 * schema (so write-only values still cannot appear) and turned into JSON once, not once per request.
 */
const encoded = new WeakMap<Settings, string>();
function settingsJson(settings: Settings): string {
  let json = encoded.get(settings);
  if (json === undefined) {
    json = JSON.stringify(SettingsSchema.encode(settings));
    encoded.set(settings, json);
  }
  return json;
}

export function settingsRoutes(app: FastifyInstance, context: AdminContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const inServerNamespace = () => context.namespace;

  routes.get(
    '/api/settings/',
    {
      preHandler: requirePermission('settings', 'read', inServerNamespace),
      // The response schema has no write-only fields, so none can be serialized even by mistake.
      schema: { operationId: 'getSettings', tags, summary: 'The settings document (write-only values omitted)', security, response: { 200: SettingsSchema } },
    },
    async (_request, reply) => {
      const plain: FastifyReply = reply.type('application/json; charset=utf-8');
      return plain.send(settingsJson(await context.settings.current()));
    },
  );

  routes.patch(
    '/api/settings/',
    {
      preHandler: requirePermission('settings', 'update', inServerNamespace),
      config: { errorResponses: [409, 422] },
      schema: {
        operationId: 'patchSettings',
        tags,
        summary: 'Change some settings; write-only values go to the Secrets the settings name',
        security,
        body: SettingsPatchSchema,
        response: { 200: SettingsSchema },
      },
    },
    (request) => context.settings.patch(request.body),
  );
}
