// Shapes of /api/queries (this token's running queries).
import { z } from 'zod';

export const RunningQuerySchema = z.object({
  id: z.string(),
  graph: z.string(),
  query: z.string(),
  started_at: z.string(),
  elapsed_ms: z.number().int(),
});
export const RunningQueryListSchema = z.object({ queries: z.array(RunningQuerySchema) });
export const QueryIdParamsSchema = z.object({ id: z.string().min(1).max(64) });
export const QueryStoppedSchema = z.object({ message: z.string(), id: z.string() });
