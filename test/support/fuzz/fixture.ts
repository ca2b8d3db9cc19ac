// The live system the fuzzer runs against: the real app (both APIs) on a throw-away FalkorDB and the Kubernetes
// API double with KubeBlocks clusters, the credentials it authenticates with, the hints that let generated
// requests reach real resources, and the guards that keep requests on this machine and off the fuzzer's own footing.
import fc from 'fast-check';
import { createClient } from 'redis';
import { ADMIN, login, startAdminTestApp, type AdminTestApp } from '../admin.js';
import { createDbUser, createToken, credentials } from '../browser.js';
import { CLUSTERS_V1, OPS_V1, replication, sharded, standalone } from '../kube/kubeblocks-fixtures.js';
import { startIdentityProvider } from '../oidc/identity-provider.js';
import { createHttpClient, type HttpClient } from './http-client.js';
import type { Operation } from './operations.js';
import type { Credentials, FuzzRequest } from './requests.js';
import type { GenerationContext } from './schema-arbitraries.js';
import type { RedisClient } from './state-snapshot.js';
import { WHOLE_BODY } from './valid-requests.js';
import { findFreePort } from '../../../src/platform/net.js';

export const NAMESPACE = 'graphdb-system';
export const KEPT_GRAPH = 'fuzz-kept';
export const SCRATCH_GRAPH = 'fuzz-scratch';
export const GRAPH_SEEDS: Record<string, string> = {
  [KEPT_GRAPH]:
    "CREATE (a:Person {name: 'a', age: 1})-[:KNOWS {since: 2020}]->(b:Person:Admin {name: 'b'}), (:Thing {tags: ['x', 'y'], score: 1.5, ok: true})",
  [SCRATCH_GRAPH]: 'CREATE (:Scratch)',
};
export const DB_USERS = { admin: 'fuzz-admin', reader: 'fuzz-reader', victim: 'fuzz-victim' } as const;
/** Database users the fuzzer must not delete or demote: it authenticates as them (default: the test's own view). */
export const PROTECTED_DB_USERS = new Set<string>(['default', DB_USERS.admin, DB_USERS.reader]);
export const VIEWER = { email: 'fuzz-viewer@corp.example', password: 'viewer-password-1' };
export const VICTIM_ADMIN = {
  email: 'fuzz-victim@corp.example',
  name: 'Victim',
  role: 'operator',
  password: 'victim-password-1',
} as const;
export const KUBE_RESOURCES = ['configmaps', 'secrets', OPS_V1, CLUSTERS_V1];
export const CLUSTERS = ['solo', 'pair', 'shards', 'sleepy'];

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost']);
const READ_QUERIES = [
  'RETURN 1',
  'MATCH (n) RETURN n',
  'MATCH (a)-[r]->(b) RETURN a, r, b',
  'MATCH p = ()-[]->() RETURN p',
  "RETURN [1, 'two', 3.5, true, null], {k: 'v'}",
  'RETURN 9007199254740993, -0.0, 1.0/0',
  "RETURN date('2024-02-29'), localtime('12:34:56'), localdatetime('2024-02-29T12:34:56'), duration('P1DT2H')",
  'RETURN point({latitude: 1.5, longitude: 2.5})',
  'MATCH (n:Person) WHERE n.age > 0 RETURN n.name ORDER BY n.name',
  'UNWIND range(1, 50) AS x RETURN x',
  'MATCH (n) RETURN count(n)',
  'CALL db.labels()',
  'RETURN $missing',
  'MATCH (n) RETURN n.`weird key`',
];

export interface Refs {
  adminTokenId: string;
  readerTokenId: string;
  victimTokenId: string;
  adminUserId: string;
  viewerUserId: string;
  victimAdminUserId: string;
}

export interface FuzzFixture {
  t: AdminTestApp;
  redis: RedisClient;
  /** Requests go over a real socket to the app listening on loopback. */
  http: HttpClient;
  credentials: Credentials;
  refs: Refs;
  /** A loopback port nothing listens on: token creation and OAuth discovery fail fast there instead of leaving the machine. */
  closedPort: number;
  close(): Promise<void>;
}

export function tokenIdOf(token: string): string {
  const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { jti?: string };
  if (!payload.jti) throw new Error('the token carries no jti');
  return payload.jti;
}

export async function seedGraph(redis: RedisClient, graph: string): Promise<void> {
  await redis.sendCommand(['GRAPH.QUERY', graph, GRAPH_SEEDS[graph]!]);
}

export async function createVictimAdmin(fixture: Pick<FuzzFixture, 't' | 'credentials'>): Promise<string> {
  const res = await fixture.t.app.inject({
    method: 'POST',
    url: '/api/users',
    headers: { cookie: fixture.credentials.cookie },
    payload: VICTIM_ADMIN,
  });
  if (res.statusCode !== 201) throw new Error(`cannot create the victim admin user: ${res.statusCode} ${res.body}`);
  // Admin users are named by e-mail.
  return res.json<{ email: string }>().email;
}

const ALPHA_CALLBACK = 'https://admin.corp.example/api/auth/oauth/alpha/callback';

export async function startFuzzFixture(): Promise<FuzzFixture> {
  const closedPort = await findFreePort();
  const nowhere = `http://127.0.0.1:${closedPort}`;
  // Provider alpha is a real (loopback) OpenID provider, configured from the environment, so sign-in starts reach it;
  // beta and the group directories point at a closed port: nothing leaves this machine.
  const alpha = await startIdentityProvider({
    clients: [{ client_id: 'alpha-client', client_secret: 'alpha-secret', redirect_uris: [ALPHA_CALLBACK] }],
  });
  const t = await startAdminTestApp('kubernetes', {
    kubeBlocks: true,
    crds: [CLUSTERS_V1, OPS_V1],
    env: {
      LOG_LEVEL: 'warn',
      // Event streams (pod logs, metrics) end after a second: the fuzzer reads every answer to its end.
      OBSERVABILITY_STREAM_MAX_SECONDS: '1',
      ALPHA_ISSUER: alpha.issuer,
      ALPHA_CLIENT_ID: 'alpha-client',
      ALPHA_CLIENT_SECRET: 'alpha-secret',
      ALPHA_REDIRECT_URI: ALPHA_CALLBACK,
      BETA_AUTHORITY: nowhere,
      ALPHA_DIRECTORY_URL: nowhere,
      BETA_GRAPH_URL: nowhere,
    },
  });
  const redis: RedisClient = createClient({ url: t.falkordb.url });
  await redis.connect();
  const http = createHttpClient(await t.app.listen({ host: '127.0.0.1', port: 0 }));
  try {
    for (const graph of Object.keys(GRAPH_SEEDS)) await seedGraph(redis, graph);
    await createDbUser(t.falkordb, DB_USERS.admin, `${DB_USERS.admin}-password`, 'Admin');
    await createDbUser(t.falkordb, DB_USERS.reader, `${DB_USERS.reader}-password`, 'Read-Only');
    await createDbUser(t.falkordb, DB_USERS.victim, `${DB_USERS.victim}-password`, 'Read-Only');
    const bearer = await createToken(
      t.app,
      credentials(t.falkordb, DB_USERS.admin, `${DB_USERS.admin}-password`, { name: 'fuzz admin' }),
    );
    const lesserBearer = await createToken(
      t.app,
      credentials(t.falkordb, DB_USERS.reader, `${DB_USERS.reader}-password`, { name: 'fuzz reader' }),
    );
    const victimBearer = await createToken(
      t.app,
      credentials(t.falkordb, DB_USERS.victim, `${DB_USERS.victim}-password`, { name: 'fuzz victim' }),
    );

    const kube = t.kube!;
    kube.put(CLUSTERS_V1, NAMESPACE, standalone('solo', NAMESPACE));
    kube.put(CLUSTERS_V1, NAMESPACE, replication('pair', NAMESPACE));
    kube.put(CLUSTERS_V1, NAMESPACE, sharded('shards', NAMESPACE));
    kube.put(CLUSTERS_V1, NAMESPACE, standalone('sleepy', NAMESPACE, 'Stopped'));
    kube.put(CLUSTERS_V1, 'team-b', standalone('elsewhere', 'team-b'));
    // metrics-server is installed here, so a valid metrics request succeeds (its absence, a 503, is tested in the
    // observability and real-API-server suites).
    kube.setMetricsApi(true);

    const cookie = await login(t.app, ADMIN.email, ADMIN.password);
    const oauthOn = await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/',
      headers: { cookie },
      payload: { features: { oauth2_enabled: true } },
    });
    if (oauthOn.statusCode !== 200) throw new Error(`cannot enable OAuth: ${oauthOn.body}`);
    const viewer = await t.app.inject({
      method: 'POST',
      url: '/api/users',
      headers: { cookie },
      payload: { ...VIEWER, name: 'Viewer', role: 'viewer' },
    });
    if (viewer.statusCode !== 201) throw new Error(`cannot create the viewer: ${viewer.body}`);
    const lesserCookie = await login(t.app, VIEWER.email, VIEWER.password);
    const credentialsSet: Credentials = { bearer, cookie, lesserBearer, lesserCookie };
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/validate', headers: { cookie } });
    const refs: Refs = {
      adminTokenId: tokenIdOf(bearer),
      readerTokenId: tokenIdOf(lesserBearer),
      victimTokenId: tokenIdOf(victimBearer),
      adminUserId: me.json<{ user: { email: string } }>().user.email,
      viewerUserId: viewer.json<{ email: string }>().email,
      victimAdminUserId: await createVictimAdmin({ t, credentials: credentialsSet }),
    };
    return {
      t,
      redis,
      http,
      credentials: credentialsSet,
      refs,
      closedPort,
      async close() {
        http.close();
        await redis.close();
        await t.close();
        await alpha.close();
      },
    };
  } catch (error) {
    http.close();
    await redis.close();
    await t.close();
    await alpha.close();
    throw error;
  }
}

/** Hint values per operation and field name; a function is resolved when the hint is drawn (ids change on repair). */
export function generationContext(fixture: FuzzFixture, op: Operation): GenerationContext {
  const { refs } = fixture;
  const port = String(fixture.t.falkordb.port);
  const hint = (values: unknown[]) => fc.constantFrom(...values);
  const lazy = (read: () => unknown) => fc.constant(null).map(read);
  const table: Record<string, fc.Arbitrary<unknown>> = {
    graph: hint([KEPT_GRAPH, SCRATCH_GRAPH, 'fuzz-new', 'fuzz new/é']),
    sourceName: hint([KEPT_GRAPH, SCRATCH_GRAPH, 'fuzz-missing']),
    node: hint(['0', '1', '2', '3', '99']),
    key: hint(['name', 'age', 'since', 'new_prop', 'with space']),
    label: hint(['Person', 'Admin', 'Thing', 'NewLabel']),
    query: hint(READ_QUERIES),
    timeout: hint(['0', '1000', '30000']),
    config: hint([
      'TIMEOUT',
      'TIMEOUT_DEFAULT',
      'TIMEOUT_MAX',
      'RESULTSET_SIZE',
      'MAX_QUEUED_QUERIES',
      'CMD_INFO',
      'QUERY_MEM_CAPACITY',
      'THREAD_COUNT',
      'NO_SUCH_CONFIG',
    ]),
    tokenId: fc.oneof(
      lazy(() => refs.victimTokenId),
      hint(['1700000000000-00000000-0000-4000-8000-000000000000']),
    ),
    user: hint([DB_USERS.victim, 'fuzz-missing-user']),
    username: hint([DB_USERS.victim, 'fuzz-new-user', 'fuzz-missing-user']),
    id: fc.oneof(
      lazy(() => refs.victimAdminUserId),
      hint(['00000000-0000-4000-8000-000000000000']),
    ),
    name:
      op.api === 'admin' && op.params.some((param) => param.name === 'name')
        ? hint([...CLUSTERS, 'elsewhere', 'missing'])
        : hint(['Fuzz Name', '  ', 'é']),
    clusterName: hint([...CLUSTERS, 'elsewhere', 'missing']),
    opsName: hint(['pair-restart-abcde', 'missing-ops']),
    namespace: hint([NAMESPACE, 'team-b', 'empty-ns']),
    component: hint(['falkordb', 'falkordb-sent', 'shard', 'nope']),
    componentName: hint(['falkordb', 'falkordb-sent', 'shard', 'nope']),
    instanceName: hint(['pair-falkordb-0', 'pair-falkordb-1', 'elsewhere-falkordb-0']),
    storage: hint(['30Gi', '1Gi', 'lots']),
    parameters: hint([
      [{ key: 'TIMEOUT', value: '1000' }],
      [
        { key: 'TIMEOUT', value: '2000' },
        { key: 'MAX_QUEUED_QUERIES', value: '10' },
      ],
      [{ key: 'THREAD_COUNT', value: null }],
      [{ key: 'UNKNOWN_PARAM', value: 'x' }],
      [],
    ]),
    provider: hint(['alpha', 'beta', 'gamma']),
    returnTo: hint(['/', '/clusters?x=1', 'https://elsewhere.example/', '//elsewhere.example']),
    email: fc.oneof(
      lazy(() => refs.victimAdminUserId),
      hint([ADMIN.email, VIEWER.email, 'nobody@corp.example']),
    ),
    host: hint(['127.0.0.1', 'localhost']),
    port: hint([port, String(fixture.closedPort)]),
  };
  const bodies: Record<string, unknown[]> = {
    createToken: [
      credentials(fixture.t.falkordb, DB_USERS.admin, `${DB_USERS.admin}-password`),
      credentials(fixture.t.falkordb, DB_USERS.reader, `${DB_USERS.reader}-password`, {
        ttlSeconds: 7200,
        name: 'fuzz short',
      }),
      credentials(fixture.t.falkordb, DB_USERS.admin, 'wrong-password'),
      credentials(fixture.t.falkordb, 'default', '', { expiresAt: '2999-01-01T00:00:00Z' }),
      credentials(fixture.t.falkordb, DB_USERS.admin, `${DB_USERS.admin}-password`, {
        expiresAt: '2000-01-01T00:00:00Z',
      }),
      credentials(fixture.t.falkordb, DB_USERS.admin, `${DB_USERS.admin}-password`, { tls: 'true' }),
    ],
    login: [
      { email: ADMIN.email, password: ADMIN.password },
      { email: ADMIN.email, password: 'wrong-password' },
      { email: VIEWER.email, password: VIEWER.password },
    ],
    createUser: [
      { username: 'fuzz-new-user', password: 'pw', role: 'Read-Write' },
      { username: DB_USERS.victim, password: 'pw', role: 'Admin' },
    ],
    deleteUsers: [
      { users: [{ username: DB_USERS.victim }] },
      { users: [{ username: 'fuzz-missing-user' }] },
      { users: [{ username: 'default' }] },
    ],
    patchSettings: [
      { features: { multi_cluster_mode: true } },
      { features: { multi_cluster_mode: false } },
      { oauth: { allowed_domains: ['corp.example'] } },
      {
        alpha_oauth: { client_id: 'fuzz-client', client_secret_secret_ref: 'fuzz-alpha', client_secret: 's3cret' },
        features: { oauth2_enabled: true },
      },
    ],
    createAdminUser: [
      { email: 'fuzz-new@corp.example', name: 'New', role: 'viewer', password: 'new-password-1' },
      { ...VICTIM_ADMIN },
    ],
    scaleCluster: [{ replicas: 3 }, { component: 'shard', shards: 4 }, { cpu: '1', memory: '1Gi' }, { replicas: 0 }],
  };
  return {
    hintsFor(name) {
      if (name === WHOLE_BODY) return bodies[op.id] ? hint(bodies[op.id]!) : undefined;
      return table[name];
    },
  };
}

function isHost(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= 253 && /^[^\s/?#@]+$/u.test(value);
}

/**
 * Keeps a request on this machine and off the fuzzer's own footing: token creation only ever connects to loopback
 * (the FalkorDB under test, or a closed port), and the database users and tokens the fuzzer authenticates with are
 * never the target of a deletion, demotion or revocation (the victims stand in for them).
 */
export function guard(fixture: FuzzFixture, request: FuzzRequest): FuzzRequest {
  const { op } = request;
  const body = request.body && 'json' in request.body ? request.body.json : undefined;
  const object =
    body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  if (op.id === 'createToken' && object) {
    const next = { ...object };
    if (isHost(next.host) && !LOOPBACK_HOSTS.has(next.host)) next.host = '127.0.0.1';
    // A token that expires during the run would change the token store behind a later case's back (its keys carry
    // PEXPIREAT): valid lifetimes shorter than the run are stretched; the refusals of bad ones are unaffected.
    if (typeof next.ttlSeconds === 'number' && next.ttlSeconds > 0 && next.ttlSeconds < 3600) next.ttlSeconds = 3600;
    const expiresAt = typeof next.expiresAt === 'string' ? Date.parse(next.expiresAt) : Number.NaN;
    if (expiresAt > Date.now() && expiresAt < Date.now() + 3_600_000)
      next.expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    // TLS against the plain FalkorDB port waits out the 5 s connect timeout: send it to the closed port, refused at once.
    if (typeof next.port === 'string' && (next.port !== String(fixture.t.falkordb.port) || next.tls === 'true'))
      next.port = String(fixture.closedPort);
    return { ...request, body: { json: next } };
  }
  if (op.id === 'updateUserRole' && request.path.user && PROTECTED_DB_USERS.has(request.path.user.value)) {
    return { ...request, path: { ...request.path, user: { value: DB_USERS.victim } } };
  }
  if (op.id === 'deleteUsers' && object && Array.isArray(object.users)) {
    const users = (object.users as unknown[]).map((entry) => {
      const name = entry && typeof entry === 'object' ? (entry as Record<string, unknown>).username : undefined;
      return typeof name === 'string' && name !== 'default' && PROTECTED_DB_USERS.has(name)
        ? { ...(entry as object), username: DB_USERS.victim }
        : entry;
    });
    return { ...request, body: { json: { ...object, users } } };
  }
  if (
    op.id === 'revokeToken' &&
    request.path.tokenId &&
    [fixture.refs.adminTokenId, fixture.refs.readerTokenId].includes(request.path.tokenId.value)
  ) {
    return { ...request, path: { ...request.path, tokenId: { value: fixture.refs.victimTokenId } } };
  }
  if (
    op.path.startsWith('/api/users/') &&
    request.path.email &&
    [fixture.refs.adminUserId, fixture.refs.viewerUserId].includes(request.path.email.value)
  ) {
    return { ...request, path: { ...request.path, email: { value: fixture.refs.victimAdminUserId } } };
  }
  return request;
}
