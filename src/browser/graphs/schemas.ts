// Shapes shared by the graph, node, config and user routes.
import { z } from 'zod';
import { printableString } from '../../shared/printable.js';
import { verbatim } from '../../shared/verbatim-messages.js';
import { loadCsvViolation } from './load-csv-guard.js';

/** Any name FalkorDB accepts as a key, except control characters (they would corrupt headers and logs). */
export const GraphNameSchema = printableString({ max: 512 });

export const GraphParamsSchema = z.object({ graph: GraphNameSchema });

/**
 * Every query route (stream, explain, profile) parses its query with this schema, so none can make the database
 * fetch a URL outside CSV_URL_ALLOWLIST.
 */
export function cypherQuerySchema(csvUrlAllowlist: readonly string[]) {
  return z
    .string()
    .min(1, 'must not be empty')
    .max(1_000_000)
    .superRefine((query, ctx) => {
      const violation = loadCsvViolation(query, csvUrlAllowlist);
      if (violation !== undefined) ctx.addIssue({ code: 'custom', message: verbatim(violation) });
    });
}

export const MessageSchema = z.object({ message: z.string() });

/** A required string parameter reported with the seed-style literal messages when it is absent or empty. */
export function requiredString(name: string) {
  return z
    .string({
      error: (issue) =>
        issue.input === undefined ? verbatim(`Missing parameter ${name}`) : verbatim(`Invalid parameter ${name}`),
    })
    .min(1, verbatim(`Missing parameter ${name}`));
}
