// GET and PATCH /api/settings/: the settings document without its write-only values.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { jsonOncePerObject, sendJsonOf } from '../../http/prepared-json.js';
import { serverNamespaceChecks } from '../permissions/server-namespace.js';
import { SettingsPatchSchema, settingsView, SettingsViewSchema, type Settings } from './schemas.js';
import type { SettingsService } from './settings-service.js';

const tags = ['Settings'];

/**
 * The settings change rarely and are read on every console page: each version becomes JSON once. (Exported for the
 * bench's permission-check pair, which serves this same read.)
 */
export const settingsJson = jsonOncePerObject((settings: Settings) =>
  SettingsViewSchema.encode(settingsView(settings)),
);

/** What the settings routes call: the settings, and the server's namespace, where the permission is checked. */
export interface SettingsRouteDeps {
  settings: Pick<SettingsService, 'inForce' | 'patch'>;
  namespace: string;
}

export function settingsRoutes(scope: FastifyInstance, { settings, namespace }: SettingsRouteDeps): void {
  const routes = scope.withTypeProvider<ZodTypeProvider>();
  const { allowed } = serverNamespaceChecks('settings', namespace);

  routes.get(
    '/api/settings/',
    {
      preValidation: allowed('read'),
      // The response schema has no write-only fields, so none can be serialized even by mistake.
      schema: {
        operationId: 'getSettings',
        tags,
        summary: 'Get all admin settings',
        description: 'The settings document: write-only values and unset e-mail fields are left out.',
        response: { 200: SettingsViewSchema },
      },
    },
    (_request, reply) => sendJsonOf(reply, settings.inForce(), settingsJson),
  );

  routes.patch(
    '/api/settings/',
    {
      preValidation: allowed('update'),
      config: { errorResponses: [409, 422] },
      schema: {
        operationId: 'patchSettings',
        tags,
        summary: 'Update admin settings',
        description:
          'Changes the objects and fields given; write-only values go to the Secrets the settings name. 400 when the result would leave nobody a way to sign in (local sign-in off and no OAuth provider configured and enabled); nothing is stored then.',
        body: SettingsPatchSchema,
        response: { 200: SettingsViewSchema },
      },
    },
    async (request) => settingsView(await settings.patch(request.body)),
  );
}
