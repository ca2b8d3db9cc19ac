// The conformance walk: every identity-and-access operation of the real admin API, called at its real
// path (both slash spellings) with a body built from the real request schema, must answer the real success status
// with a body the real response schema accepts (after this server's renames). Deliberate differences are listed in
// DEVIATIONS with their reason; anything else that does not match fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login, useAdminApp } from '../support/admin.js';
import {
  operationKey,
  pathSpellings,
  realOperations,
  sampleOf,
  validatorOf,
  type RealOperation,
} from '../support/conformance/real-operations.js';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { EMBEDDED_CLUSTER } from '../../src/platform/clusters/embedded-clusters.js';
import { createEmbeddedBackups, type EmbeddedBackups } from '../../src/platform/backups/embedded-backups.js';
import { createClient } from 'redis';
import {
  startTestFalkorDB,
  testEmbeddedDeployment,
  type TestEmbeddedDeployment,
  type TestFalkorDB,
} from '../support/falkordb.js';
import { startIdentityProvider, type IdentityProvider } from '../support/oidc/identity-provider.js';

const ORIGIN = 'https://admin.corp.example';
const ALPHA_CALLBACK = `${ORIGIN}/api/auth/oauth/alpha/callback`;

/** The tags of the identity-and-access part of the real API, and the one cluster operation that reads the audit log. */
const WALKED_TAGS = new Set([
  'System',
  'Authentication',
  'OAuth',
  'Users',
  'User Profile',
  'Settings',
  'Audit',
  'RBAC',
  'Diagnostics',
  'Licensing',
  'Metrics',
  'Search',
]);
const WALKED_EXTRA = new Set(['GET /api/clusters/{clusterName}/events']);

/** Where we answer differently on purpose (docs/decisions/conformance-walk.md says why); the walk checks that answer instead. */
const DEVIATIONS: Record<string, { status: number; reason: string; bodyIsNotJson?: boolean }> = {
  'POST /api/admin/licensing/activate': {
    status: 422,
    reason: 'this server needs no licence: activation is refused with a clear message',
  },
  'POST /api/admin/diagnostics/support-package': {
    status: 200,
    reason: 'the reference declares only its 500; the package is a zip',
    bodyIsNotJson: true,
  },
};

/** The data-protection tags, walked in embedded mode: RDB snapshots of the embedded FalkorDB. */
const BACKUP_TAGS = new Set(['Backup Repositories', 'Backups', 'Backup Policies', 'Backup Schedules', 'Restores']);
const EMBEDDED_ONLY = 'embedded mode keeps backups in DATA_DIR/backups';
const BACKUP_DEVIATIONS: Record<string, { status: number; reason: string }> = {
  'POST /api/backups/repositories/': { status: 422, reason: `${EMBEDDED_ONLY}: repositories are not managed here` },
  'GET /api/backups/repositories/{name}': { status: 404, reason: `${EMBEDDED_ONLY}: there is no repository to read` },
  'PATCH /api/backups/repositories/{name}': { status: 404, reason: `${EMBEDDED_ONLY}: there is no repository` },
  'DELETE /api/backups/repositories/{name}': { status: 404, reason: `${EMBEDDED_ONLY}: there is no repository` },
  'POST /api/clusters/{clusterName}/backups/policies/': {
    status: 422,
    reason: 'embedded mode has one built-in policy; no other can be added',
  },
  'DELETE /api/clusters/{clusterName}/backups/policies/{policyName}': {
    status: 422,
    reason: 'the built-in policy of embedded mode cannot be deleted',
  },
  'POST /api/clusters/{clusterName}/restores/clone': {
    status: 422,
    reason: 'a clone is a new deployment, which embedded mode cannot create',
  },
};

interface Call {
  path: Record<string, string>;
  query?: Record<string, string>;
  /** Replaces or adds top-level properties of the sample body. */
  body?: Record<string, unknown>;
  /** The session to send; none for a public operation. */
  cookie?: string;
  headers?: Record<string, string>;
}

let idp: IdentityProvider;
let falkordb: TestFalkorDB;
let admin: string;
let fixtureCount = 0;

async function request(method: string, url: string, cookie: string, payload?: unknown, headers = {}) {
  return t.app.inject({ method: method as 'GET', url, headers: { ...headers, cookie }, payload: payload as object });
}

/** A new local user with its own session: operations that end sessions or change the user get one each. */
async function newUser(role = 'viewer'): Promise<{ email: string; password: string; cookie: string }> {
  fixtureCount += 1;
  const email = `walker-${fixtureCount}@corp.example`;
  const password = `walker-password-${fixtureCount}`;
  const res = await request('POST', '/api/users/', admin, { email, name: `Walker ${fixtureCount}`, role, password });
  expect(res.statusCode, res.body).toBe(201);
  return { email, password, cookie: await login(t.app, email, password) };
}

async function newRole(): Promise<string> {
  fixtureCount += 1;
  const name = `walker-role-${fixtureCount}`;
  const res = await request('POST', '/api/rbac/roles', admin, {
    name,
    description: 'made by the conformance walk',
    rules: [{ resource: 'clusters', actions: ['list', 'get'] }],
  });
  expect(res.statusCode, res.body).toBe(201);
  return name;
}

async function newGroupMapping(): Promise<string> {
  fixtureCount += 1;
  const groupEmail = `walker-group-${fixtureCount}@corp.example`;
  const res = await request('POST', '/api/rbac/group-mappings', admin, {
    groupEmail,
    roleName: 'viewer',
    priority: 1,
  });
  expect(res.statusCode, res.body).toBe(201);
  return groupEmail;
}

/** How to call each operation: the fixtures it needs, made fresh for every call. */
const SCENARIOS: Record<string, () => Call | Promise<Call>> = {
  'GET /health': () => ({ path: {} }),
  'GET /ready': () => ({ path: {} }),
  'GET /api/auth/config': () => ({ path: {} }),
  'POST /api/auth/login': async () => {
    const user = await newUser();
    return { path: {}, body: { email: user.email, password: user.password } };
  },
  'POST /api/auth/logout': async () => ({ path: {}, cookie: (await newUser()).cookie }),
  'GET /api/auth/validate': () => ({ path: {}, cookie: admin }),
  'GET /api/auth/oauth/{provider}': () => ({ path: { provider: 'alpha' } }),
  // Without the state cookie the callback cannot succeed: a browser is sent back to the sign-in page with the reason.
  'GET /api/auth/oauth/{provider}/callback': () => ({
    path: { provider: 'alpha' },
    query: { code: 'not-a-code', state: 'not-the-state' },
    headers: { accept: 'text/html' },
  }),
  'GET /api/auth/oauth/callback': () => ({
    path: {},
    query: { code: 'not-a-code', state: 'not-the-state' },
    headers: { accept: 'text/html' },
  }),
  'GET /api/users/': () => ({ path: {}, query: { role: 'admin', status: 'active', page: '1', limit: '10' } }),
  'POST /api/users/': () => {
    fixtureCount += 1;
    return {
      path: {},
      body: { email: `created-${fixtureCount}@corp.example`, role: 'viewer', password: 'created-password-1' },
    };
  },
  'GET /api/users/{email}': async () => ({ path: { email: (await newUser()).email } }),
  'PATCH /api/users/{email}': async () => ({ path: { email: (await newUser()).email }, body: { name: 'Renamed' } }),
  'DELETE /api/users/{email}': async () => ({ path: { email: (await newUser()).email } }),
  'POST /api/users/{email}/reset-password': async () => ({ path: { email: (await newUser()).email } }),
  'GET /api/users/me/': async () => ({ path: {}, cookie: (await newUser()).cookie }),
  'PATCH /api/users/me/password': async () => {
    const user = await newUser();
    return {
      path: {},
      cookie: user.cookie,
      body: { currentPassword: user.password, newPassword: `${user.password}-changed` },
    };
  },
  'GET /api/users/me/activity': () => ({ path: {}, query: { limit: '10', offset: '0' } }),
  'GET /api/settings/': () => ({ path: {} }),
  'PATCH /api/settings/': () => ({ path: {}, body: { features: { api_docs_enabled: true } } }),
  'GET /api/audit/': () => ({ path: {}, query: { resourceType: 'user', result: 'success', limit: '50' } }),
  'GET /api/rbac/': () => ({ path: {} }),
  'PUT /api/rbac/': async () => {
    const current = await request('GET', '/api/rbac/', admin);
    expect(current.statusCode, current.body).toBe(200);
    return { path: {}, body: current.json<Record<string, unknown>>() };
  },
  'POST /api/rbac/reload': () => ({ path: {} }),
  'GET /api/rbac/roles': () => ({ path: {} }),
  'POST /api/rbac/roles': () => {
    fixtureCount += 1;
    return {
      path: {},
      body: { name: `walked-${fixtureCount}`, rules: [{ resource: 'clusters', actions: ['list'] }] },
    };
  },
  'GET /api/rbac/roles/{roleName}': async () => ({ path: { roleName: await newRole() } }),
  'PUT /api/rbac/roles/{roleName}': async () => ({
    path: { roleName: await newRole() },
    body: { rules: [{ resource: 'clusters', actions: ['get'] }] },
  }),
  'DELETE /api/rbac/roles/{roleName}': async () => ({ path: { roleName: await newRole() } }),
  'GET /api/rbac/group-mappings': () => ({ path: {} }),
  'POST /api/rbac/group-mappings': () => {
    fixtureCount += 1;
    return { path: {}, body: { groupEmail: `walked-${fixtureCount}@corp.example`, roleName: 'viewer', priority: 5 } };
  },
  'PUT /api/rbac/group-mappings/{groupEmail}': async () => ({
    path: { groupEmail: await newGroupMapping() },
    body: { roleName: 'operator', priority: 2 },
  }),
  'DELETE /api/rbac/group-mappings/{groupEmail}': async () => ({ path: { groupEmail: await newGroupMapping() } }),
  'GET /api/admin/diagnostics/': () => ({ path: {} }),
  'GET /api/admin/diagnostics/export': () => ({ path: {} }),
  'POST /api/admin/diagnostics/support-package': () => ({ path: {}, body: { issueDescription: 'walk' } }),
  'GET /api/admin/diagnostics/health': () => ({ path: {} }),
  'GET /api/admin/licensing/status': () => ({ path: {} }),
  'POST /api/admin/licensing/activate': () => ({ path: {} }),
  'GET /api/metrics/': () => ({ path: {} }),
  'GET /api/system/namespaces': () => ({ path: {} }),
  'GET /api/system/falkordb-versions': () => ({ path: {} }),
  'GET /api/system/storage-classes': () => ({ path: {} }),
  'GET /api/system/cluster-resources': () => ({ path: {} }),
  'GET /api/search/': () => ({ path: {}, query: { q: 'walker', limit: '10' } }),
  'GET /api/clusters/{clusterName}/events': () => ({
    path: { clusterName: EMBEDDED_CLUSTER },
    query: { namespace: 'graphdb-system' },
  }),
};

let backups: EmbeddedBackups;
let control: ReturnType<typeof createClient>;
let deployment: TestEmbeddedDeployment | undefined;
const NS = 'graphdb-system';
const onEmbedded = (extra: Record<string, string> = {}) => ({ clusterName: EMBEDDED_CLUSTER, ...extra });
const inNamespace = { namespace: NS };

/** A completed backup of the embedded deployment, made fresh. */
async function completedBackup(): Promise<string> {
  fixtureCount += 1;
  const name = `walk-backup-${fixtureCount}`;
  const res = await request('POST', `/api/clusters/${EMBEDDED_CLUSTER}/backups/`, admin, {
    backupName: name,
    backupMethod: 'datafile',
  });
  expect(res.statusCode, res.body).toBe(201);
  await backups.idle();
  return name;
}

async function newSchedule(): Promise<string> {
  fixtureCount += 1;
  const name = `walk-schedule-${fixtureCount}`;
  const res = await request('POST', `/api/clusters/${EMBEDDED_CLUSTER}/backups/schedules/`, admin, {
    scheduleName: name,
    frequency: '0 3 * * *',
    backupMethod: 'datafile',
  });
  expect(res.statusCode, res.body).toBe(201);
  return name;
}

/** A finished restore (the embedded FalkorDB restarted with the snapshot), made fresh. */
async function finishedRestore(): Promise<string> {
  const backup = await completedBackup();
  const res = await request('POST', `/api/clusters/${EMBEDDED_CLUSTER}/restores/`, admin, { backup: { name: backup } });
  expect(res.statusCode, res.body).toBe(201);
  await backups.idle();
  return res.json<{ name: string }>().name;
}

const BACKUP_SCENARIOS: Record<string, () => Call | Promise<Call>> = {
  'GET /api/backups/repositories/': () => ({ path: {} }),
  'POST /api/backups/repositories/': () => ({ path: {}, body: { name: 'walk-repo', storageProviderRef: 's3' } }),
  'GET /api/backups/repositories/{name}': () => ({ path: { name: 'walk-repo' } }),
  'PATCH /api/backups/repositories/{name}': () => ({ path: { name: 'walk-repo' } }),
  'DELETE /api/backups/repositories/{name}': () => ({ path: { name: 'walk-repo' } }),
  'POST /api/clusters/{clusterName}/cleanup/': () => ({
    path: onEmbedded(),
    query: { ...inNamespace, dryRun: 'true' },
  }),
  'GET /api/clusters/{clusterName}/backups/': () => ({ path: onEmbedded(), query: inNamespace }),
  'POST /api/clusters/{clusterName}/backups/': () => {
    fixtureCount += 1;
    return { path: onEmbedded(), body: { backupName: `walk-made-${fixtureCount}` } };
  },
  'GET /api/clusters/{clusterName}/backups/{backupName}': async () => ({
    path: onEmbedded({ backupName: await completedBackup() }),
    query: inNamespace,
  }),
  'DELETE /api/clusters/{clusterName}/backups/{backupName}': async () => ({
    path: onEmbedded({ backupName: await completedBackup() }),
    query: inNamespace,
  }),
  'GET /api/clusters/{clusterName}/backups/policies/': () => ({ path: onEmbedded(), query: inNamespace }),
  'POST /api/clusters/{clusterName}/backups/policies/': () => ({
    path: onEmbedded(),
    query: inNamespace,
    body: { policyName: 'walk-policy' },
  }),
  'GET /api/clusters/{clusterName}/backups/policies/{policyName}': () => ({
    path: onEmbedded({ policyName: 'embedded-falkordb-backup-policy' }),
    query: inNamespace,
  }),
  'DELETE /api/clusters/{clusterName}/backups/policies/{policyName}': () => ({
    path: onEmbedded({ policyName: 'embedded-falkordb-backup-policy' }),
    query: inNamespace,
  }),
  'GET /api/clusters/{clusterName}/backups/schedules/': () => ({ path: onEmbedded(), query: inNamespace }),
  'POST /api/clusters/{clusterName}/backups/schedules/': () => {
    fixtureCount += 1;
    return {
      path: onEmbedded(),
      body: { scheduleName: `walk-made-schedule-${fixtureCount}`, frequency: '@daily', backupMethod: 'datafile' },
    };
  },
  'GET /api/clusters/{clusterName}/backups/schedules/{scheduleName}': async () => ({
    path: onEmbedded({ scheduleName: await newSchedule() }),
    query: inNamespace,
  }),
  'PATCH /api/clusters/{clusterName}/backups/schedules/{scheduleName}': async () => ({
    path: onEmbedded({ scheduleName: await newSchedule() }),
    query: inNamespace,
    body: { retentionPeriod: '14d' },
  }),
  'DELETE /api/clusters/{clusterName}/backups/schedules/{scheduleName}': async () => ({
    path: onEmbedded({ scheduleName: await newSchedule() }),
    query: inNamespace,
  }),
  'GET /api/clusters/{clusterName}/restores/': () => ({ path: onEmbedded(), query: inNamespace }),
  // A dry run: the checks and the real answer, without restarting the database under the rest of the walk.
  'POST /api/clusters/{clusterName}/restores/': async () => ({
    path: onEmbedded(),
    query: inNamespace,
    body: { backup: { name: await completedBackup() }, dryRun: true },
  }),
  'GET /api/clusters/{clusterName}/restores/{restoreName}': async () => ({
    path: onEmbedded({ restoreName: await finishedRestore() }),
    query: inNamespace,
  }),
  'DELETE /api/clusters/{clusterName}/restores/{restoreName}': async () => ({
    path: onEmbedded({ restoreName: await finishedRestore() }),
    query: inNamespace,
  }),
  'POST /api/clusters/{clusterName}/restores/clone': async () => ({
    path: onEmbedded(),
    query: inNamespace,
    body: { newClusterName: 'walk-clone', backupName: await completedBackup() },
  }),
};

const walked = realOperations().filter(
  (operation) => WALKED_TAGS.has(operation.tag) || WALKED_EXTRA.has(operationKey(operation)),
);

/** The status the real API answers on success: its lowest declared 2xx or 3xx. */
function successStatus(operation: RealOperation): number {
  return Math.min(
    ...Object.keys(operation.responses)
      .map(Number)
      .filter((status) => status >= 200 && status < 400),
  );
}

function urlOf(template: string, call: Call): string {
  const path = template.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = call.path[name];
    if (value === undefined) throw new Error(`no value for path parameter ${name}`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams(call.query ?? {}).toString();
  return query ? `${path}?${query}` : path;
}

beforeAll(async () => {
  idp = await startIdentityProvider({
    clients: [{ client_id: 'alpha-client', client_secret: 'alpha-secret', redirect_uris: [ALPHA_CALLBACK] }],
  });
  // The embedded deployment, so that the cluster operations walked have a deployment to act on.
  falkordb = await startTestFalkorDB({ dataDir: await mkdtemp(path.join(os.tmpdir(), 'gdb-conformance-')) });
  deployment = testEmbeddedDeployment(falkordb, 'graphdb-system');
  control = createClient({ url: falkordb.url });
  control.on('error', () => undefined);
  await control.connect();
  backups = await createEmbeddedBackups({
    falkordb,
    dir: await mkdtemp(path.join(os.tmpdir(), 'gdb-conformance-backups-')),
    namespace: NS,
    cluster: EMBEDDED_CLUSTER,
    command: (args) => control.sendCommand(args),
    logger: pino({ level: 'silent' }),
    tickMs: 0,
  });
});
afterAll(async () => {
  await control?.quit().catch(() => undefined);
  await deployment?.close();
  await idp?.close();
  await falkordb?.stop();
});
const t = useAdminApp(() => ({
  falkordb,
  clusters: deployment!.clusters,
  backups,
  env: { PUBLIC_ORIGIN: ORIGIN, ALPHA_ISSUER: idp.issuer },
  roles: ['admin'],
}));
beforeAll(async () => {
  admin = t.sessions.admin;
  const configured = await request('PATCH', '/api/settings/', admin, {
    alpha_oauth: { client_id: 'alpha-client', client_secret_secret_ref: 'alpha-oauth', client_secret: 'alpha-secret' },
  });
  expect(configured.statusCode, configured.body).toBe(200);
});

describe('conformance with the real admin API: identity and access', () => {
  it('walks every operation of the identity-and-access groups', () => {
    expect(walked.length).toBe(46);
    expect(walked.map(operationKey).filter((key) => !SCENARIOS[key])).toEqual([]);
  });

  walk(walked, SCENARIOS, DEVIATIONS);
});

describe('conformance with the real admin API: data protection in embedded mode', () => {
  const walkedBackups = realOperations().filter((operation) => BACKUP_TAGS.has(operation.tag));
  it('walks every data-protection operation', () => {
    expect(walkedBackups.length).toBe(24);
    expect(walkedBackups.map(operationKey).filter((key) => !BACKUP_SCENARIOS[key])).toEqual([]);
  });
  walk(walkedBackups, BACKUP_SCENARIOS, BACKUP_DEVIATIONS);
});

function walk(
  operations: RealOperation[],
  scenarios: Record<string, () => Call | Promise<Call>>,
  deviations: Record<string, { status: number; reason: string; bodyIsNotJson?: boolean }>,
): void {
  for (const operation of operations) {
    const key = operationKey(operation);
    for (const spelling of pathSpellings(operation.path)) {
      it(`${operation.method} ${spelling}`, async () => {
        const call = await scenarios[key]!();
        const deviation = deviations[key];
        const status = deviation?.status ?? successStatus(operation);
        const isPublic = (operation.security ?? ['cookieAuth']).length === 0;
        const cookie = call.cookie ?? (isPublic ? '' : admin);
        const schema = operation.requestBody?.content['application/json'];
        const payload = schema ? sampleOf(schema, call.body) : call.body;
        const res = await request(operation.method, urlOf(spelling, call), cookie, payload, call.headers);
        expect(res.statusCode, res.body).toBe(status);
        if (status >= 400) {
          // The real API's keys, and this server's error code beside them.
          expect(Object.keys(res.json<object>()).sort()).toEqual(['code', 'error', 'message', 'statusCode']);
          return;
        }
        if (deviation?.bodyIsNotJson || status === 204) return;
        const responseSchema = operation.responses[String(status)]?.['application/json'];
        if (status === 302 || !responseSchema) return;
        const validate = validatorOf(responseSchema);
        const body: unknown = res.json();
        expect(validate(body), `${JSON.stringify(validate.errors)}\n${res.body}`).toBe(true);
      });
    }
  }
}
