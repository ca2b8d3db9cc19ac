// /api/admin/licensing/*: the status (admin:read) and activation (admin:update, always 422: nothing to activate).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { requirePermission } from '../permissions/permissions.js';
import type { LicensingService } from './licensing-service.js';
import { ActivateBodySchema, LicenseStatusSchema } from './schemas.js';

const tags = ['licensing'];

/** What the licensing routes call; `namespace` is the server's, where `admin` is permission-checked. */
export interface LicensingRouteDeps {
  licensing: LicensingService;
  namespace: string;
}

export function licensingRoutes(scope: FastifyInstance, { licensing, namespace }: LicensingRouteDeps): void {
  const routes = scope.withTypeProvider<ZodTypeProvider>();
  const inServerNamespace = () => namespace;

  routes.get(
    '/api/admin/licensing/status',
    {
      preValidation: requirePermission('admin', 'read', inServerNamespace),
      schema: {
        operationId: 'getLicenseStatus',
        tags,
        summary: 'Licence status: none is needed',
        description:
          '`state: disabled` (no enforcement, writes allowed), every limit `unlimited`, current usage (deployments in view, users, requested CPU cores and memory in GB), no violations.',
        response: { 200: LicenseStatusSchema },
      },
    },
    (request) => licensing.status(request.sessionUser!.role),
  );

  routes.post(
    '/api/admin/licensing/activate',
    {
      preValidation: requirePermission('admin', 'update', inServerNamespace),
      config: { errorResponses: [422] },
      schema: {
        operationId: 'activateLicense',
        tags,
        summary: 'Refused: this server needs no licence',
        description: 'Always 422 for a well-formed body (a malformed one is 400): there is no licence to activate.',
        body: ActivateBodySchema,
        response: { 200: LicenseStatusSchema },
      },
    },
    () => licensing.activate(),
  );
}
