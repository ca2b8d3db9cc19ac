// OpenAPI 3.1 generated from the zod route schemas: /api-spec.json, the optional /api-docs UI, (one file because the document, its UI and the error-response hook are one plugin)
// and the hook that adds each API's error responses to every route of that API.
import { SERVER_VERSION } from '../platform/build-info.js';
import type { FastifyInstance, RouteOptions } from 'fastify';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorSchemaFor, type ErrorShape } from './error-shapes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Error statuses this route answers beyond the ones every route can (400, 500, and 401/403 when guarded). */
    errorResponses?: number[];
    /** Headers a response carries that its body schema cannot say (documented in the OpenAPI document only). */
    responseHeaders?: Record<number, Record<string, string>>;
  }
}

/** The version of the FalkorDB Browser API the browser routes implement; the server's own version is package.json's. */
export const API_VERSION = '1.4.6';
/** What the two APIs are compatible with, stated apart from the server's version (info.x-compatibility). */
export const API_COMPATIBILITY = {
  browserApi: `FalkorDB Browser API ${API_VERSION}`,
  adminApi: 'FalkorDB Enterprise admin API',
} as const;
export const BEARER_SCHEME = 'bearerAuth';
export const COOKIE_SCHEME = 'cookieAuth';
/** The admin session's JWT sent as `Authorization: Bearer` instead of the cookie (scripts, Swagger UI's Try it out). */
export const SESSION_BEARER_SCHEME = 'sessionBearerAuth';
type SecurityScheme = typeof BEARER_SCHEME | typeof COOKIE_SCHEME | typeof SESSION_BEARER_SCHEME;

export interface OpenApiOptions {
  /** Serve the interactive browser at /api-docs. */
  docsUi: boolean;
  /** Asked on every request to /api-docs so a settings change can hide it without a restart. */
  docsUiAllowed?: () => boolean;
}

export async function registerOpenApi(app: FastifyInstance, options: OpenApiOptions): Promise<void> {
  // The server's own version (package.json), with the compatibility level of each API stated apart from it; a
  // variable rather than a literal, because the plugin's types do not list specification extensions.
  const info = {
    title: 'graphdb-server',
    description: `Graph browser API (Bearer personal access tokens) and administration API (cookie sessions) for FalkorDB. Compatible with the ${API_COMPATIBILITY.browserApi} and the ${API_COMPATIBILITY.adminApi}.`,
    version: SERVER_VERSION,
    'x-compatibility': API_COMPATIBILITY,
  };
  const optionalBodies = new Set<string>();
  const bodyLimits = new Map<string, number>();
  const bodyExamples = new Map<string, unknown[]>();
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info,
      // Relative: the document describes the server that serves it, whatever address it is reached at.
      servers: [{ url: '/', description: 'The server that serves this document' }],
      tags: [
        { name: 'ops', description: 'Liveness and readiness probes' },
        { name: 'tokens', description: 'Browser API: personal access tokens' },
        { name: 'graphs', description: 'Browser API: graphs and queries' },
        { name: 'nodes', description: 'Browser API: nodes, labels and properties' },
        { name: 'config', description: 'Browser API: database configuration' },
        { name: 'database-users', description: 'Browser API: database users (ACL users of FalkorDB)' },
        { name: 'server', description: 'Browser API: facts about the database server (version, info, memory, counts)' },
        { name: 'udf', description: 'Browser API: user-defined function libraries' },
        { name: 'Authentication', description: 'Admin API: local sign-in and sessions' },
        { name: 'OAuth', description: 'Admin API: sign-in through provider alpha or beta' },
        { name: 'Users', description: 'Admin API: admin users, keyed by e-mail' },
        { name: 'User Profile', description: 'Admin API: the signed-in user' },
        { name: 'Service Accounts', description: 'Admin API: identities for automation and their bearer tokens' },
        { name: 'Settings', description: 'Admin API: settings document' },
        { name: 'Clusters', description: 'Admin API: database deployments, their pods, logs, metrics and events' },
        {
          name: 'Cluster Operations',
          description: 'Admin API: operations on a deployment (restart, scale, configure…)',
        },
        { name: 'Backups', description: 'Admin API: backups of a deployment' },
        { name: 'Backup Policies', description: 'Admin API: backup policies of a deployment' },
        { name: 'Backup Schedules', description: 'Admin API: scheduled backups of a deployment' },
        { name: 'Backup Repositories', description: 'Admin API: where backups are stored' },
        { name: 'Restores', description: 'Admin API: restores and clones from backups' },
        { name: 'rbac', description: 'Admin API: roles and group-to-role mappings' },
        { name: 'audit', description: 'Admin API: the audit log' },
        { name: 'system', description: 'Admin API: facts about the platform (namespaces, versions, storage classes)' },
        { name: 'metrics', description: 'Admin API: system metrics' },
        { name: 'search', description: 'Admin API: search across deployments and users' },
        { name: 'licensing', description: 'Admin API: license status and activation' },
        { name: 'diagnostics', description: 'Admin API: health checks, diagnostics and support packages' },
      ],
      components: {
        securitySchemes: {
          [BEARER_SCHEME]: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'Personal access token (browser API)',
          },
          [COOKIE_SCHEME]: { type: 'apiKey', in: 'cookie', name: 'token', description: 'Session cookie (admin API)' },
          [SESSION_BEARER_SCHEME]: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description:
              'Admin API session as a bearer token: the `token` that `POST /api/auth/login` answers, sent as `Authorization: Bearer <token>` instead of the cookie. It is the same session (logout and expiry end it).',
          },
        },
      },
    },
    transform: (input: TransformInput) => {
      noteOptionalBody(input, optionalBodies);
      noteBodyLimit(input, app.initialConfig.bodyLimit, bodyLimits);
      noteBodyExamples(input, bodyExamples);
      return withResponseHeaders(zodTransform)(input);
    },
    transformObject: (input: Parameters<ReturnType<typeof createJsonSchemaTransformObject>>[0]) =>
      withoutUnusedComponents(
        withPublicSecurity(
          withoutClosedTupleItems(
            withBodyExamples(
              withBodyLimits(markOptionalBodies(zodTransformObject(input), optionalBodies), bodyLimits),
              bodyExamples,
            ),
          ),
        ),
      ),
  });

  app.get('/api-spec.json', { schema: { hide: true } }, () => app.swagger());

  // The server's root leads a person who typed only the address to the documentation, or says where the API
  // document is when the documentation UI is off.
  app.get('/', { schema: { hide: true } }, async (_request, reply) => {
    if (options.docsUi && (options.docsUiAllowed?.() ?? true)) return reply.redirect('/api-docs', 302);
    return reply.send({
      name: 'graphdb-server',
      version: SERVER_VERSION,
      compatibility: API_COMPATIBILITY,
      message: 'The API document is at /api-spec.json (the documentation UI at /api-docs is turned off).',
    });
  });

  if (options.docsUi) {
    const allowed = options.docsUiAllowed;
    // Its own scope, so the headers below apply to the page and its static files and nothing else.
    await app.register(async function docsUi(docs) {
      docs.addHook('onSend', async (_request, reply) => {
        for (const [name, value] of Object.entries(DOCS_UI_HEADERS)) void reply.header(name, value);
      });
      await docs.register(fastifySwaggerUi, {
        routePrefix: '/api-docs',
        uiHooks: allowed
          ? {
              onRequest: (_request, reply, done) => {
                if (allowed()) done();
                else void reply.callNotFound();
              },
            }
          : undefined,
      });
    });
  }
}

/**
 * Headers of every /api-docs response. The page loads its scripts and styles from /api-docs/static
 * (no inline script); Swagger UI sets style attributes at run time, hence 'unsafe-inline' for styles only, and
 * draws its icons from data: URLs. It fetches /api-spec.json and sends "try it out" requests to this origin only.
 */
export const DOCS_UI_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': [
    "default-src 'self'",
    "base-uri 'self'",
    "connect-src 'self'",
    "font-src 'self' data:",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "img-src 'self' data:",
    "object-src 'none'",
    "script-src 'self'",
    "script-src-attr 'none'",
    "style-src 'self' 'unsafe-inline'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
});

type SchemaTransform = ReturnType<typeof createJsonSchemaTransform>;
type TransformInput = Parameters<SchemaTransform>[0] & { route?: RouteOptions };

/** Every 429 says when to come back. */
const RETRY_AFTER = { 'retry-after': 'Seconds to wait before trying again' };

/**
 * The zod transform drops response headers; they are put back here from `config.responseHeaders`, and every 429
 * gets `Retry-After`, so the document says what the server sends.
 */
const zodTransform = createJsonSchemaTransform({});
const zodTransformObject = createJsonSchemaTransformObject({});

/** Routes whose body schema accepts no body at all: @fastify/swagger marks every request body required. */
function noteOptionalBody(input: TransformInput, optional: Set<string>): void {
  const schema: { body?: unknown; operationId?: string } | undefined = input.route?.schema;
  const body = schema?.body as { safeParse?: (value: unknown) => { success: boolean } } | undefined;
  if (schema?.operationId && typeof body?.safeParse === 'function' && body.safeParse(undefined).success)
    optional.add(schema.operationId);
}

/** Each route's body bound: its own `bodyLimit`, or the server-wide one (a larger body is answered 413). */
function noteBodyLimit(input: TransformInput, serverLimit: number | undefined, limits: Map<string, number>): void {
  const operationId = input.route?.schema?.operationId;
  const limit = input.route?.bodyLimit ?? serverLimit;
  if (operationId && limit !== undefined) limits.set(operationId, limit);
}

/**
 * States each request body's bound as `x-body-limit-bytes`, so a client can refuse an oversized body before
 * sending it (the bound differs between operations: a query body is larger than the rest).
 */
function withBodyLimits<T>(document: T, limits: Map<string, number>): T {
  const paths =
    (document as { paths?: Record<string, Record<string, { operationId?: string; requestBody?: object }>> }).paths ??
    {};
  for (const methods of Object.values(paths)) {
    for (const operation of Object.values(methods)) {
      const limit = operation.operationId ? limits.get(operation.operationId) : undefined;
      if (operation.requestBody && limit !== undefined)
        operation.requestBody = { ...operation.requestBody, 'x-body-limit-bytes': limit };
    }
  }
  return document;
}

/**
 * The examples a body schema's `.meta` gives. zod leaves them out of a schema's input form when any of its fields
 * transforms (it takes them for examples of the output), so QueryRequest, say, would lose them; they are examples
 * of what a client sends, so withBodyExamples puts them back on the request's media types.
 */
function noteBodyExamples(input: TransformInput, examples: Map<string, unknown[]>): void {
  const schema = input.route?.schema;
  if (!schema?.operationId || !(schema.body instanceof z.ZodType)) return;
  const given = z.globalRegistry.get(schema.body)?.examples;
  if (Array.isArray(given) && given.length > 0) examples.set(schema.operationId, given);
}

/** Gives each request body media type without an example the ones its schema's `.meta` declared. */
function withBodyExamples<T>(document: T, examples: Map<string, unknown[]>): T {
  type Media = { example?: unknown; examples?: Record<string, { value: unknown }> };
  const paths =
    (
      document as {
        paths?: Record<
          string,
          Record<string, { operationId?: string; requestBody?: { content?: Record<string, Media> } }>
        >;
      }
    ).paths ?? {};
  for (const methods of Object.values(paths)) {
    for (const operation of Object.values(methods)) {
      const given = operation.operationId ? examples.get(operation.operationId) : undefined;
      if (!given) continue;
      for (const media of Object.values(operation.requestBody?.content ?? {})) {
        if (media.example !== undefined || media.examples !== undefined) continue;
        if (given.length === 1) media.example = given[0];
        else media.examples = Object.fromEntries(given.map((value, index) => [`example${index + 1}`, { value }]));
      }
    }
  }
  return document;
}

/**
 * zod writes a tuple as `prefixItems` with `items: false`. That is valid JSON Schema 2020-12, but client generators
 * refuse it (openapi-python-client stops on the boolean schema); `minItems` and `maxItems` of the tuple's length
 * say the same (no item past the prefix), so the boolean is replaced by them throughout the document.
 */
export function withoutClosedTupleItems<T>(document: T): T {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const schema = node as Record<string, unknown>;
    if (Array.isArray(schema.prefixItems) && schema.items === false) {
      // An empty schema rather than none: linters (Spectral's array-items) want `items` beside `type: array`.
      schema.items = {};
      schema.minItems ??= schema.prefixItems.length;
      schema.maxItems ??= schema.prefixItems.length;
    }
    for (const value of Object.values(schema)) visit(value);
  };
  visit(document);
  return document;
}

type OperationMap = Record<string, Record<string, { security?: unknown[] }>>;

/**
 * A route outside the guarded scopes needs no credentials; `security: []` says so explicitly (an absent `security`
 * reads as "not said", which linters flag and some clients fill with a global default).
 */
export function withPublicSecurity<T>(document: T): T {
  const paths = (document as { paths?: OperationMap }).paths ?? {};
  for (const methods of Object.values(paths)) for (const operation of Object.values(methods)) operation.security ??= [];
  return document;
}

/**
 * The zod transform registers an input and an output schema for each named schema; only the ones an operation
 * reaches (directly or through another component) are kept, so the document lists no orphan types.
 */
export function withoutUnusedComponents<T>(document: T): T {
  const doc = document as { paths?: unknown; components?: { schemas?: Record<string, unknown> } };
  const schemas = doc.components?.schemas;
  if (!schemas) return document;
  const prefix = '#/components/schemas/';
  const reached = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(prefix)) {
        const name = decodeURIComponent(value.slice(prefix.length));
        if (!reached.has(name)) {
          reached.add(name);
          visit(schemas[name]);
        }
      } else visit(value);
    }
  };
  visit(doc.paths);
  for (const name of Object.keys(schemas)) if (!reached.has(name)) delete schemas[name];
  return document;
}

interface RequestBody {
  required?: boolean;
  content?: Record<string, { schema?: Record<string, unknown> }>;
}

/**
 * A body that may be absent says so with `required: false`. zod writes its "absent" as a `null` branch beside the
 * object (`anyOf: [object, null]`), which reads as "send JSON null" and makes generators do so (openapi-python-client
 * then puts its "unset" marker in the body); the branch is dropped, leaving the object schema.
 */
function markOptionalBodies<T>(document: T, optional: Set<string>): T {
  const paths =
    (document as { paths?: Record<string, Record<string, { operationId?: string; requestBody?: RequestBody }>> })
      .paths ?? {};
  for (const methods of Object.values(paths)) {
    for (const operation of Object.values(methods)) {
      if (!operation.operationId || !optional.has(operation.operationId) || !operation.requestBody) continue;
      operation.requestBody.required = false;
      for (const media of Object.values(operation.requestBody.content ?? {})) {
        if (media.schema) media.schema = withoutNullBranch(media.schema);
      }
    }
  }
  return document;
}

function withoutNullBranch(schema: Record<string, unknown>): Record<string, unknown> {
  const { anyOf, ...rest } = schema;
  if (!Array.isArray(anyOf)) return schema;
  const kept = anyOf.filter((branch: unknown) => (branch as { type?: unknown } | null)?.type !== 'null');
  if (kept.length === anyOf.length) return schema;
  if (kept.length === 1) return { ...(kept[0] as Record<string, unknown>), ...rest };
  return { ...rest, anyOf: kept };
}

function withResponseHeaders(transform: SchemaTransform) {
  return (input: TransformInput) => {
    const result = transform(input);
    const response = (result.schema as { response?: Record<string, Record<string, unknown>> }).response;
    if (!response) return result;
    const declared = input.route?.config?.responseHeaders ?? {};
    for (const [status, schema] of Object.entries(response)) {
      const headers = { ...(status === '429' ? RETRY_AFTER : {}), ...declared[Number(status)] };
      if (Object.keys(headers).length === 0) continue;
      const described = Object.fromEntries(
        Object.entries(headers).map(([name, description]) => [name, { type: 'string', description }]),
      );
      response[status] = { ...schema, headers: described };
    }
    return result;
  };
}

function isGuarded(route: RouteOptions): boolean {
  const security = (route.schema as { security?: unknown[] } | undefined)?.security;
  return Array.isArray(security) && security.length > 0;
}

/**
 * An onRoute hook for a guarded scope: the guard that enforces a scheme also documents it, so the OpenAPI
 * document cannot drift from what is enforced. Runs after the plugin's error-response hook, so it adds the
 * guard's own 401 and 403 too.
 */
export function stampSecurity(schemes: readonly SecurityScheme[], shape: ErrorShape) {
  const schema = errorSchemaFor(shape);
  return (route: RouteOptions): void => {
    if (!route.schema || (route.schema as { hide?: boolean }).hide) return;
    // Alternatives: any one of the schemes is enough.
    route.schema.security = schemes.map((scheme) => ({ [scheme]: [] }));
    const response = { ...(route.schema.response as Record<string, unknown> | undefined) };
    response[401] ??= schema;
    response[403] ??= schema;
    // An address that failed too many bearer tokens is refused before any route runs (service-accounts/token-throttle.ts).
    if (schemes.includes(SESSION_BEARER_SCHEME)) response[429] ??= schema;
    route.schema.response = Object.fromEntries(Object.entries(response).sort(([a], [b]) => Number(a) - Number(b)));
  };
}

/** An onRoute hook for one plugin: every route of that plugin documents (and serializes) errors in its shape. */
export function addErrorResponses(shape: ErrorShape) {
  const schema = errorSchemaFor(shape);
  return (route: RouteOptions): void => {
    if (!route.schema || (route.schema as { hide?: boolean }).hide) return;
    // 431: headers (or a request line) beyond Node's limit; 413: a body beyond BODY_LIMIT_BYTES; 408: a body not
    // received within REQUEST_TIMEOUT_MS; 503: not answered within it, or a store or database away.
    const statuses = new Set([
      400,
      431,
      500,
      503,
      ...(route.schema.body ? [408, 413] : []),
      ...(route.config?.errorResponses ?? []),
    ]);
    if (isGuarded(route)) {
      statuses.add(401);
      statuses.add(403);
    }
    const response = { ...(route.schema.response as Record<string, unknown> | undefined) };
    for (const status of [...statuses].sort((a, b) => a - b)) {
      response[status] ??= schema;
    }
    route.schema.response = response;
  };
}
