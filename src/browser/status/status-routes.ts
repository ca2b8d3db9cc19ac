// GET /api/status: whether the token's database answers.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { databaseFor, principalOf, type BrowserContext } from '../context.js';
import { StatusSchema } from './schemas.js';
import type { StatusService } from './status-service.js';

export function statusRoutes(app: FastifyInstance, context: BrowserContext, status: StatusService): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/status',
    {
      config: { errorResponses: [404] },
      schema: {
        operationId: 'getStatus',
        tags: ['graphs'],
        summary: 'Database connection status (404 when the database is unreachable)',
        response: { 200: StatusSchema },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { sentinel, cluster } = principal.credentials;
      return {
        status: await status.status(databaseFor(context, principal), request.log),
        topology: sentinel ? ('sentinel' as const) : cluster ? ('cluster' as const) : ('single' as const),
        ...(sentinel ? { masterName: sentinel.masterName } : {}),
      };
    },
  );
}
