// GET /api/search/: the query and the FalkorDB Enterprise admin API's result shape.
import { z } from 'zod';
import { NamespaceNameSchema } from '../parameters.js';

export const SEARCH_TYPES = ['cluster', 'backup', 'user', 'role', 'backup-repository'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export const SearchQuerySchema = z.object({
  q: z.string().max(256).optional(),
  namespace: NamespaceNameSchema.optional(),
  /** Comma-separated, e.g. `cluster,user`; all when absent. */
  types: z
    .string()
    .max(200)
    .optional()
    .transform((text, context) => {
      if (text === undefined || text.trim() === '') return undefined;
      const types = text.split(',').map((type) => type.trim());
      const unknown = types.filter((type) => !(SEARCH_TYPES as readonly string[]).includes(type));
      if (unknown.length > 0) {
        context.addIssue({
          code: 'custom',
          message: `unknown type ${unknown.join(', ')}; types are ${SEARCH_TYPES.join(', ')}`,
        });
        return z.NEVER;
      }
      return new Set(types as SearchType[]);
    }),
  /** 1–200, default 50; a query string's digits, as the other numeric query parameters. */
  limit: z
    .string()
    .regex(/^\d{1,3}$/, 'limit must be an integer from 1 to 200')
    .transform(Number)
    .pipe(z.int().min(1, 'limit must be an integer from 1 to 200').max(200, 'limit must be an integer from 1 to 200'))
    .optional()
    .transform((limit) => limit ?? 50),
});

const MetaValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const SearchItemSchema = z.object({
  type: z.enum(SEARCH_TYPES),
  name: z.string(),
  namespace: z.string().optional(),
  id: z.string(),
  description: z.string(),
  meta: z.record(z.string(), MetaValue),
});
export type SearchItem = z.infer<typeof SearchItemSchema>;

export const SearchResultSchema = z.object({
  query: z.string(),
  total: z.int().min(0),
  items: z.array(SearchItemSchema),
});
