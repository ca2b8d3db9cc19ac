// GET /api/status: whether the token's database answers.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { NotFoundError } from '../../shared/http-errors.js';
import { BEARER_SCHEME } from '../../shared/openapi.js';
import { databaseFor, principalOf, type BrowserContext } from '../context.js';
import { DATABASE_UNAVAILABLE } from '../database/database-errors.js';

export function statusRoutes(app: FastifyInstance, context: BrowserContext): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/status',
    {
      config: { errorResponses: [404] },
      schema: {
        operationId: 'getStatus',
        tags: ['graphs'],
        summary: 'Database connection status (404 when the database is unreachable)',
        security: [{ [BEARER_SCHEME]: [] }],
        response: { 200: z.object({ status: z.literal('online') }) },
      },
    },
    async (request) => {
      try {
        await databaseFor(context, principalOf(request)).ping();
      } catch (error) {
        request.log.info({ err: { message: (error as Error).message } }, 'database unreachable');
        throw new NotFoundError(DATABASE_UNAVAILABLE);
      }
      return { status: 'online' as const };
    },
  );
}
