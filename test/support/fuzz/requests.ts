// One fuzz case as data (operation, variant, path/query/body, which credentials), turned into an HTTP request, and
// judged against the declared request schemas: does it violate them, so that the server must refuse it?
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import type { JsonSchema, Method, Operation } from './operations.js';

/** valid: the operation's own credentials; wrong-api: the other API's (a cookie for a Bearer route and vice versa). */
export type AuthMode = 'valid' | 'none' | 'garbage' | 'wrong-api' | 'lesser-role';

export type FuzzBody = { json: unknown } | { text: string; contentType: string };

export interface FuzzRequest {
  op: Operation;
  /** `valid`, or the name of the invalid variant that produced it. */
  variant: string;
  /** raw: put into the URL as it is (a URL-level trick such as `%2F` or `..`), not percent-encoded. */
  path: Record<string, { value: string; raw?: boolean }>;
  /** string values, or arrays for repeated parameters. */
  query: Record<string, unknown>;
  /** Appended verbatim to the query string. */
  rawQuery?: string;
  body?: FuzzBody;
  auth: AuthMode;
  accept?: string;
  /** A status the variant demands (e.g. 400 for a `__proto__` body, 413 for an oversized one). */
  expectStatus?: number;
}

export interface Credentials {
  bearer: string;
  cookie: string;
  /** A Read-Only token and a viewer session. */
  lesserBearer: string;
  lesserCookie: string;
}

export interface HttpRequest {
  method: Method;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

function stringify(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function urlOf(request: FuzzRequest): string {
  let url = request.op.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const param = request.path[name];
    if (!param) throw new Error(`no value for path parameter ${name}`);
    return param.raw ? param.value : encodeURIComponent(param.value);
  });
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(request.query)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, stringify(item));
  }
  const query = [search.toString(), request.rawQuery ?? ''].filter(Boolean).join('&');
  if (query) url += `?${query}`;
  return url;
}

export function toHttpRequest(request: FuzzRequest, credentials: Credentials): HttpRequest {
  const headers: Record<string, string> = {};
  const bearerRoute = request.op.security === 'bearer';
  switch (request.auth) {
    case 'valid':
      if (request.op.security === 'bearer') headers.authorization = `Bearer ${credentials.bearer}`;
      else if (request.op.security === 'cookie') headers.cookie = credentials.cookie;
      break;
    case 'lesser-role':
      if (request.op.security === 'bearer') headers.authorization = `Bearer ${credentials.lesserBearer}`;
      else if (request.op.security === 'cookie') headers.cookie = credentials.lesserCookie;
      break;
    case 'garbage':
      if (bearerRoute) headers.authorization = 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.not-a-signature';
      else headers.cookie = 'token=eyJhbGciOiJub25lIn0.eyJzdWIiOiJyb290In0.';
      break;
    case 'wrong-api':
      if (bearerRoute) headers.cookie = credentials.cookie;
      else headers.authorization = `Bearer ${credentials.bearer}`;
      break;
    case 'none':
      break;
  }
  if (request.accept) headers.accept = request.accept;
  let payload: string | undefined;
  if (request.body && 'json' in request.body) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(request.body.json) ?? 'null';
  } else if (request.body) {
    headers['content-type'] = request.body.contentType;
    payload = request.body.text;
  }
  return { method: request.op.method, url: urlOf(request), headers, ...(payload === undefined ? {} : { payload }) };
}

function clip(text: string, max = 160): string {
  return text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text;
}

/** A short, readable line for reports (fast-check prints counterexamples with it). */
export function describeRequest(request: FuzzRequest): string {
  const body =
    request.body === undefined
      ? ''
      : 'json' in request.body
        ? ` ${clip(JSON.stringify(request.body.json) ?? 'undefined')}`
        : ` [${request.body.contentType}] ${clip(JSON.stringify(request.body.text))}`;
  const extras = [
    request.auth === 'valid' ? '' : `auth=${request.auth}`,
    request.accept ? `accept=${request.accept}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return `${request.variant}: ${request.op.method} ${clip(urlOf(request), 200)}${body}${extras ? ` (${extras})` : ''}`;
}

/** Gives a generated request a compact printed form, so a failure report does not print megabytes. */
export function printable(request: FuzzRequest): FuzzRequest {
  Object.defineProperty(request, fc.toStringMethod, { value: () => describeRequest(request), enumerable: false });
  return request;
}

// Formats are left to the patterns zod emits beside them (email, uuid): ajv-formats would judge differently from zod.
const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false, unicodeRegExp: true });
const compiled = new WeakMap<JsonSchema, ValidateFunction>();
export function validatorFor(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

function schemaProblem(schema: JsonSchema, value: unknown, where: string): string | undefined {
  const validate = validatorFor(schema);
  if (validate(value)) return undefined;
  const error = validate.errors?.[0];
  return `${where}${error?.instancePath ?? ''} ${error?.message ?? 'is invalid'}`;
}

const GUARDED_FAILURES = new Set<AuthMode>(['none', 'garbage', 'wrong-api']);

/**
 * A query or path value is text on the wire; a parameter declared as a number is judged by the number the text
 * spells (as the server's coercion reads it), so `limit=1` meets `type: integer` and `limit=1.5` or `limit=x` do not.
 */
function asDeclared(schema: JsonSchema, value: unknown): unknown {
  const numeric = schema.type === 'integer' || schema.type === 'number';
  if (numeric && typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (schema.type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/**
 * The routes that also read a JSON body sent as `text/plain`, as the FalkorDB Browser's UI sends it
 * (docs/decisions/public-browser-ui-shapes.md). The document lists `application/json` only; a route missing here
 * that accepts `text/plain` still fails the fuzzer.
 */
const PLAIN_TEXT_JSON_OPERATIONS = new Set([
  'createEntity',
  'deleteEntity',
  'addLabel',
  'removeLabel',
  'setProperty',
  'removeProperty',
  'updateUserRole',
]);

/**
 * Why the request violates the operation's declared schemas or security, or undefined when it does not (or when
 * that cannot be told from the document, e.g. a raw URL trick that may route elsewhere).
 */
export function violation(request: FuzzRequest): string | undefined {
  const { op } = request;
  if (op.security !== 'none' && GUARDED_FAILURES.has(request.auth)) return `no valid ${op.security} credentials`;
  for (const param of op.params) {
    if (param.in === 'path') {
      const given = request.path[param.name];
      if (!given || given.raw) continue;
      const problem = schemaProblem(param.schema, asDeclared(param.schema, given.value), `path.${param.name}`);
      if (problem) return problem;
    } else {
      const value = request.query[param.name];
      if (value === undefined) {
        if (param.required) return `query.${param.name} is required`;
        continue;
      }
      const problem = schemaProblem(param.schema, asDeclared(param.schema, value), `query.${param.name}`);
      if (problem) return problem;
    }
  }
  if (!op.body || request.body === undefined) return undefined;
  if ('json' in request.body) return schemaProblem(op.body.schema, request.body.json, 'body');
  const plainTextJson = request.body.contentType.startsWith('text/plain') && PLAIN_TEXT_JSON_OPERATIONS.has(op.id);
  if (!request.body.contentType.startsWith('application/json') && !plainTextJson)
    return `body has Content-Type ${request.body.contentType}`;
  // An empty or blank JSON body is no body (docs/decisions/http-conventions.md): fine where the body is optional.
  if (request.body.text.trim() === '') return op.body.required ? 'body is required' : undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(request.body.text);
  } catch {
    return 'body is not valid JSON';
  }
  return schemaProblem(op.body.schema, parsed, 'body');
}
