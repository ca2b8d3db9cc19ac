// Shapes of /api/queries (this token's running queries).
import { z } from 'zod';
import { timestamp } from '../../lib/timestamp-schema.js';

export const RunningQuerySchema = z.object({
  id: z.string().meta({ description: 'The id to stop it by' }),
  graph: z.string().meta({ description: 'The graph it runs on' }),
  query: z.string().meta({ description: 'Its Cypher text' }),
  started_at: timestamp('When it started'),
  elapsed_ms: z.number().int().meta({ description: 'Milliseconds it has run so far' }),
});
const RUNNING_EXAMPLE = {
  id: '7f3a4c55-9b1e-4c2d-8e6f-000000000003',
  graph: 'social',
  query: 'MATCH (a)-[*1..6]->(b) RETURN count(b)',
  started_at: '2026-11-28T09:30:00.000Z',
  elapsed_ms: 1520,
};
export const RunningQueryListSchema = z
  .object({ queries: z.array(RunningQuerySchema).meta({ description: "This token's running queries" }) })
  .meta({ examples: [{ queries: [RUNNING_EXAMPLE] }] });
export const QueryIdParamsSchema = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .meta({ description: 'A running query id', examples: [RUNNING_EXAMPLE.id] }),
});
export const QueryStoppedSchema = z
  .object({
    message: z.string().meta({ description: 'What was done' }),
    id: z.string().meta({ description: 'The stopped query id' }),
  })
  .meta({ examples: [{ message: 'Query stopped', id: RUNNING_EXAMPLE.id }] });
