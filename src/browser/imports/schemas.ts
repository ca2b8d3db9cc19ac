// Shapes of POST /api/upload (staging a file), POST /api/graph/{graph}/upload (running a staged Cypher batch) and
// POST /api/graph/{graph}/load-csv (loading a staged CSV file).
import { z } from 'zod';
import { cypherQuerySchema } from '../graphs/schemas.js';

export const StagedFileSchema = z
  .object({
    fileId: z.string().meta({ description: 'Pass it to POST /api/graph/{graph}/upload within an hour' }),
    id: z.string().meta({ description: 'The same as `fileId` (the name the FalkorDB Browser reads)' }),
    path: z.string().meta({ description: 'Where the uploader reads the staged file back: `/api/upload/{id}`' }),
    name: z.string().meta({ description: 'The name the file was uploaded with' }),
    size: z.number().int().meta({ description: 'Its size in bytes' }),
  })
  .meta({
    id: 'StagedFile',
    description: 'A staged file',
    examples: [
      {
        fileId: '3f1c2a9e-8d4b-4c55-9a57-2d8f0e6b7c10',
        id: '3f1c2a9e-8d4b-4c55-9a57-2d8f0e6b7c10',
        path: '/api/upload/3f1c2a9e-8d4b-4c55-9a57-2d8f0e6b7c10',
        name: 'people.cypher',
        size: 1042,
      },
    ],
  });

export const StagedFileParamsSchema = z.object({
  id: z.string().min(1).max(64).meta({ description: 'The id POST /api/upload answered' }),
});

export const RunBatchBodySchema = z
  .object({
    fileId: z.string().min(1).max(64).meta({ description: 'The id POST /api/upload answered' }),
    mode: z.enum(['dump', 'cypher']).optional().meta({
      description:
        "What the file is, as the FalkorDB Browser says it (the file's name decides; 400 when the two disagree): `dump` an export, `cypher` a batch",
    }),
  })
  .meta({ examples: [{ fileId: '3f1c2a9e-8d4b-4c55-9a57-2d8f0e6b7c10', mode: 'cypher' }] });

export const BatchResultSchema = z
  .object({
    message: z.string().meta({
      description: 'How many statements ran, or which export was restored',
      example: 'Executed 3 Cypher statement(s).',
    }),
  })
  .meta({
    examples: [{ message: 'Executed 3 Cypher statement(s).' }, { message: 'Restored graph social from social.dump' }],
  });

/** The `Accept: text/event-stream` form of an import: progress events, then one `result` or `error` event. */
export const importEventStreamSchema = (progress: string, result: string) =>
  z.string().meta({
    description: '`progress` events as statements or rows complete, then one `result` event or one `error` event',
    examples: [`event: progress\ndata: ${progress}\n\nevent: result\ndata: ${result}\n\n`],
  });

export function loadCsvBodySchema(csvUrlAllowlist: readonly string[]) {
  return z
    .object({
      key: z.string().min(1).max(64).meta({ description: 'The fileId POST /api/upload answered for a `.csv` file' }),
      body: cypherQuerySchema(csvUrlAllowlist).meta({
        description:
          'Cypher run for every row, which it names `row`: a map keyed by the header with `withHeaders`, else a list of the fields; every value a string, as with LOAD CSV',
        example: 'MERGE (:Person {name: row.name, born: toInteger(row.born)})',
      }),
      withHeaders: z.boolean().default(false).meta({ description: 'The first record names the fields' }),
    })
    .meta({
      examples: [
        {
          key: '5b7e0c1d-2a43-4f8e-9c61-0d9a7e3b2f48',
          body: 'MERGE (:Person {name: row.name, born: toInteger(row.born)})',
          withHeaders: true,
        },
      ],
    });
}

export const LoadCsvResultSchema = z
  .object({
    message: z.string().meta({ description: 'How many rows were loaded', example: 'Loaded 3 row(s).' }),
  })
  .meta({ examples: [{ message: 'Loaded 3 row(s).' }] });
