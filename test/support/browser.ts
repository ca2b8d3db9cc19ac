// Helpers for browser API tests: real FalkorDB users made with ACL SETUSER, real tokens made through the endpoint.
import { get as httpGet, type ClientRequest } from 'node:http';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect } from 'vitest';
import { actorFor, type Actor } from './actor.js';
import { listen, startTestApp, type TestApp, type TestAppOptions } from './app.js';
import type { TestFalkorDB } from './falkordb.js';
import { QueryErrorLineSchema, QueryStreamErrorSchema } from '../../src/browser/graphs/schemas.js';

export type TestRole = 'Admin' | 'Read-Write' | 'Read-Only';

// The rules the browser API decisions list per role (the public FalkorDB Browser's), written out here on purpose
// rather than imported from src/browser/users/acl-rules.ts: users made this way stand for users another tool made,
// and the server must read their roles back; a change to src's rules must not change what the tests expect. src adds
// CLUSTER SLOTS, ASKING and WAIT, which the topology suites add where they need them.
const READ_ONLY_RULES = [
  'on',
  'resetkeys',
  '~*',
  'resetchannels',
  '-@all',
  '+graph.explain',
  '+graph.list',
  '+graph.ro_query',
  '+graph.info',
  '+graph.memory',
  '+module|list',
  '+ping',
  '+hello',
  '+info',
  '+dump',
  '+exists',
  '+ttl',
  '+pttl',
  '+expiretime',
];
export const RULES: Record<TestRole, string[]> = {
  'Read-Only': READ_ONLY_RULES,
  'Read-Write': [
    ...READ_ONLY_RULES,
    '+graph.delete',
    '+graph.query',
    '+graph.profile',
    '+graph.constraint',
    '+graph.bulk',
    '+graph.copy',
    '+graph.udf',
    '+expire',
    '+pexpire',
    '+restore',
    '+rename',
    '+renamenx',
  ],
  Admin: ['on', 'resetkeys', '~*', '&*', '+@all'],
};

/** A direct client as the default (all-powerful) user: the test's own view of what is stored. */
export async function adminClient(falkordb: TestFalkorDB) {
  const client = createClient({ url: falkordb.url });
  await client.connect();
  return client;
}

export async function createDbUser(
  falkordb: TestFalkorDB,
  username: string,
  password: string,
  role: TestRole,
): Promise<void> {
  const client = await adminClient(falkordb);
  try {
    await client.sendCommand(['ACL', 'SETUSER', username, 'reset', ...RULES[role], `>${password}`]);
  } finally {
    await client.close();
  }
}

export function credentials(
  falkordb: TestFalkorDB,
  username: string,
  password: string,
  extra: Record<string, unknown> = {},
) {
  return { username, password, host: falkordb.host, port: String(falkordb.port), tls: 'false', ...extra };
}

export async function createToken(app: FastifyInstance, body: Record<string, unknown>): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/auth/tokens/credentials', payload: body });
  expect(res.statusCode, res.body).toBe(200);
  const json = res.json<{ message: string; token: string }>();
  return json.token;
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** An `error` event or line must carry the code, beside its message and status, whichever test reads it. */
function expectStreamError(value: unknown, schema: typeof QueryStreamErrorSchema | typeof QueryErrorLineSchema) {
  const checked = schema.safeParse(value);
  expect(checked.success, `a stream's error without its message, status or code: ${JSON.stringify(value)}`).toBe(true);
}

/** Parses an NDJSON body into its lines, checking its error line against the document's QueryErrorLine. */
export function parseLines(body: string): Record<string, unknown>[] {
  expect(body === '' || body.endsWith('\n'), 'an NDJSON body ends with a newline').toBe(true);
  const lines = body
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  for (const line of lines) if (line.type === 'error') expectStreamError(line, QueryErrorLineSchema);
  return lines;
}

/** Parses an SSE body into its events, checking an `error` event against the document's QueryStreamError. */
export function parseEvents(body: string): { event: string; data: unknown }[] {
  const events = body
    .split('\n\n')
    .filter((block) => block.split('\n').some((line) => line.startsWith('event:')))
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((line) => line.startsWith('event: '))!.slice(7);
      const data = lines
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      return { event, data: JSON.parse(data) as unknown };
    });
  for (const { event, data } of events) if (event === 'error') expectStreamError(data, QueryStreamErrorSchema);
  return events;
}

export function bodyOf(res: LightMyRequestResponse): Record<string, unknown> {
  return res.json<Record<string, unknown>>();
}

export interface RoleTokens {
  Admin: string;
  'Read-Write': string;
  'Read-Only': string;
}

/** One real FalkorDB user per role, and a token for each made through the endpoint. */
export async function tokensForEveryRole(
  app: FastifyInstance,
  falkordb: TestFalkorDB,
  prefix = 'u',
  roles: readonly TestRole[] = ['Admin', 'Read-Write', 'Read-Only'],
): Promise<RoleTokens> {
  const tokens: Partial<RoleTokens> = {};
  for (const role of roles) {
    const username = `${prefix}-${role.toLowerCase()}`;
    await createDbUser(falkordb, username, `${username}-password`, role);
    tokens[role] = await createToken(app, credentials(falkordb, username, `${username}-password`));
  }
  return tokens as RoleTokens;
}

export interface BrowserAppOptions extends TestAppOptions {
  /** Starts the names of the role users: `graphs` makes graphs-admin, graphs-read-write and graphs-read-only. */
  prefix?: string;
  /** Also listen on loopback, for the actors' fetch(). */
  listen?: boolean;
  /**
   * The roles to make a database user and a token for (all three when not given); `[]` for suites that count users
   * or tokens, or token creations, from a fresh start.
   */
  roles?: readonly TestRole[];
}

/** The app of a browser suite (read its fields inside tests and hooks), and requests as each role. */
export interface BrowserApp extends Omit<TestApp, 'close'> {
  tokens: RoleTokens;
  /** With `listen: true`: where the app listens (empty otherwise). */
  baseUrl: string;
  /** Requests with the token of a real FalkorDB user of that role. */
  as(role: TestRole): Actor;
  /** Requests with any other token, e.g. of a user the test made itself. */
  withToken(token: string): Actor;
  /** Requests without a token. */
  anonymous: Actor;
}

/**
 * Starts the app and a token per role in beforeAll, and closes it in afterAll. Options that depend on what an earlier
 * beforeAll made (a FalkorDB) are given as a function, called when the app starts.
 */
export function useBrowserApp(options: BrowserAppOptions | (() => BrowserAppOptions) = {}): BrowserApp {
  let started: TestApp | undefined;
  const actor = (identity: () => Record<string, string>) =>
    actorFor({ app: () => handle.app, identity, baseUrl: () => handle.baseUrl });
  const handle = {
    baseUrl: '',
    as: (role: TestRole) => actor(() => bearer(handle.tokens[role])),
    withToken: (token: string) => actor(() => bearer(token)),
    anonymous: actor(() => ({})),
  } as BrowserApp;
  beforeAll(async () => {
    const { prefix, listen: listening, roles, ...appOptions } = typeof options === 'function' ? options() : options;
    started = await startTestApp(appOptions);
    Object.assign(handle, started);
    handle.tokens = await tokensForEveryRole(started.app, started.falkordb, prefix, roles);
    if (listening) handle.baseUrl = await listen(started.app);
  });
  afterAll(() => started?.close());
  return handle;
}

/** What FalkorDB holds right now, as the all-powerful default user sees it: graphs and users. */
export async function databaseSnapshot(falkordb: TestFalkorDB): Promise<{ graphs: string[]; users: string[] }> {
  const client = await adminClient(falkordb);
  try {
    const graphs = (await client.sendCommand<string[]>(['GRAPH.LIST'])).sort();
    const users = (await client.sendCommand<string[]>(['ACL', 'USERS'])).sort();
    return { graphs, users };
  } finally {
    await client.close();
  }
}

export async function graphQuery(falkordb: TestFalkorDB, graph: string, query: string): Promise<unknown[]> {
  const client = await adminClient(falkordb);
  try {
    const reply = await client.sendCommand<unknown[]>(['GRAPH.QUERY', graph, query]);
    return (reply.length === 3 ? reply[1] : []) as unknown[];
  } finally {
    await client.close();
  }
}

/**
 * A GET over a fresh socket (no agent) that the test can abort: global fetch keeps spare connections open after
 * an abort, which would hold up the server's close until its headers timeout.
 */
export function abortableGet(
  url: string,
  headers: Record<string, string>,
): { abort: () => void; done: Promise<string> } {
  let request: ClientRequest | undefined;
  const done = new Promise<string>((resolve, reject) => {
    request = httpGet(url, { headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(body));
      res.on('error', reject);
    });
    request.on('error', reject);
  });
  return { abort: () => request?.destroy(new Error('aborted by the test')), done };
}

/** How many times the store behind `client` was asked for a token record (HGETALL) while `work` ran. */
export async function storeReadsDuring(
  client: Awaited<ReturnType<typeof adminClient>>,
  work: () => Promise<void>,
): Promise<number> {
  const calls = async () => Number(/cmdstat_hgetall:calls=(\d+)/.exec(await client.info('commandstats'))?.[1] ?? 0);
  const before = await calls();
  await work();
  return (await calls()) - before;
}

/** A multipart/form-data body with one file field, as a browser's FormData sends it. */
export function multipartFile(
  filename: string,
  content: string | Buffer,
): { payload: Buffer; headers: Record<string, string> } {
  const boundary = '----graphdb-test-boundary';
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    Buffer.isBuffer(content) ? content : Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** Stages `content` as `filename` through POST /api/upload with `token`; asserts 200 and answers the file's id. */
export async function stageUpload(
  app: FastifyInstance,
  token: string,
  filename: string,
  content: string | Buffer,
): Promise<string> {
  const { payload, headers } = multipartFile(filename, content);
  const res = await app.inject({
    method: 'POST',
    url: '/api/upload',
    payload,
    headers: { ...headers, ...bearer(token) },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ fileId: string }>().fileId;
}
