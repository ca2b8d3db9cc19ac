// Request and response shapes of /api/udf: FalkorDB's user-defined function libraries.
import { z } from 'zod';

/** Longest library source accepted; FalkorDB keeps every library in memory and in its persistence files. */
export const MAX_UDF_CODE_BYTES = 256 * 1024;

export const LibraryNameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be 1-64 letters, digits or `_`, not starting with a digit');
export const LibraryParamsSchema = z.object({
  lib: LibraryNameSchema.meta({ description: 'The library’s name', examples: ['math'] }),
});
const MATH_LIBRARY_CODE = "function twice(x) { return x * 2; }\nfalkor.register('twice', twice);";
export const LoadLibraryBodySchema = z
  .object({
    code: z
      .string()
      .min(1, 'must not be empty')
      .refine((code) => Buffer.byteLength(code) <= MAX_UDF_CODE_BYTES, `must be at most ${MAX_UDF_CODE_BYTES} bytes`)
      .meta({
        description: `The library's JavaScript source, which registers its functions with \`falkor.register\` (at most ${MAX_UDF_CODE_BYTES} bytes)`,
      }),
    replace: z
      .boolean()
      .default(false)
      .meta({ description: 'Replace a library of the same name (otherwise loading it again is refused)' }),
  })
  .meta({ examples: [{ code: MATH_LIBRARY_CODE, replace: false }] });

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
export const LibraryListSchema = z
  .object({ result: z.array(LibraryEntrySchema).meta({ description: 'The loaded libraries' }) })
  .meta({ examples: [{ result: [['library_name', 'math', 'functions', ['twice']]] }] });
export const LibraryReadSchema = z
  .object({
    result: z.array(LibraryEntryWithCodeSchema).length(1).meta({ description: 'The one library asked for' }),
  })
  .meta({
    examples: [{ result: [['library_name', 'math', 'functions', ['twice'], 'library_code', MATH_LIBRARY_CODE]] }],
  });
const udfMessage = (message: string) =>
  z.object({ message: z.string().meta({ description: 'What was done' }) }).meta({ examples: [{ message }] });
export const UdfLoadedSchema = udfMessage('UDF created successfully');
export const UdfDeletedSchema = udfMessage('UDF deleted successfully');
export const UdfFlushedSchema = z
  .object({ result: z.literal('UDFs flushed successfully').meta({ description: 'Every library was removed' }) })
  .meta({ examples: [{ result: 'UDFs flushed successfully' }] });

export type LibraryEntry = z.infer<typeof LibraryEntrySchema>;
export type LibraryEntryWithCode = z.infer<typeof LibraryEntryWithCodeSchema>;
