// The graph routes' requests and responses, and the shapes the node, config and user routes share with them. (one file because a feature's schemas live in its one schemas.ts, docs/architecture.md)
import { z } from 'zod';
import { hasControlCharacter, printableString } from '../../lib/printable.js';
import { verbatim } from '../../lib/verbatim-messages.js';
import { queryInteger, wholeNumber } from '../../lib/wire-values.js';
import { loadCsvViolation } from './load-csv-guard.js';
import { parseQueryParams, queryParamsProblem } from './cypher-parameters.js';
import type { CypherValue } from '../../platform/falkordb/cypher.js';
import type { JsonValue } from '../../platform/falkordb/compact-reply.js';
import { withFastPath } from '../../http/fast-validation.js';
import { ErrorCodeSchema } from '../../http/error-shapes.js';
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

/** `format` of both query forms: how row values are written. */
const VALUE_FORMATS = ['plain', 'typed'] as const;
export const ValueFormatSchema = z.enum(VALUE_FORMATS).meta({
  id: 'ValueFormat',
  description:
    'How row values are written. `plain` (the default): JSON values as the FalkorDB Browser reads them (see Value). `typed`: every value is an object whose `type` names its kind (see TypedValue), so integers beyond 2^53, temporal values, points and maps are told apart; the JSON body and the SSE result then carry `"format": "typed"`, and so does the NDJSON header line.',
});

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
const SOURCE_NAME_DESCRIPTION = 'The name of the existing graph (the source); `graph` in the path is the new name';
export const SourceNameQuerySchema = z.object({
  sourceName: requiredString('sourceName')
    .pipe(GraphNameSchema)
    .meta({ description: SOURCE_NAME_DESCRIPTION, example: 'social' }),
});
export const SourceNameBodySchema = z
  .object({
    sourceName: GraphNameSchema.optional().meta({
      description: `${SOURCE_NAME_DESCRIPTION} (the query parameter wins when both are sent)`,
    }),
  })
  .nullish()
  .meta({
    description: 'No body, or the FalkorDB Browser’s copy of `sourceName`',
    examples: [{ sourceName: 'social' }],
  });

export const InfoQuerySchema = z.object({
  type: z
    .enum(INFO_TYPES, {
      error: (issue) =>
        issue.input === undefined
          ? verbatim('Missing parameter type')
          : verbatim(`Invalid parameter type: must be one of ${INFO_TYPES.join(', ')}`),
    })
    .meta({ description: 'Which names to list: functions, property keys, labels or relationship types' }),
});
export const CountSchema = z.object({
  nodes: z.number().int().meta({ description: 'How many nodes the graph holds' }),
  edges: z.number().int().meta({ description: 'How many relationships the graph holds' }),
});

export const explainQuerySchema = (csvUrlAllowlist: readonly string[]) =>
  z.object({
    query: requiredString('query').pipe(cypherQuerySchema(csvUrlAllowlist)).meta({
      description: 'The Cypher query: explain plans it without running it, profile runs it',
      example: 'MATCH (p:Person) RETURN p.name',
    }),
  });

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
  .meta({ description: 'No body, or an empty object', examples: [{}] });

export const GraphListSchema = z
  .object({ opts: z.array(z.string()).meta({ description: 'The graph names, in the database’s order' }) })
  .meta({ examples: [{ opts: ['social', 'movies'] }] });
export const GraphCreatedSchema = z
  .object({
    data: z
      .object({ result: z.literal('OK').meta({ description: 'Always `OK`: the graph was renamed' }) })
      .meta({ description: 'The outcome' }),
  })
  .meta({ examples: [{ data: { result: 'OK' } }] });
export const GraphChangedSchema = z
  .object({
    result: z
      .object({ status: z.literal('OK').meta({ description: 'Always `OK`: the copy was made' }) })
      .meta({ description: 'The outcome' }),
  })
  .meta({ examples: [{ result: { status: 'OK' } }] });
const planLines = z
  .array(z.string())
  .meta({ description: 'The plan, one operation per line, indented under the operation that reads from it' });
/** The lines of an execution plan (explain). */
export const PlanSchema = z.object({ result: planLines }).meta({
  examples: [{ result: ['Results', '    Project', '        Node By Label Scan | (p:Person)'] }],
});
/** The lines of a profiled plan: each operation with the records it produced and the time it took. */
export const ProfileSchema = z.object({ result: planLines }).meta({
  examples: [
    {
      result: [
        'Results | Records produced: 2, Execution time: 0.001 ms',
        '    Project | Records produced: 2, Execution time: 0.004 ms',
        '        Node By Label Scan | (p:Person) | Records produced: 2, Execution time: 0.009 ms',
      ],
    },
  ],
});
export const GraphInfoSchema = z
  .object({
    result: z
      .object({
        data: z.array(z.record(z.string(), z.string())).meta({
          description:
            'One item per name, keyed by the requested type (e.g. `{"(label)": "Person", "info": "Person"}`), and by `info` too',
          example: [{ '(label)': 'Person', info: 'Person' }],
        }),
      })
      .meta({ description: 'The names' }),
  })
  .meta({
    examples: [
      {
        result: {
          data: [
            { '(label)': 'Person', info: 'Person' },
            { '(label)': 'City', info: 'City' },
          ],
        },
      },
    ],
  });
export const CountResultSchema = z
  .object({ result: CountSchema.meta({ description: 'The counts' }) })
  .meta({ examples: [{ result: { nodes: 42, edges: 17 } }] });
/** The `Accept: text/event-stream` form of countGraph: one `result` event. */
export const CountEventStreamSchema = z.string().meta({
  description: 'One `result` event whose data is `{"nodes": N, "edges": M}`',
  examples: ['event: result\ndata: {"nodes":42,"edges":17}\n\n'],
});

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
      'Cypher parameters as a JSON object (`{"name": "Ada", "born": 1815}`), used in the query as `$name`; sent to FalkorDB as its `CYPHER` header, never spliced into the text. At most 64 KiB, 32 levels deep. Also accepted as `params` (its earlier name; not both).',
  });

export const queryStreamQuerySchema = (csvUrlAllowlist: readonly string[]) =>
  withFastPath(queryStreamQueryZod(csvUrlAllowlist), (input) => usualQueryStreamQuery(input, csvUrlAllowlist));

const TIMEOUT_SYNTAX = /^\d{1,10}$/;
const MAX_ROWS_SYNTAX = /^\d{1,9}$/;

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
    if (key !== 'query' && key !== 'timeout' && key !== 'parameters' && key !== 'maxRows') return undefined;
    fields++;
  }
  const { query, timeout, parameters: params, maxRows } = input as Record<string, unknown>;
  if (typeof query !== 'string' || query.length === 0 || query.length > 1_000_000) return undefined;
  if (typeof timeout !== 'string' || !TIMEOUT_SYNTAX.test(timeout)) return undefined;
  if (maxRows !== undefined && (typeof maxRows !== 'string' || !MAX_ROWS_SYNTAX.test(maxRows) || Number(maxRows) < 1))
    return undefined;
  if (params !== undefined && typeof params !== 'string') return undefined;
  if (fields !== 2 + (params === undefined ? 0 : 1) + (maxRows === undefined ? 0 : 1)) return undefined;
  if (loadCsvViolation(query, csvUrlAllowlist) !== undefined) return undefined;
  // As zod answers: an optional field that was not given is absent, not present as undefined (its output type has
  // `params` as a key whose value may be undefined).
  const parsed = { query, timeout: Number(timeout) } as z.output<ReturnType<typeof queryStreamQueryZod>>;
  if (params !== undefined) {
    const cypherParams = parseQueryParams(params);
    if ('error' in cypherParams) return undefined;
    parsed.parameters = cypherParams.params;
  }
  if (maxRows !== undefined) parsed.maxRows = Number(maxRows);
  return parsed;
}

const INVALID_TIMEOUT = verbatim('Invalid parameter timeout');
const MISSING_TIMEOUT = verbatim('Missing parameter timeout');

const queryStreamQueryZod = (csvUrlAllowlist: readonly string[]) =>
  z.object({
    query: requiredString('query').pipe(cypherQuerySchema(csvUrlAllowlist)).meta({
      description: 'The Cypher query (at most 1,000,000 characters)',
      example: 'MATCH (p:Person) RETURN p.name AS name',
    }),
    timeout: queryInteger(
      z
        .number({
          error: (issue) => (issue.input === undefined || issue.input === '' ? MISSING_TIMEOUT : INVALID_TIMEOUT),
        })
        .int(INVALID_TIMEOUT)
        .min(0, INVALID_TIMEOUT)
        .max(9_999_999_999, INVALID_TIMEOUT),
    ).meta({
      description:
        "Milliseconds FalkorDB may run the query; clamped to the server's QUERY_TIMEOUT_MAX_MS, where 0 also means that maximum",
      example: 5000,
    }),
    parameters: ParamsSchema,
    maxRows: queryInteger(wholeNumber(1, 999_999_999, verbatim('Invalid parameter maxRows')).optional()).meta({
      description:
        'At most this many rows: a longer result is cut there and says so with `"truncated": true` (JSON, the `result` event, the NDJSON summary). Without it a result longer than the server allows is refused (400).',
    }),
    // Inline rather than the ValueFormat component, so the query parameter carries its own description.
    format: z.enum(VALUE_FORMATS).optional().meta({
      description: 'How row values are written: `plain` (the default) or `typed` (see the ValueFormat schema)',
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
      // Optional rather than defaulted in the schema: a default makes the document list it as required (the
      // response side of the schema), and a generated client would then demand it. The route applies the default.
      timeout: z.number().int().min(0).max(9_999_999_999).optional().meta({
        description:
          "Milliseconds FalkorDB may run the query (30000 when absent); clamped to the server's QUERY_TIMEOUT_MAX_MS, where 0 also means that maximum.",
        example: 5000,
      }),
      maxRows: z.number().int().min(1).max(999_999_999).optional().meta({
        description:
          'At most this many rows: a longer result is cut there and says so with `"truncated": true`. Without it a result longer than the server allows is refused (400).',
        example: 100,
      }),
      format: ValueFormatSchema.optional(),
    })
    .meta({
      id: 'QueryRequest',
      description: 'A Cypher query with its parameters and bounds',
      examples: [
        {
          query: 'MATCH (p:Person {name: $name}) RETURN p.name AS name, p.born AS born',
          params: { name: 'Ada' },
          timeout: 5000,
          maxRows: 100,
        },
      ],
    });

// The values a query row can hold, as named schemas (components of the API document), in the two value formats.

export const PointSchema = z
  .object({
    latitude: z.number().meta({ description: 'Degrees north', example: 51.5 }),
    longitude: z.number().meta({ description: 'Degrees east', example: -0.12 }),
  })
  .meta({ id: 'Point', description: 'A geographic point (WGS 84)' });

/**
 * A scalar as the plain format writes it. The kinds that JSON cannot tell apart are described here; the typed
 * format (`format: "typed"`) tags each of them instead.
 */
export const ScalarSchema = z.union([z.null(), z.boolean(), z.number(), z.string()]).meta({
  id: 'Scalar',
  description:
    'null, a boolean, a number or a string. Integers within ±(2^53 − 1) and finite floats are numbers; an integer beyond that is its decimal digits as a string; a float that is not finite is FalkorDB’s spelling of it as a string; datetime, date, time and duration values are ISO 8601 strings (`2024-05-01T10:00:00`, `2024-05-01`, `10:00:00`, `P1DT2H`). The typed format tells each of these apart.',
});

export const NodeSchema = z
  .object({
    id: z.number().int().meta({ description: "The node's id in its graph (reused after the node is deleted)" }),
    labels: z.array(z.string()).meta({ description: "The node's labels", example: ['Person'] }),
    get properties() {
      return PropertiesSchema;
    },
  })
  .meta({ id: 'Node', description: 'A node, as query rows and `GET /api/graph/{graph}/{node}` answer it' });

export const RelationshipSchema = z
  .object({
    id: z.number().int().meta({ description: "The relationship's id in its graph" }),
    relationshipType: z.string().meta({ description: "The relationship's type", example: 'KNOWS' }),
    sourceId: z.number().int().meta({ description: 'The id of the node it starts at' }),
    destinationId: z.number().int().meta({ description: 'The id of the node it ends at' }),
    get properties() {
      return PropertiesSchema;
    },
  })
  .meta({
    id: 'Relationship',
    description: 'A relationship, as query rows and `GET /api/graph/{graph}/{node}` answer it',
  });

export const PathSchema = z
  .object({
    nodes: z.array(NodeSchema).meta({ description: 'The nodes along the path, in order' }),
    edges: z.array(RelationshipSchema).meta({ description: 'The relationships between them, in order' }),
  })
  .meta({ id: 'Path', description: 'A path: n nodes and the n − 1 relationships that join them' });

// Its items are left open in the schema (each is a Value): openapi-python-client cannot parse a union that reaches
// itself through an array, only through object schemas (as TypedList does).
export const ValueListSchema = z.array(z.unknown()).meta({
  id: 'ValueList',
  description: 'A list; each item is a Value (a float vector is a list of numbers)',
});

export const ValueMapSchema = z
  .record(
    z.string(),
    z.lazy(() => ValueSchema),
  )
  .meta({
    id: 'ValueMap',
    description: 'A map of values by key',
  });

/**
 * Any value of a row in the plain format. Nodes, relationships, paths and points are objects with fixed keys;
 * a map returned by the query is an object too, so a map that happens to have the same keys reads as one of them:
 * the typed format (`format: "typed"`) says which it is.
 */
export const ValueSchema: z.ZodType<JsonValue> = z
  .union([ScalarSchema, NodeSchema, RelationshipSchema, PathSchema, PointSchema, ValueListSchema, ValueMapSchema])
  .meta({ id: 'Value', description: 'A value of a query row (plain format)' }) as unknown as z.ZodType<JsonValue>;

const PropertiesSchema = z
  .record(z.string(), ValueSchema)
  .meta({ id: 'Properties', description: 'Properties by key', example: { name: 'Ada', born: 1815 } });

export const RowSchema = z
  .record(z.string(), ValueSchema)
  .meta({ id: 'Row', description: 'One row: its values by column name', example: { name: 'Ada', born: 1815 } });

/** What each field of a typed value holds, for the fields whose schema does not say it itself. */
const TYPED_FIELDS: Readonly<Record<string, string>> = {
  value: 'The value, written as its kind says',
  id: "The entity's internal id",
  labels: "The node's labels",
  relationshipType: "The relationship's type",
  sourceId: 'The id of the node the relationship starts at',
  destinationId: 'The id of the node the relationship ends at',
  latitude: 'Degrees north of the equator (WGS 84)',
  longitude: 'Degrees east of the prime meridian (WGS 84)',
  nodes: "The path's nodes, in order",
  edges: "The path's relationships, in order",
};

const tagged = <T extends string, S extends z.ZodRawShape>(type: T, shape: S, description: string) => {
  // Registered on the field's own schema (what `.meta` does on a copy), so the shape keeps its type.
  for (const [key, schema] of Object.entries(shape)) {
    const known = z.globalRegistry.get(schema);
    if (known?.description === undefined && TYPED_FIELDS[key])
      z.globalRegistry.add(schema, { ...known, description: TYPED_FIELDS[key] });
  }
  return z
    .object({ type: z.literal(type).meta({ description: `The kind of value: \`${type}\`` }), ...shape })
    .meta({ id: `Typed${type}`, description });
};

export const TypedNullSchema = tagged('Null', {}, 'null (no `value`)');
export const TypedBooleanSchema = tagged('Boolean', { value: z.boolean() }, 'A boolean');
export const TypedIntegerSchema = tagged(
  'Integer',
  {
    value: z
      .string()
      .regex(/^-?\d+$/)
      .meta({ example: '9007199254740993' }),
  },
  'A 64-bit integer as its decimal digits (exact beyond 2^53: parse it with BigInt or int)',
);
export const TypedFloatSchema = tagged(
  'Float',
  { value: z.union([z.number(), z.string()]) },
  "A double: a number, or FalkorDB's spelling of it as a string when it is not finite (infinity, NaN)",
);
export const TypedStringSchema = tagged('String', { value: z.string() }, 'A string');
export const TypedDateTimeSchema = tagged(
  'DateTime',
  { value: z.string().meta({ example: '2024-05-01T10:00:00' }) },
  'A datetime, ISO 8601 without a zone (FalkorDB keeps UTC)',
);
export const TypedDateSchema = tagged(
  'Date',
  { value: z.string().meta({ example: '2024-05-01' }) },
  'A date, ISO 8601',
);
export const TypedTimeSchema = tagged(
  'Time',
  { value: z.string().meta({ example: '10:00:00' }) },
  'A time of day, ISO 8601',
);
export const TypedDurationSchema = tagged(
  'Duration',
  { value: z.string().meta({ example: 'P1DT2H' }) },
  'A duration, ISO 8601',
);
export const TypedPointSchema = tagged(
  'Point',
  { latitude: z.number(), longitude: z.number() },
  'A geographic point (WGS 84)',
);
export const TypedVectorSchema = tagged('Vector', { value: z.array(z.number()) }, 'A vector of 32-bit floats');
export const TypedListSchema = tagged(
  'List',
  {
    value: z.array(z.lazy(() => TypedValueSchema)),
  },
  'A list',
);
export const TypedMapSchema = tagged(
  'Map',
  {
    value: z.lazy(() => TypedPropertiesSchema),
  },
  'A map of values by key',
);
export const TypedNodeSchema = tagged(
  'Node',
  {
    id: z.number().int(),
    labels: z.array(z.string()),
    properties: z.lazy(() => TypedPropertiesSchema),
  },
  'A node',
);
export const TypedRelationshipSchema = tagged(
  'Relationship',
  {
    id: z.number().int(),
    relationshipType: z.string(),
    sourceId: z.number().int(),
    destinationId: z.number().int(),
    properties: z.lazy(() => TypedPropertiesSchema),
  },
  'A relationship',
);
export const TypedPathSchema = tagged(
  'Path',
  { nodes: z.array(TypedNodeSchema), edges: z.array(TypedRelationshipSchema) },
  'A path',
);

/** Any value of a row in the typed format: an object whose `type` names its kind. */
export const TypedValueSchema: z.ZodType<JsonValue> = z
  .discriminatedUnion('type', [
    TypedNullSchema,
    TypedBooleanSchema,
    TypedIntegerSchema,
    TypedFloatSchema,
    TypedStringSchema,
    TypedDateTimeSchema,
    TypedDateSchema,
    TypedTimeSchema,
    TypedDurationSchema,
    TypedPointSchema,
    TypedVectorSchema,
    TypedListSchema,
    TypedMapSchema,
    TypedNodeSchema,
    TypedRelationshipSchema,
    TypedPathSchema,
  ])
  .meta({ id: 'TypedValue', description: 'A value of a query row (typed format)' });

const TypedPropertiesSchema = z
  .record(z.string(), TypedValueSchema)
  .meta({ id: 'TypedProperties', description: 'Typed values by key' });

export const TypedRowSchema = z.record(z.string(), TypedValueSchema).meta({
  id: 'TypedRow',
  description: 'One row in the typed format: its values by column name',
  example: { name: { type: 'String', value: 'Ada' }, born: { type: 'Integer', value: '1815' } },
});

const metadataField = z.array(z.string()).meta({
  description: "FalkorDB's statistics lines (`Nodes created: 1`, `Query internal execution time: 0.2 milliseconds`)",
});
const truncatedField = z
  .boolean()
  .optional()
  .meta({ description: 'Present when `maxRows` was given: true when the result had more rows than that' });

export const QueryResultSchema = z
  .object({
    metadata: metadataField,
    data: z.array(RowSchema).meta({ description: 'One object per row, keyed by column name; `[]` without rows' }),
    truncated: truncatedField,
  })
  .meta({
    id: 'QueryResult',
    description:
      'A query result in the plain value format (the default): see Value for how each kind of value is written',
  });

export const TypedQueryResultSchema = z
  .object({
    format: z.literal('typed').meta({ description: 'Says the rows hold typed values' }),
    metadata: metadataField,
    data: z.array(TypedRowSchema).meta({ description: 'One object per row, keyed by column name; `[]` without rows' }),
    truncated: truncatedField,
  })
  .meta({ id: 'TypedQueryResult', description: 'A query result in the typed value format (`format: "typed"`)' });

export type GraphList = z.infer<typeof GraphListSchema>;

export const QueryStreamErrorSchema = z
  .object({
    message: z.string().meta({ description: 'What went wrong' }),
    status: z.number().int().meta({ description: 'The HTTP status the JSON form would have answered', example: 400 }),
    code: ErrorCodeSchema,
  })
  .meta({ id: 'QueryStreamError', description: 'An error reported inside a stream (SSE `error` event data)' });

export const QueryResultEventSchema = z
  .object({
    event: z.literal('result').meta({ description: 'The event name' }),
    data: z
      // The typed form first, as in the JSON answer (query-routes.ts says why).
      .union([TypedQueryResultSchema, QueryResultSchema])
      .meta({ description: 'The whole result, in the format the request asked for' }),
  })
  .meta({
    id: 'QueryResultEvent',
    description: 'The SSE event `result`: its `data:` lines joined are the JSON of the whole result',
  });

export const QueryErrorEventSchema = z
  .object({ event: z.literal('error').meta({ description: 'The event name' }), data: QueryStreamErrorSchema })
  .meta({ id: 'QueryErrorEvent', description: 'The SSE event `error`: the query failed' });

export const QueryEventSchema = z.discriminatedUnion('event', [QueryResultEventSchema, QueryErrorEventSchema]).meta({
  id: 'QueryEvent',
  description:
    'One server-sent event of a query (`event:` name, `data:` JSON). A stream holds one `result` or one `error` event, then ends; lines starting with `:` are heartbeats.',
});

export const QueryHeaderLineSchema = z
  .object({
    type: z.literal('header').meta({ description: 'The kind of line' }),
    columns: z.array(z.string()).meta({ description: 'The column names, in order' }),
    format: z.literal('typed').optional().meta({ description: 'Present when the rows hold typed values' }),
  })
  .meta({ id: 'QueryHeaderLine', description: 'The first NDJSON line' });

export const QueryRowLineSchema = z
  .object({
    type: z.literal('row').meta({ description: 'The kind of line' }),
    data: z
      .union([RowSchema, TypedRowSchema])
      .meta({ description: "The row's values by column name, in the format the request asked for" }),
  })
  .meta({ id: 'QueryRowLine', description: 'One NDJSON line per row, sent as the row arrives from the database' });

export const QuerySummaryLineSchema = z
  .object({
    type: z.literal('summary').meta({ description: 'The kind of line' }),
    metadata: metadataField,
    rows: z.number().int().meta({ description: 'How many row lines were sent' }),
    truncated: z.boolean().meta({ description: 'True when `maxRows` cut the result' }),
  })
  .meta({ id: 'QuerySummaryLine', description: 'The last NDJSON line of a query that ran to its end' });

export const QueryErrorLineSchema = z
  .object({
    type: z.literal('error').meta({ description: 'The kind of line' }),
    message: z.string().meta({ description: 'What went wrong' }),
    status: z.number().int().meta({ description: 'The HTTP status the JSON form would have answered' }),
    code: ErrorCodeSchema,
  })
  .meta({
    id: 'QueryErrorLine',
    description: 'The last NDJSON line of a query that failed after the header line, in place of the summary',
  });

export const QueryLineSchema = z
  .discriminatedUnion('type', [QueryHeaderLineSchema, QueryRowLineSchema, QuerySummaryLineSchema, QueryErrorLineSchema])
  .meta({ id: 'QueryLine', description: 'One line of an NDJSON query answer' });
