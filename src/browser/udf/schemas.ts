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

const LibrarySummarySchema = z.object({ name: z.string(), functions: z.array(z.string()) });
export const LibraryListSchema = z.object({ result: z.array(LibrarySummarySchema) });
export const LibraryReadSchema = z.object({ result: LibrarySummarySchema.extend({ code: z.string() }) });
export const UdfMessageSchema = z.object({ message: z.string() });
export const UdfFlushedSchema = z.object({ result: z.literal('UDFs flushed successfully') });
