// The FalkorDB Enterprise admin API's operations (admin-api-operations.json beside this file), translated through
// this server's name map, with what a conformance walk needs: a minimal valid request body built
// from the request schema, and a validator of each response schema.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export type JsonSchema = { [keyword: string]: unknown };

export interface RealParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
}

export interface RealOperation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  tag: string;
  /** Empty: public. */
  security?: string[];
  parameters: RealParameter[];
  requestBody?: { required?: boolean; content: Record<string, JsonSchema> };
  /** status → media type → schema */
  responses: Record<string, Record<string, JsonSchema>>;
}

/** The published operations of the FalkorDB Enterprise admin API (interface facts only). */
const REFERENCE = path.join(import.meta.dirname, 'admin-api-operations.json');

/** This server's names for the FalkorDB Enterprise admin API's: enum values and object keys. */
const RENAMED_VALUES: Record<string, string> = { google: 'alpha', azure: 'beta' };
const RENAMED_KEYS: Record<string, string> = {
  google_oauth: 'alpha_oauth',
  azure_oauth: 'beta_oauth',
  google_workspace: 'alpha_workspace',
  prometheus_port: 'exporter_port',
};

/** Applies this server's renames to a schema, deeply: enum members, `properties`/`required` keys. */
export function renamed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(renamed);
  if (typeof schema === 'string') return RENAMED_VALUES[schema] ?? schema;
  if (schema === null || typeof schema !== 'object') return schema;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (key === 'properties' && value && typeof value === 'object') {
      result[key] = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([name, property]) => [
          RENAMED_KEYS[name] ?? name,
          renamed(property),
        ]),
      );
    } else if (key === 'required' && Array.isArray(value)) {
      result[key] = value.map((name: unknown) => (typeof name === 'string' ? (RENAMED_KEYS[name] ?? name) : name));
    } else result[key] = renamed(value);
  }
  return result;
}

export function realOperations(): RealOperation[] {
  const document = JSON.parse(readFileSync(REFERENCE, 'utf8')) as { operations: RealOperation[] };
  return document.operations.map((operation) => renamed(operation) as RealOperation);
}

export function operationKey(operation: Pick<RealOperation, 'method' | 'path'>): string {
  return `${operation.method} ${operation.path}`;
}

/** The path spellings a client may use: a declared trailing slash may be left out, as the real docs' curls do. */
export function pathSpellings(declared: string): string[] {
  return declared.endsWith('/') && declared !== '/' ? [declared, declared.slice(0, -1)] : [declared];
}

function firstOption(schema: JsonSchema): JsonSchema | undefined {
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const options = schema[keyword];
    if (Array.isArray(options) && options.length > 0) return options[0] as JsonSchema;
  }
  return undefined;
}

let sampleCounter = 0;

/**
 * A minimal value the schema accepts: required properties only, the first enum member or alternative, the lower
 * bounds. `overrides` replace top-level properties (and add optional ones) where a scenario needs a real value.
 */
export function sampleOf(schema: JsonSchema, overrides: Record<string, unknown> = {}): unknown {
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const option = firstOption(schema);
  if (option) return sampleOf({ ...option, ...(schema.default === undefined ? {} : { default: schema.default }) });
  if (Array.isArray(schema.allOf)) {
    return Object.assign(
      {},
      ...schema.allOf.map((part) => sampleOf(part as JsonSchema) as object),
      overrides,
    ) as unknown;
  }
  if (schema.default !== undefined && Object.keys(overrides).length === 0) return schema.default;
  switch (schema.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = (schema.required ?? []) as string[];
      const value: Record<string, unknown> = {};
      for (const name of required) if (properties[name]) value[name] = sampleOf(properties[name]);
      return { ...value, ...overrides };
    }
    case 'array': {
      const count = typeof schema.minItems === 'number' ? schema.minItems : 0;
      const items = (schema.items ?? {}) as JsonSchema;
      return Array.from({ length: count }, () => sampleOf(items));
    }
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return false;
    case 'string': {
      sampleCounter += 1;
      if (schema.format === 'email') return `conformance-${sampleCounter}@corp.example`;
      if (schema.format === 'date-time') return new Date(0).toISOString();
      const minimum = typeof schema.minLength === 'number' ? schema.minLength : 1;
      return `sample${sampleCounter}`.padEnd(minimum, 'x');
    }
    default:
      return {};
  }
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

/** A validator of one response schema; `errors` says what did not match, for the test's message. */
export function validatorOf(schema: JsonSchema): ValidateFunction {
  return ajv.compile(schema);
}
