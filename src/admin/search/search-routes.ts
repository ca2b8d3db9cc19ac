// GET /api/search/: any signed-in user; each kind of result is filtered by the caller's own permissions.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { SearchQuerySchema, SearchResultSchema } from './schemas.js';
import type { SearchService } from './search-service.js';

/** What the search route calls. */
export interface SearchRouteDeps {
  search: SearchService;
}

export function searchRoutes(scope: FastifyInstance, { search }: SearchRouteDeps): void {
  scope.withTypeProvider<ZodTypeProvider>().get(
    '/api/search/',
    {
      schema: {
        operationId: 'search',
        tags: ['search'],
        summary: 'Search deployments, users and roles',
        description:
          'Case-insensitive substring match on name, id and description over what the caller may list (clusters:list per namespace, users:list, rbac:list); `total` counts every match, `items` holds at most `limit` (1–200, default 50). Backups are searched in at most 50 deployments the caller may list backups of (`clusters.backups:list`); backup repositories need `clusters.backups:list` in the cluster namespace (and multi-cluster mode on Kubernetes).',
        querystring: SearchQuerySchema,
        response: { 200: SearchResultSchema },
      },
    },
    (request) => search.search(request.sessionUser!.role, request.query),
  );
}
