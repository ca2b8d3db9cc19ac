// Every response an integration test receives from the app is checked against openapi/openapi.json: its status must
// be declared for the operation, its media type declared for that status, and a JSON body must match the schema
// declared for both. startTestApp installs the check on every app it builds (an onSend hook, so inject() and real
// HTTP are both covered, and a new route needs no new code); a server started as a child process
// (test/support/server-process.ts) installs it through test/support/response-contract-child.ts and reports what it
// finds on stderr. test/support/response-contract-setup.ts fails the test during which a mismatch was recorded.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

interface MediaType {
  schema?: unknown;
}
interface Response {
  content?: Record<string, MediaType>;
}
interface Operation {
  responses?: Record<string, Response>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
}

export interface ObservedResponse {
  method: string;
  /** The route as Fastify declares it (`/api/graph/:graph`). */
  route: string;
  status: number;
  contentType: string | undefined;
  /** The serialized body, or undefined when it is a stream (only its status and media type are checked). */
  body: string | undefined;
}

// The file scripts/export-openapi.ts writes (not imported from there: that would load the whole app into a child
// process before its own start).
const OPENAPI_FILE = fileURLToPath(new URL('../../openapi/openapi.json', import.meta.url));

/** Where a child process writes a mismatch, on a stderr line of its own (test/support/response-contract-child.ts). */
export const MISMATCH_LINE_PREFIX = 'response-contract-mismatch: ';

let document: Document | undefined;
let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();
const mismatches: string[] = [];

function load(): { document: Document; ajv: Ajv2020 } {
  if (!document || !ajv) {
    document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as Document;
    // OpenAPI 3.1 schemas are JSON Schema 2020-12; `example` and the document's own keys are not schema keywords.
    ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats.default(ajv);
    ajv.addSchema(document, 'openapi');
  }
  return { document, ajv };
}

const pointer = (...parts: string[]) => parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** `/api/graph/:graph` → `/api/graph/{graph}`. */
export function documentPath(route: string): string {
  return route.replace(/:(\w+)/g, '{$1}');
}

/** What is wrong with one response, or undefined when the document describes it (or does not describe the route). */
export function contractMismatch(observed: ObservedResponse): string | undefined {
  const { document: doc, ajv: validator } = load();
  const path = documentPath(observed.route);
  const method = observed.method.toLowerCase();
  const operation = doc.paths[path]?.[method];
  // Routes the document hides (the documentation UI, the API document itself) and HEAD answered by a GET route.
  if (!operation) return undefined;
  const where = `${observed.method} ${path} answered ${observed.status}`;
  const statuses = operation.responses ?? {};
  const statusKey = [String(observed.status), `${String(observed.status)[0]}XX`, 'default'].find(
    (key) => key in statuses,
  );
  if (!statusKey) return `${where}, a status the document does not declare (${Object.keys(statuses).join(', ')})`;
  const content = statuses[statusKey]!.content;
  // Fastify sends no body with 204 or 304, whatever the handler passed.
  const empty =
    observed.status === 204 ||
    observed.status === 304 ||
    observed.body === '' ||
    (observed.body === undefined && observed.contentType === undefined);
  if (!content || Object.keys(content).length === 0) {
    return empty
      ? undefined
      : `${where} with a ${observed.contentType ?? 'untyped'} body the document does not declare`;
  }
  if (empty) return undefined;
  const mediaType = (observed.contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
  const declared = Object.keys(content).find((name) => name.toLowerCase() === mediaType);
  if (!declared) return `${where} as ${mediaType || 'no media type'}, not one of ${Object.keys(content).join(', ')}`;
  const isJson = mediaType === 'application/json' || mediaType.endsWith('+json');
  if (!isJson || observed.body === undefined || content[declared]!.schema === undefined) return undefined;
  // A schema that only names a component (the error shapes on every operation) is compiled once for all of them.
  const schema = content[declared]!.schema as { $ref?: unknown };
  const ref =
    typeof schema.$ref === 'string' && Object.keys(schema).length === 1
      ? `openapi${schema.$ref}`
      : `openapi#/${pointer('paths', path, method, 'responses', statusKey, 'content', declared, 'schema')}`;
  let validate = validators.get(ref);
  if (!validate) {
    validate = validator.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  let body: unknown;
  try {
    body = JSON.parse(observed.body);
  } catch {
    return `${where} as ${mediaType} with a body that is not JSON: ${observed.body.slice(0, 200)}`;
  }
  if (validate(body)) return undefined;
  const errors = (validate.errors ?? [])
    .slice(0, 5)
    .map((error) => `${error.instancePath || '/'} ${error.message ?? 'is invalid'} ${JSON.stringify(error.params)}`);
  return `${where}: the body does not match the schema for ${statusKey} ${declared}: ${errors.join('; ')} — body: ${observed.body.slice(0, 300)}`;
}

/** Records a mismatch found elsewhere (in a child process) for the test under way. */
export function recordContractMismatch(mismatch: string): void {
  mismatches.push(mismatch);
}

/** Installs the check on an app before it is ready. */
export function checkResponsesAgainstDocument(
  app: FastifyInstance,
  report: (mismatch: string) => void = recordContractMismatch,
): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const route = request.routeOptions.url;
    if (route === undefined) return payload;
    const body =
      typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
    const contentType = reply.getHeader('content-type');
    const mismatch = contractMismatch({
      method: request.method,
      route,
      status: reply.statusCode,
      contentType: contentType === undefined ? undefined : String(contentType),
      body: payload === null || payload === undefined ? '' : body,
    });
    if (mismatch) report(mismatch);
    return payload;
  });
}

/** The mismatches recorded since the last call, which forgets them. */
export function takeContractMismatches(): string[] {
  return mismatches.splice(0, mismatches.length);
}
