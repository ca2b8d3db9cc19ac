// The fuzzer's view of openapi/openapi.json: every operation with its parameters, body and responses, $refs resolved.
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The subset of JSON Schema 2020-12 the generated document uses. */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  $ref?: string;
  [key: string]: unknown;
}

export type Api = 'browser' | 'admin' | 'ops';
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  id: string;
  method: Method;
  /** OpenAPI template, e.g. /api/graph/{graph}/{node}. */
  path: string;
  api: Api;
  security: 'bearer' | 'cookie' | 'none';
  params: Parameter[];
  /** `limitBytes`: the body's bound as the document states it (`x-body-limit-bytes`); a larger body is answered 413. */
  body?: { required: boolean; schema: JsonSchema; limitBytes?: number };
  /** status -> content type -> schema (undefined: a response without a body, such as a 302). */
  responses: Record<string, Record<string, JsonSchema | undefined>>;
}

export const OPENAPI_PATH = path.resolve(import.meta.dirname, '../../../openapi/openapi.json');

// The URL space of the browser API as docs/decisions/http-conventions.md ("Unknown routes") states it, written out
// on purpose rather than imported from src/browser/paths.ts: the fuzzer checks the server's split of the URL space
// against the decision, which importing the server's own list would make true by construction.
const BROWSER_PREFIXES = [
  '/api/auth/tokens',
  '/api/status',
  '/api/graph',
  '/api/user',
  '/api/DBVersion',
  '/api/info',
  '/api/monitor',
  '/api/connection-info',
  '/api/udf',
  '/api/queries',
  '/api/upload',
];

/** Which API's error shape a request path must be answered in. */
export function shapeOwning(url: string): 'browser' | 'admin' {
  const pathOnly = url.split('?', 1)[0] ?? url;
  return BROWSER_PREFIXES.some((prefix) => pathOnly === prefix || pathOnly.startsWith(`${prefix}/`))
    ? 'browser'
    : 'admin';
}

interface RawOperation {
  operationId: string;
  parameters?: { name: string; in: string; required?: boolean; schema: JsonSchema }[];
  requestBody?: {
    required?: boolean;
    content: Record<string, { schema: JsonSchema }>;
    'x-body-limit-bytes'?: number;
  };
  responses: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
  security?: Record<string, unknown>[];
}
interface RawDocument {
  paths: Record<string, Record<string, RawOperation>>;
  components: { schemas: Record<string, JsonSchema> };
}

function resolveRefs(schema: JsonSchema, components: Record<string, JsonSchema>, seen: string[] = []): JsonSchema {
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = components[name];
    if (!target) throw new Error(`unresolvable $ref ${schema.$ref}`);
    // A recursive schema (a row Value holds lists and maps of Values) cannot be inlined: its inner occurrence
    // stays unconstrained, and the outer levels are still checked.
    if (seen.includes(name)) return {};
    return resolveRefs(target, components, [...seen, name]);
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, JsonSchema>).map(([k, v]) => [k, resolveRefs(v, components, seen)]),
      );
    } else if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf') && Array.isArray(value)) {
      out[key] = (value as JsonSchema[]).map((v) => resolveRefs(v, components, seen));
    } else if (
      (key === 'items' || key === 'additionalProperties' || key === 'propertyNames') &&
      value &&
      typeof value === 'object'
    ) {
      out[key] = resolveRefs(value as JsonSchema, components, seen);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function apiOf(templatePath: string): Api {
  if (!templatePath.startsWith('/api/')) return 'ops';
  return shapeOwning(templatePath);
}

export function loadOperations(file = OPENAPI_PATH): Operation[] {
  const document = JSON.parse(readFileSync(file, 'utf8')) as RawDocument;
  const resolve = (schema: JsonSchema) => resolveRefs(schema, document.components.schemas);
  const operations: Operation[] = [];
  for (const [templatePath, methods] of Object.entries(document.paths)) {
    for (const [method, raw] of Object.entries(methods)) {
      const scheme = Object.keys(raw.security?.[0] ?? {})[0];
      const jsonBody = raw.requestBody?.content['application/json'];
      operations.push({
        id: raw.operationId,
        method: method.toUpperCase() as Method,
        path: templatePath,
        api: apiOf(templatePath),
        security: scheme === 'bearerAuth' ? 'bearer' : scheme === 'cookieAuth' ? 'cookie' : 'none',
        params: (raw.parameters ?? []).map((p) => ({
          name: p.name,
          in: p.in as 'path' | 'query',
          required: p.required ?? false,
          schema: resolve(p.schema),
        })),
        body: jsonBody
          ? {
              required: raw.requestBody?.required ?? false,
              schema: resolve(jsonBody.schema),
              limitBytes: raw.requestBody?.['x-body-limit-bytes'],
            }
          : undefined,
        responses: Object.fromEntries(
          Object.entries(raw.responses).map(([status, response]) => [
            status,
            Object.fromEntries(
              Object.entries(response.content ?? {}).map(([type, media]) => [
                type,
                media.schema ? resolve(media.schema) : undefined,
              ]),
            ),
          ]),
        ),
      });
    }
  }
  return operations;
}
