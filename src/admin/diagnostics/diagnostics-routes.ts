// /api/admin/diagnostics/*: every route needs admin:read (as the FalkorDB Enterprise admin API documents), the support package included.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requirePermission } from '../permissions/permissions.js';
import type { DiagnosticsService } from './diagnostics-service.js';
import { DiagnosticsExportSchema, DiagnosticsSchema, HealthStatusSchema, SupportPackageBodySchema } from './schemas.js';
import type { SupportPackages } from './support-package.js';

const tags = ['diagnostics'];
const fileTimestamp = (at: Date) => at.toISOString().replace(/[:.]/g, '-');

/**
 * What the diagnostics routes call; `namespace` is the server's, where `admin` is permission-checked, and `now`
 * stamps the export's file name.
 */
export interface DiagnosticsRouteDeps {
  diagnostics: DiagnosticsService;
  supportPackages: SupportPackages;
  namespace: string;
  now: () => number;
}

export function diagnosticsRoutes(
  scope: FastifyInstance,
  { diagnostics, supportPackages, namespace, now }: DiagnosticsRouteDeps,
): void {
  const routes = scope.withTypeProvider<ZodTypeProvider>();
  const adminRead = requirePermission('admin', 'read', () => namespace);

  routes.get(
    '/api/admin/diagnostics/',
    {
      preValidation: adminRead,
      schema: {
        operationId: 'getDiagnostics',
        tags,
        summary: "This server's versions, host, health and recent errors",
        description:
          "Health checks the Kubernetes API, KubeBlocks (listing the cluster namespace) and the token store; in embedded mode the first two do not apply (`notApplicable`). `recentErrors` are the latest error lines of this replica's log.",
        response: { 200: DiagnosticsSchema },
      },
    },
    (request) => diagnostics.diagnostics(request.sessionUser!.role),
  );

  routes.get(
    '/api/admin/diagnostics/export',
    {
      preValidation: adminRead,
      config: {
        responseHeaders: { 200: { 'content-disposition': 'attachment; filename="diagnostics-<timestamp>.json"' } },
      },
      schema: {
        operationId: 'exportDiagnostics',
        tags,
        summary: 'The diagnostics as a JSON download',
        description: 'The same document as GET /api/admin/diagnostics/ with its `timestamp`, as an attachment.',
        response: { 200: DiagnosticsExportSchema },
      },
    },
    async (request, reply) => {
      const at = new Date(now());
      const document = await diagnostics.diagnostics(request.sessionUser!.role);
      void reply.header('content-disposition', `attachment; filename="diagnostics-${fileTimestamp(at)}.json"`);
      return { ...document, timestamp: at.toISOString() };
    },
  );

  routes.get(
    '/api/admin/diagnostics/health',
    {
      preValidation: adminRead,
      config: { errorResponses: [503] },
      schema: {
        operationId: 'getDiagnosticsHealth',
        tags,
        summary: 'Health of what the server depends on',
        description:
          '`unhealthy` (503) when the token store does not answer; `degraded` (200) when only Kubernetes or KubeBlocks do not.',
        response: { 200: HealthStatusSchema, 503: HealthStatusSchema },
      },
    },
    async (_request, reply) => {
      const status = await diagnostics.health();
      return reply.code(status.status === 'unhealthy' ? 503 : 200).send(status);
    },
  );

  routes.post(
    '/api/admin/diagnostics/support-package',
    {
      preValidation: adminRead,
      config: {
        responseHeaders: { 200: { 'content-disposition': 'attachment; filename="graphdb-support-<timestamp>.zip"' } },
      },
      schema: {
        operationId: 'createSupportPackage',
        tags,
        summary: 'A zip for support: diagnostics, settings, deployments, logs, metrics; nothing secret',
        description:
          "Settings without write-only values, deployment summaries (all when `clusters` is absent or empty), the last `logTailLines` (default 500) lines of this replica's log, Prometheus metrics; every file is scanned for the secrets the server knows. At most 16 MiB uncompressed.",
        body: SupportPackageBodySchema,
        response: {
          200: {
            description: 'The zip archive',
            content: {
              'application/zip': {
                schema: z.string().meta({
                  format: 'binary',
                  description: 'A zip archive of JSON and text files',
                  examples: ['<binary zip archive>'],
                }),
              },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const { filename, zip } = await supportPackages.build(request.sessionUser!.role, request.body);
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .send(zip as unknown as string); // a Buffer: Fastify sends it as is, no serializer
    },
  );
}
