// Shapes of POST /api/upload (staging a file) and POST /api/graph/{graph}/upload (running a staged Cypher batch).
import { z } from 'zod';

export const StagedFileSchema = z
  .object({
    fileId: z.string().meta({ description: 'Pass it to POST /api/graph/{graph}/upload within an hour' }),
    name: z.string(),
    size: z.number().int(),
  })
  .meta({ id: 'StagedFile' });

export const RunBatchBodySchema = z.object({
  fileId: z.string().min(1).max(64).meta({ description: 'The id POST /api/upload answered' }),
});

export const BatchResultSchema = z.object({
  message: z.string().meta({ example: 'Executed 3 Cypher statement(s).' }),
});
