// GET /api/search/: the query and the FalkorDB Enterprise admin API's result shape.
import { z } from 'zod';
import { queryInteger, wholeNumber } from '../../lib/wire-values.js';
import { NamespaceNameSchema } from '../parameters.js';

export const SEARCH_TYPES = ['cluster', 'backup', 'user', 'role', 'backup-repository'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export const SearchQuerySchema = z.object({
  q: z
    .string()
    .max(256)
    .optional()
    .meta({ description: 'Text to look for in names and descriptions; everything when absent' }),
  namespace: NamespaceNameSchema.optional().meta({ description: 'Only this namespace' }),
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
    })
    .meta({ description: `Comma-separated kinds to search (${SEARCH_TYPES.join(', ')}); all when absent` }),
  /** 1–200, default 50; a query string's digits, as the other numeric query parameters. */
  limit: queryInteger(wholeNumber(1, 200, 'limit must be an integer from 1 to 200').default(50)).meta({
    description: 'At most this many items, 1 to 200 (default 50)',
  }),
});

const MetaValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);

const SEARCH_EXAMPLE = {
  query: 'orders',
  total: 1,
  items: [
    {
      type: 'cluster' as const,
      name: 'orders',
      namespace: 'graphdb',
      id: 'graphdb/orders',
      description: 'replication deployment, Running',
      meta: { phase: 'Running', topology: 'replication', version: '4.12.5' },
    },
  ],
};

export const SearchItemSchema = z.object({
  type: z.enum(SEARCH_TYPES).meta({ description: 'What kind of thing it is' }),
  name: z.string().meta({ description: 'Its name' }),
  namespace: z.string().optional().meta({ description: 'Its namespace, for namespaced kinds' }),
  id: z.string().meta({
    description: 'Its identifier within its kind: `<namespace>/<name>` for namespaced kinds, else the name or id',
  }),
  description: z.string().meta({ description: 'A line that says what it is' }),
  meta: z.record(z.string(), MetaValue).meta({ description: 'A few facts that depend on the kind' }),
});
export type SearchItem = z.infer<typeof SearchItemSchema>;

export const SearchResultSchema = z
  .object({
    query: z.string().meta({ description: 'The text searched for' }),
    total: z.int().min(0).meta({ description: 'How many items matched' }),
    items: z.array(SearchItemSchema).meta({ description: 'The matches, at most `limit`' }),
  })
  .meta({ examples: [SEARCH_EXAMPLE] });
