// Request and response shapes of /api/udf: FalkorDB's user-defined function libraries.
import { z } from 'zod';

/** Longest library source accepted; FalkorDB keeps every library in memory and in its persistence files. */
export const MAX_UDF_CODE_BYTES = 256 * 1024;

export const LibraryNameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be 1-64 letters, digits or `_`, not starting with a digit');
export const LibraryParamsSchema = z.object({ lib: LibraryNameSchema });
export const LoadLibraryBodySchema = z.object({
  code: z
    .string()
    .min(1, 'must not be empty')
    .refine((code) => Buffer.byteLength(code) <= MAX_UDF_CODE_BYTES, `must be at most ${MAX_UDF_CODE_BYTES} bytes`),
  replace: z.boolean().default(false),
});

// The FalkorDB Browser reads libraries as `GRAPH.UDF LIST` answers them: one flat list of field names and values per
// library, which its UDF page and query editor index by position.
const FunctionNamesSchema = z.array(z.string()).meta({ description: 'The names the library registers' });
export const LibraryEntrySchema = z
  .tuple([z.literal('library_name'), z.string(), z.literal('functions'), FunctionNamesSchema])
  .meta({
    id: 'UdfLibraryEntry',
    description: '`["library_name", <name>, "functions", [<function>…]]`, as `GRAPH.UDF LIST` answers it',
    example: ['library_name', 'math', 'functions', ['twice']],
  });
export const LibraryEntryWithCodeSchema = z
  .tuple([
    z.literal('library_name'),
    z.string(),
    z.literal('functions'),
    FunctionNamesSchema,
    z.literal('library_code'),
    z.string(),
  ])
  .meta({
    id: 'UdfLibraryEntryWithCode',
    description: 'The list entry followed by `"library_code", <source>`, as `GRAPH.UDF LIST <lib> WITHCODE` answers it',
  });
export const LibraryListSchema = z.object({ result: z.array(LibraryEntrySchema) });
export const LibraryReadSchema = z.object({
  result: z.array(LibraryEntryWithCodeSchema).length(1).meta({ description: 'The one library asked for' }),
});
export const UdfMessageSchema = z.object({ message: z.string() });
export const UdfFlushedSchema = z.object({ result: z.literal('UDFs flushed successfully') });

export type LibraryEntry = z.infer<typeof LibraryEntrySchema>;
export type LibraryEntryWithCode = z.infer<typeof LibraryEntryWithCodeSchema>;
