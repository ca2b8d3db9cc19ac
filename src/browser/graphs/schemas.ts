// The graph routes' requests and responses, and the shapes the node, config and user routes share with them.
import { z } from 'zod';
import { hasControlCharacter, printableString } from '../../lib/printable.js';
import { verbatim } from '../../lib/verbatim-messages.js';
import { loadCsvViolation } from './load-csv-guard.js';
import { parseQueryParams, queryParamsProblem } from './query-params.js';
import type { CypherValue } from '../../platform/falkordb/cypher.js';
import { withFastPath } from '../../http/fast-validation.js';
import { INFO_TYPES } from './graph-service.js';

/** Any name FalkorDB accepts as a key, except control characters (they would corrupt headers and logs). */
const GRAPH_NAME_MAX = 512;
export const GraphNameSchema = printableString({ max: GRAPH_NAME_MAX });

/**
 * Words the browser API routes under `/api/graph/<word>` (the configuration routes): a graph of that name could not be
 * queried or addressed there, so no route creates or addresses one (a graph made outside the API can still be
 * renamed away: `sourceName` accepts it).
 */
export const RESERVED_GRAPH_NAMES: readonly string[] = ['config'];

/** A graph name in a path: any name GraphNameSchema accepts except the reserved route words. */
export const GraphPathNameSchema = GraphNameSchema.refine((name) => !RESERVED_GRAPH_NAMES.includes(name), {
  error: (issue) => `${String(issue.input)} is a route of the API and cannot name a graph`,
}).meta({
  description: `The graph's name: 1 to ${GRAPH_NAME_MAX} characters, no control characters, not ${RESERVED_GRAPH_NAMES.map((name) => `\`${name}\``).join(' or ')} (a route of the API)`,
  example: 'social',
});

/** Every /api/graph/:graph route's path parameters, with a fast path for a valid name (fast-validation.ts). */
export const GraphParamsSchema = withFastPath(z.object({ graph: GraphPathNameSchema }), usualGraphParams);

/** `{ graph }` as GraphParamsSchema answers it, when the name is one it accepts; else undefined, for zod to word. */
export function usualGraphParams(input: unknown): { graph: string } | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  for (const key in input) if (key !== 'graph' && Object.hasOwn(input, key)) return undefined;
  const { graph } = input as Record<string, unknown>;
  if (typeof graph !== 'string' || graph.length === 0 || graph.length > GRAPH_NAME_MAX || hasControlCharacter(graph))
    return undefined;
  if (RESERVED_GRAPH_NAMES.includes(graph)) return undefined;
  return { graph };
}

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

export const MessageSchema = z.object({ message: z.string().meta({ description: 'What was done' }) });

/** MessageSchema with examples of the texts one route answers, for the API document. */
export const messageSaying = (...texts: string[]) =>
  MessageSchema.meta({ examples: texts.map((message) => ({ message })) });

/** A required string parameter reported with the specification's literal messages (docs/decisions/embedded-mode-persistence.md) when it is absent or empty. */
export function requiredString(name: string) {
  return z
    .string({
      error: (issue) =>
        issue.input === undefined ? verbatim(`Missing parameter ${name}`) : verbatim(`Invalid parameter ${name}`),
    })
    .min(1, verbatim(`Missing parameter ${name}`));
}

/**
 * `sourceName` is a required query parameter (see docs/decisions/embedded-mode-persistence.md); the FalkorDB Browser's JSON body copy is moved
 * into the query before validation (hoistBodyParameter), and the query wins when both are sent.
 */
export const SourceNameQuerySchema = z.object({ sourceName: requiredString('sourceName').pipe(GraphNameSchema) });
export const SourceNameBodySchema = z.object({ sourceName: GraphNameSchema.optional() }).nullish();

export const InfoQuerySchema = z.object({
  type: z.enum(INFO_TYPES, {
    error: (issue) =>
      issue.input === undefined
        ? verbatim('Missing parameter type')
        : verbatim(`Invalid parameter type: must be one of ${INFO_TYPES.join(', ')}`),
  }),
});
export const CountSchema = z.object({ nodes: z.number().int(), edges: z.number().int() });

export const explainQuerySchema = (csvUrlAllowlist: readonly string[]) =>
  z.object({ query: requiredString('query').pipe(cypherQuerySchema(csvUrlAllowlist)) });

/**
 * `POST /api/graph/{graph}` creates a graph and reads no body. A body with fields is refused rather than dropped, so a
 * query sent there by mistake (a client expecting a query endpoint) is not answered as if it ran.
 */
export const CreateGraphBodySchema = z
  .strictObject(
    {},
    {
      error: () =>
        verbatim(
          'POST /api/graph/{graph} creates a graph and takes no body; send a query to POST /api/graph/{graph}/query',
        ),
    },
  )
  .nullish()
  .meta({ description: 'No body, or an empty object' });

export const GraphListSchema = z.object({ opts: z.array(z.string()) });
export const GraphCreatedSchema = z.object({ data: z.object({ result: z.literal('OK') }) });
export const GraphChangedSchema = z.object({ result: z.object({ status: z.literal('OK') }) });
/** The lines of an execution plan (explain, profile). */
export const PlanSchema = z.object({ result: z.array(z.string()) });
export const GraphInfoSchema = z.object({
  result: z.object({
    data: z.array(z.record(z.string(), z.string())).meta({
      description:
        'One item per name, keyed by the requested type (e.g. `{"(label)": "Person", "info": "Person"}`), and by `info` too',
      example: [{ '(label)': 'Person', info: 'Person' }],
    }),
  }),
});
export const CountResultSchema = z.object({ result: CountSchema });

export const ParamsSchema = z
  .string()
  .optional()
  .transform((text, context) => {
    if (text === undefined) return undefined;
    const parsed = parseQueryParams(text);
    if ('error' in parsed) {
      context.addIssue({ code: 'custom', message: verbatim(`Invalid parameter params: ${parsed.error}`) });
      return z.NEVER;
    }
    return parsed.params;
  })
  .meta({
    description:
      'Cypher parameters as a JSON object (`{"name": "Ada", "born": 1815}`), used in the query as `$name`; sent to FalkorDB as its `CYPHER` header, never spliced into the text. At most 64 KiB, 32 levels deep.',
  });

export const queryStreamQuerySchema = (csvUrlAllowlist: readonly string[]) =>
  withFastPath(queryStreamQueryZod(csvUrlAllowlist), (input) => usualQueryStreamQuery(input, csvUrlAllowlist));

const TIMEOUT_SYNTAX = /^\d{1,10}$/;
const MAX_ROWS_SYNTAX = /^[1-9]\d{0,8}$/;

/**
 * The query route's usual querystring, checked by hand: a query, a timeout, perhaps params and maxRows, nothing
 * else, each as queryStreamQueryZod accepts it, parsed to what it answers. Undefined for anything else, which zod
 * then parses and words (fast-validation.ts).
 */
export function usualQueryStreamQuery(
  input: unknown,
  csvUrlAllowlist: readonly string[],
): z.output<ReturnType<typeof queryStreamQueryZod>> | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  let fields = 0;
  for (const key in input) {
    if (!Object.hasOwn(input, key)) continue;
    if (key !== 'query' && key !== 'timeout' && key !== 'params' && key !== 'maxRows') return undefined;
    fields++;
  }
  const { query, timeout, params, maxRows } = input as Record<string, unknown>;
  if (typeof query !== 'string' || query.length === 0 || query.length > 1_000_000) return undefined;
  if (typeof timeout !== 'string' || !TIMEOUT_SYNTAX.test(timeout)) return undefined;
  if (maxRows !== undefined && (typeof maxRows !== 'string' || !MAX_ROWS_SYNTAX.test(maxRows))) return undefined;
  if (params !== undefined && typeof params !== 'string') return undefined;
  if (fields !== 2 + (params === undefined ? 0 : 1) + (maxRows === undefined ? 0 : 1)) return undefined;
  if (loadCsvViolation(query, csvUrlAllowlist) !== undefined) return undefined;
  // As zod answers: an optional field that was not given is absent, not present as undefined (its output type has
  // `params` as a key whose value may be undefined).
  const parsed = { query, timeout: Number(timeout) } as z.output<ReturnType<typeof queryStreamQueryZod>>;
  if (params !== undefined) {
    const cypherParams = parseQueryParams(params);
    if ('error' in cypherParams) return undefined;
    parsed.params = cypherParams.params;
  }
  if (maxRows !== undefined) parsed.maxRows = Number(maxRows);
  return parsed;
}

const queryStreamQueryZod = (csvUrlAllowlist: readonly string[]) =>
  z.object({
    query: requiredString('query').pipe(cypherQuerySchema(csvUrlAllowlist)),
    timeout: requiredString('timeout')
      .regex(/^\d{1,10}$/, verbatim('Invalid parameter timeout'))
      .transform(Number),
    params: ParamsSchema,
    maxRows: z
      .string()
      .regex(/^[1-9]\d{0,8}$/, verbatim('Invalid parameter maxRows'))
      .transform(Number)
      .optional()
      .meta({
        description:
          'At most this many rows: a longer result is cut there and says so with `"truncated": true` (JSON, the `result` event, the NDJSON summary). Without it a result longer than the server allows is refused (400).',
      }),
  });

/** The default `timeout` of the body form, in milliseconds (the GET form requires one). */
export const BODY_QUERY_DEFAULT_TIMEOUT_MS = 30_000;

/** `params` of the body form: a JSON object, within the same bounds as the GET form's text. */
const CypherParamsObjectSchema = z
  .record(z.string(), z.unknown())
  .superRefine((params, context) => {
    const problem = queryParamsProblem(params);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
  })
  .transform((params) => params as Record<string, CypherValue>)
  .meta({
    description:
      'Cypher parameters (`{"name": "Ada", "born": 1815}`), used in the query as `$name`; sent to FalkorDB as its `CYPHER` header, never spliced into the text. At most 64 KiB as JSON, 32 levels deep; numbers must be finite.',
    example: { name: 'Ada' },
  });

/**
 * The body of `POST /api/graph/{graph}/query`: the GET form's fields as JSON, so a long query or a large `params`
 * object is not bounded by the size of a URL. Unknown fields are refused, so a misspelt field is not ignored.
 */
export const queryBodySchema = (csvUrlAllowlist: readonly string[]) =>
  z
    .strictObject({
      query: cypherQuerySchema(csvUrlAllowlist).meta({
        description: 'The Cypher query (at most 1,000,000 characters)',
        example: 'MATCH (p:Person {name: $name}) RETURN p.name AS name, p.born AS born',
      }),
      params: CypherParamsObjectSchema.optional(),
      timeout: z.number().int().min(0).max(9_999_999_999).default(BODY_QUERY_DEFAULT_TIMEOUT_MS).meta({
        description:
          "Milliseconds FalkorDB may run the query (30000 when absent); clamped to the server's QUERY_TIMEOUT_MAX_MS, where 0 also means that maximum.",
        example: 5000,
      }),
      maxRows: z.number().int().min(1).max(999_999_999).optional().meta({
        description:
          'At most this many rows: a longer result is cut there and says so with `"truncated": true`. Without it a result longer than the server allows is refused (400).',
        example: 100,
      }),
    })
    .meta({ id: 'QueryRequest', description: 'A Cypher query with its parameters and bounds' });

export const RowSchema = z.record(z.string(), z.unknown());
export const QueryResultSchema = z
  .object({
    metadata: z.array(z.string()),
    data: z.array(RowSchema).meta({ description: 'One object per row, keyed by column name; `[]` without rows' }),
    truncated: z
      .boolean()
      .optional()
      .meta({ description: 'Present when `maxRows` was given: true when the result had more rows than that' }),
  })
  .meta({
    id: 'QueryResult',
    description:
      'Row values: nodes {id, labels, properties}; relationships {id, relationshipType, sourceId, destinationId, properties}; paths {nodes, edges}; points {latitude, longitude}; temporal values as ISO 8601 strings; integers beyond 2^53 as strings',
  });

export type GraphList = z.infer<typeof GraphListSchema>;
