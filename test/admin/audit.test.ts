import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileAdminStores } from '../../src/platform/stores/file-stores.js';
import { ADMIN, login } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import {
  startTestFalkorDB,
  testEmbeddedDeployment,
  type TestEmbeddedDeployment,
  type TestFalkorDB,
} from '../support/falkordb.js';
import { eventually } from '../support/wait.js';

const DAY_MS = 86_400_000;
const NAMESPACE = 'graphdb-system';
const PLANTED_PASSWORD = 'PLANTED-password-8c1f';
const PLANTED_BEARER = 'PLANTED-bearer-token-5d2e';
const PLANTED_COOKIE = 'PLANTED-cookie-value-77aa';

interface LogEntry {
  userId: string;
  timestamp: string;
  action: string;
  resourceType?: string;
  resourceName?: string;
  result: 'success' | 'failure';
  message?: string;
  ip?: string;
  userAgent?: string;
}
interface LogPage {
  logs: LogEntry[];
  total: number;
  limit: number;
  offset: number;
}

describe('audit log', () => {
  let falkordb: TestFalkorDB;
  let deployment: TestEmbeddedDeployment;
  let dataDir: string;
  /** The servers' clock runs this far ahead of the real one. */
  let clockOffset = 0;
  const started: TestApp[] = [];
  let a: TestApp;
  let b: TestApp | undefined;
  let adminCookie: string;

  beforeAll(async () => {
    falkordb = await startTestFalkorDB();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-audit-'));
    deployment = testEmbeddedDeployment(falkordb, NAMESPACE);
    a = await replica();
    adminCookie = await login(a.app, ADMIN.email, ADMIN.password);
  });
  afterAll(async () => {
    for (const app of started) await app.close().catch(() => undefined);
    await deployment?.close();
    await falkordb?.stop();
  });

  /** A server over the shared store (the FalkorDB) and the shared user and settings files: one replica. */
  async function replica(): Promise<TestApp> {
    const app = await startTestApp({
      falkordb,
      env: { SETTINGS_REFRESH_MS: '0', PUBLIC_ORIGIN: 'https://admin.corp.example' },
      deps: {
        adminStores: createFileAdminStores(dataDir),
        firstAdmin: { email: ADMIN.email, password: ADMIN.password },
        now: () => Date.now() + clockOffset,
        clusters: deployment.clusters,
        auditPurgeIntervalMs: 100,
      },
    });
    started.push(app);
    return app;
  }

  const get = async (app: FastifyInstance, url: string, cookie = adminCookie) =>
    app.inject({ method: 'GET', url, headers: { cookie } });
  const auditPage = async (app: FastifyInstance, query = '', cookie = adminCookie) => {
    const res = await get(app, `/api/audit/${query ? `?${query}` : ''}`, cookie);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<LogPage>();
  };
  /** Entries are stored after the response: waits until `query` finds `count` (or more with atLeast). */
  async function waitFor(query: string, count: number, app = a.app): Promise<LogPage> {
    let page: LogPage | undefined;
    await eventually(
      async () => {
        page = await auditPage(app, query);
        return page.total >= count;
      },
      5000,
      { detail: () => `audit query ${query}: ${JSON.stringify(page)}` },
    );
    return page!;
  }

  const createdEmail = 'Auditee@corp.example';
  it('records creates, updates and deletes with actor, action, resource, result, message, ip and agent', async () => {
    const headers = {
      cookie: `${adminCookie}; other=${PLANTED_COOKIE}`,
      authorization: `Bearer ${PLANTED_BEARER}`,
      'user-agent': 'audit-test/1.0',
      'x-request-id': 'req-create-1',
    };
    const created = await a.app.inject({
      method: 'POST',
      url: '/api/users/',
      headers,
      payload: { email: 'Auditee@corp.example', name: 'Auditee', role: 'viewer', password: PLANTED_PASSWORD },
    });
    expect(created.statusCode, created.body).toBe(201);
    const duplicate = await a.app.inject({
      method: 'POST',
      url: '/api/users',
      headers,
      payload: { email: 'auditee@corp.example', name: 'Again', role: 'viewer', password: PLANTED_PASSWORD },
    });
    expect(duplicate.statusCode).toBe(409);
    const updated = await a.app.inject({
      method: 'PATCH',
      url: `/api/users/${encodeURIComponent(createdEmail)}`,
      headers,
      payload: { name: 'Renamed', role: 'operator' },
    });
    expect(updated.statusCode, updated.body).toBe(200);

    const page = await waitFor('resourceType=user', 3);
    expect(page.logs).toEqual([
      {
        userId: ADMIN.email,
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as unknown,
        action: 'user.update',
        resourceType: 'user',
        resourceName: createdEmail,
        result: 'success',
        message: 'OK',
        ip: '127.0.0.1',
        userAgent: 'audit-test/1.0',
      },
      expect.objectContaining({
        action: 'user.create',
        result: 'failure',
        message: 'User auditee@corp.example already exists',
      }) as unknown,
      expect.objectContaining({
        userId: ADMIN.email,
        action: 'user.create',
        resourceType: 'user',
        resourceName: 'Auditee@corp.example',
        result: 'success',
        message: 'Created',
      }) as unknown,
    ]);
    expect(page.logs[1]).not.toHaveProperty('resourceName');

    // One structured line per entry, with the request id.
    const line = a.logs.lines.find(
      (l) => l.audit === true && l.requestId === 'req-create-1' && l.action === 'user.create',
    );
    expect(line).toMatchObject({
      audit: true,
      msg: 'audit',
      userId: ADMIN.email,
      resourceName: 'Auditee@corp.example',
      namespace: NAMESPACE,
      result: 'success',
    });

    const removed = await a.app.inject({
      method: 'DELETE',
      url: `/api/users/${encodeURIComponent(createdEmail)}`,
      headers: { cookie: adminCookie },
    });
    expect(removed.statusCode).toBe(204);
    const after = await waitFor('action=user.delete', 1);
    expect(after.logs[0]).toMatchObject({ userId: ADMIN.email, resourceName: createdEmail, result: 'success' });
  });

  it('records refusals of signed-in users, and nothing for calls without a session', async () => {
    const viewer = await a.app.inject({
      method: 'POST',
      url: '/api/users',
      headers: { cookie: adminCookie },
      payload: { email: 'viewer@corp.example', name: 'Viewer', role: 'viewer', password: 'viewer-password-1' },
    });
    expect(viewer.statusCode).toBe(201);
    const viewerCookie = await login(a.app, 'viewer@corp.example', 'viewer-password-1');
    const refused = await a.app.inject({
      method: 'PATCH',
      url: '/api/settings/',
      headers: { cookie: viewerCookie },
      payload: { retention: { audit_log_retention_days: 5 } },
    });
    expect(refused.statusCode).toBe(403);
    const anonymous = await a.app.inject({ method: 'PATCH', url: '/api/settings', payload: {} });
    expect(anonymous.statusCode).toBe(401);
    const page = await waitFor('action=settings.update', 1);
    expect(page.logs).toEqual([
      expect.objectContaining({
        userId: 'viewer@corp.example',
        resourceType: 'settings',
        result: 'failure',
        message: `Insufficient permissions for settings:update in namespace ${NAMESPACE}`,
      }) as unknown,
    ]);
  });

  it('records successful and failed sign-ins, naming the attempted e-mail', async () => {
    await a.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: ADMIN.email, password: PLANTED_PASSWORD },
    });
    await a.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'Nobody@corp.example', password: PLANTED_PASSWORD },
    });
    // A password typed into the e-mail field is not an e-mail: the attempt is anonymous, the value not recorded.
    const typo = await a.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: PLANTED_PASSWORD, password: 'x' },
    });
    expect(typo.statusCode).toBe(401);
    // OAuth callbacks: refused as JSON, and as a browser redirect to /login?error=.
    const json = await a.app.inject({ method: 'GET', url: '/api/auth/oauth/alpha/callback?state=s&code=c' });
    expect(json.statusCode).toBe(400);
    const html = await a.app.inject({
      method: 'GET',
      url: '/api/auth/oauth/beta/callback?state=s&code=c',
      headers: { accept: 'text/html' },
    });
    expect(html.statusCode).toBe(302);

    const failures = await waitFor('action=auth.login&result=failure', 5);
    expect(
      failures.logs.map(({ userId, resourceType, resourceName, message }) => ({
        userId,
        resourceType,
        resourceName,
        message,
      })),
    ).toEqual([
      { userId: 'anonymous', resourceType: 'session', resourceName: 'beta', message: 'Sign-in failed: invalid_state' },
      { userId: 'anonymous', resourceType: 'session', resourceName: 'alpha', message: 'Invalid state parameter' },
      { userId: 'anonymous', resourceType: 'session', resourceName: 'local', message: 'Invalid email or password' },
      {
        userId: 'nobody@corp.example',
        resourceType: 'session',
        resourceName: 'local',
        message: 'Invalid email or password',
      },
      { userId: ADMIN.email, resourceType: 'session', resourceName: 'local', message: 'Invalid email or password' },
    ]);
    const successes = await auditPage(
      a.app,
      `action=auth.login&result=success&userId=${encodeURIComponent(ADMIN.email.toUpperCase())}`,
    );
    expect(successes.total).toBeGreaterThanOrEqual(1);
    expect(successes.logs[0]).toMatchObject({
      userId: ADMIN.email,
      result: 'success',
      message: 'OK',
      resourceName: 'local',
    });
  });

  it('filters by every field and the time, and pages', async () => {
    const all = await auditPage(a.app, 'limit=1000');
    expect(all.total).toBe(all.logs.length);
    expect(all.limit).toBe(1000);
    const times = all.logs.map((l) => l.timestamp);
    expect([...times].sort().reverse()).toEqual(times);

    const defaults = await auditPage(a.app);
    expect(defaults).toMatchObject({ limit: 100, offset: 0, total: all.total });
    const second = await auditPage(a.app, 'limit=2&offset=1');
    expect(second).toMatchObject({ total: all.total, limit: 2, offset: 1 });
    expect(second.logs).toEqual(all.logs.slice(1, 3));
    expect((await auditPage(a.app, `offset=${all.total}`)).logs).toEqual([]);

    for (const [query, keep] of [
      [`userId=viewer%40corp.example`, (l: LogEntry) => l.userId === 'viewer@corp.example'],
      ['action=user.create', (l: LogEntry) => l.action === 'user.create'],
      ['resourceType=session', (l: LogEntry) => l.resourceType === 'session'],
      ['resourceName=Auditee%40corp.example', (l: LogEntry) => l.resourceName === 'Auditee@corp.example'],
      ['result=failure', (l: LogEntry) => l.result === 'failure'],
      [
        `userId=${encodeURIComponent(ADMIN.email)}&result=success&resourceType=user`,
        (l: LogEntry) => l.userId === ADMIN.email && l.result === 'success' && l.resourceType === 'user',
      ],
    ] as const) {
      const page = await auditPage(a.app, `${query}&limit=1000`);
      const expected = all.logs.filter(keep);
      expect(expected.length, query).toBeGreaterThan(0);
      expect(page, query).toEqual({ logs: expected, total: expected.length, limit: 1000, offset: 0 });
      const paged = await auditPage(a.app, `${query}&limit=1&offset=${expected.length - 1}`);
      expect(paged.logs, query).toEqual(expected.slice(-1));
    }

    const today = new Date(Date.now() + clockOffset).toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() + clockOffset - DAY_MS).toISOString().slice(0, 10);
    expect((await auditPage(a.app, `startDate=${today}&endDate=${today}`)).total).toBe(all.total);
    expect((await auditPage(a.app, `endDate=${yesterday}`)).total).toBe(0);
    expect((await auditPage(a.app, `startDate=${today}&endDate=${yesterday}`)).total).toBe(0);
    const middle = all.logs[Math.floor(all.logs.length / 2)]!.timestamp;
    const since = await auditPage(a.app, `startDate=${encodeURIComponent(middle)}&limit=1000`);
    expect(since.logs).toEqual(all.logs.filter((l) => l.timestamp >= middle));
    const sinceFailures = await auditPage(a.app, `startDate=${encodeURIComponent(middle)}&result=failure&limit=1000`);
    expect(sinceFailures.logs).toEqual(all.logs.filter((l) => l.timestamp >= middle && l.result === 'failure'));
  });

  it('refuses bad filters (400) and callers without admin:list (403) or a session (401)', async () => {
    for (const query of [
      'limit=0',
      'limit=1001',
      'limit=abc',
      'offset=-1',
      // Digits only: Number() would read these as 0, 100, 3 and 16.
      'offset=',
      'limit=1e2',
      'offset=%203',
      'limit=0x10',
      'result=maybe',
      'startDate=yesterday',
      'endDate=2026-13-01',
      'userId=',
    ])
      expect((await get(a.app, `/api/audit/?${query}`)).statusCode, query).toBe(400);
    expect((await get(a.app, '/api/audit/?startDate=soon')).json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'startDate must be an ISO 8601 date or date-time',
      code: 'invalid_request',
    });
    const viewerCookie = await login(a.app, 'viewer@corp.example', 'viewer-password-1');
    const forbidden = await get(a.app, '/api/audit', viewerCookie);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      message: `Insufficient permissions for admin:list in namespace ${NAMESPACE}`,
      code: 'forbidden',
    });
    expect((await a.app.inject({ method: 'GET', url: '/api/audit/' })).statusCode).toBe(401);
  });

  it('shows a user only their own activity at /api/users/me/activity', async () => {
    const viewerCookie = await login(a.app, 'viewer@corp.example', 'viewer-password-1');
    let page: { activities: Record<string, unknown>[]; total: number; limit: number; offset: number } | undefined;
    await eventually(async () => {
      page = (await get(a.app, '/api/users/me/activity', viewerCookie)).json();
      return (page?.total ?? 0) >= 4;
    }, 5000);
    expect(page).toMatchObject({ limit: 50, offset: 0 });
    const mine = (await auditPage(a.app, 'userId=viewer%40corp.example&limit=1000')).logs;
    expect(page!.total).toBe(mine.length);
    expect(page!.activities).toEqual(
      mine.map(({ timestamp, action, resourceType, resourceName, result, message }) => ({
        timestamp,
        action,
        resourceType,
        ...(resourceName === undefined ? {} : { resourceName }),
        result,
        message,
      })),
    );
    const paged = (await get(a.app, '/api/users/me/activity/?limit=1&offset=1', viewerCookie)).json<typeof page>();
    expect(paged).toMatchObject({ limit: 1, offset: 1, total: mine.length, activities: [page!.activities[1]] });
    expect((await get(a.app, '/api/users/me/activity?limit=101', viewerCookie)).statusCode).toBe(400);
    expect((await a.app.inject({ method: 'GET', url: '/api/users/me/activity' })).statusCode).toBe(401);
  });

  it("lists a deployment's events: calls on it and what belongs to it, by anyone", async () => {
    const reconfigured = await a.app.inject({
      method: 'POST',
      url: '/api/clusters/embedded/ops/configure',
      headers: { cookie: adminCookie },
      payload: { parameters: [{ key: 'MAX_INFO_QUERIES', value: '777' }] },
    });
    expect(reconfigured.statusCode, reconfigured.body).toBe(202);
    const scaled = await a.app.inject({
      method: 'POST',
      url: `/api/clusters/embedded/ops/horizontal-scale?namespace=${NAMESPACE}`,
      headers: { cookie: adminCookie },
      payload: { replicas: 2 },
    });
    expect(scaled.statusCode).toBe(422);
    const viewerCookie = await login(a.app, 'viewer@corp.example', 'viewer-password-1');
    const url = `/api/clusters/embedded/events?namespace=${NAMESPACE}`;
    let page: LogPage | undefined;
    await eventually(async () => {
      page = (await get(a.app, url, viewerCookie)).json<LogPage>();
      return page.total >= 2;
    }, 5000);
    expect(page).toEqual({
      logs: [
        expect.objectContaining({
          userId: ADMIN.email,
          action: 'cluster.horizontal_scale',
          resourceType: 'cluster',
          resourceName: 'embedded',
          result: 'failure',
        }) as unknown,
        expect.objectContaining({
          action: 'cluster.configure',
          resourceName: 'embedded',
          result: 'success',
          message: 'Accepted',
        }) as unknown,
      ],
      total: 2,
      limit: 100,
      offset: 0,
    });
    expect((await get(a.app, `${url}&limit=1&offset=1`)).json<LogPage>().logs).toEqual([page!.logs[1]]);
    expect((await get(a.app, '/api/clusters/embedded/events')).statusCode).toBe(400);
    const ghost = await get(a.app, `/api/clusters/ghost/events?namespace=${NAMESPACE}`);
    expect(ghost.statusCode).toBe(404);
    expect(ghost.json()).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: `Cluster ghost not found in namespace ${NAMESPACE}`,
      code: 'not_found',
    });
    // Another namespace while multi_cluster_mode is off: not found, whatever is recorded.
    expect((await get(a.app, '/api/clusters/embedded/events?namespace=elsewhere')).statusCode).toBe(404);
  });

  it('records a sign-out under the user whose sessions it ended, and nothing for a cookie naming no session', async () => {
    // Its own user: a sign-out ends every session of the user, and the admin's is needed by the other tests.
    const created = await a.app.inject({
      method: 'POST',
      url: '/api/users/',
      headers: { cookie: adminCookie },
      payload: { email: 'leaver@corp.example', name: 'Leaver', role: 'viewer', password: 'leaver-password-1' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const cookie = await login(a.app, 'leaver@corp.example', 'leaver-password-1');
    const out = await a.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie } });
    expect(out.statusCode).toBe(200);
    const page = await waitFor('action=auth.logout', 1);
    expect(page.logs[0]).toMatchObject({
      userId: 'leaver@corp.example',
      action: 'auth.logout',
      resourceType: 'session',
      result: 'success',
    });
    // The same cookie again: its session is over, so this sign-out ended nothing and is not recorded; nor is one
    // without a cookie.
    await a.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie } });
    await a.app.inject({ method: 'POST', url: '/api/auth/logout' });
    // A later entry of the same recorder proves it has flushed past both calls.
    const before = (await auditPage(a.app, 'action=user.delete')).total;
    const removed = await a.app.inject({
      method: 'DELETE',
      url: '/api/users/leaver%40corp.example',
      headers: { cookie: adminCookie },
    });
    expect(removed.statusCode).toBe(204);
    await waitFor('action=user.delete', before + 1);
    expect((await auditPage(a.app, 'action=auth.logout')).total).toBe(1);
  });

  it('never records bodies, passwords, tokens or cookies: not in entries, not in the store, not in the log', async () => {
    await a.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { cookie: `token=${PLANTED_COOKIE}`, authorization: `Bearer ${PLANTED_BEARER}` },
    });
    const all = await auditPage(a.app, 'limit=1000');
    const store = createClient({ url: falkordb.url });
    await store.connect();
    try {
      const keys = await store.keys('graphdb:audit:*');
      const stored = await Promise.all(
        keys.map(async (key) =>
          (await store.type(key)) === 'string' ? await store.get(key) : JSON.stringify(await store.zRange(key, 0, -1)),
        ),
      );
      const sessionValue = adminCookie.split('=')[1]!;
      const auditLines = a.logs.lines.filter((l) => l.audit === true);
      expect(auditLines.length).toBeGreaterThanOrEqual(all.total);
      for (const [where, text] of [
        ['entries', JSON.stringify(all)],
        ['store', stored.join('\n') + keys.join('\n')],
        ['audit lines', JSON.stringify(auditLines)],
        ['whole log', a.logs.text],
      ] as const)
        for (const secret of [PLANTED_PASSWORD, PLANTED_BEARER, PLANTED_COOKIE, sessionValue, 'scrypt$'])
          expect(text.includes(secret), `${secret} in ${where}`).toBe(false);
    } finally {
      await store.close();
    }
  });

  it('is shared by replicas and survives a restart', async () => {
    b = await replica();
    const cookieB = await login(b.app, ADMIN.email, ADMIN.password);
    const onB = await b.app.inject({
      method: 'PATCH',
      url: '/api/settings/',
      headers: { cookie: cookieB, 'x-request-id': 'req-on-b' },
      payload: { features: { api_docs_enabled: true } },
    });
    expect(onB.statusCode, onB.body).toBe(200);
    const seenOnA = await waitFor('action=settings.update&result=success', 1, a.app);
    expect(seenOnA.logs[0]).toMatchObject({ userId: ADMIN.email, resourceType: 'settings' });
    expect(b.logs.lines.some((l) => l.audit === true && l.requestId === 'req-on-b')).toBe(true);
    const everything = await auditPage(a.app, 'limit=1000');
    expect(await auditPage(b.app, 'limit=1000', cookieB)).toEqual(everything);

    await a.close();
    started.splice(started.indexOf(a), 1);
    a = await replica();
    adminCookie = await login(a.app, ADMIN.email, ADMIN.password);
    const restarted = await waitFor('limit=1000', everything.total + 1);
    expect(restarted.logs.slice(-everything.total)).toEqual(everything.logs);
  });

  it('purges entries past retention.audit_log_retention_days from the log and every index', async () => {
    const patched = await a.app.inject({
      method: 'PATCH',
      url: '/api/settings/',
      headers: { cookie: adminCookie },
      payload: { retention: { audit_log_retention_days: 2 } },
    });
    expect(patched.statusCode).toBe(200);
    const before = (await waitFor('action=settings.update&result=success', 2)).total;
    expect(before).toBeGreaterThan(1);
    // One day on: nothing is old enough yet.
    clockOffset = DAY_MS;
    adminCookie = await login(a.app, ADMIN.email, ADMIN.password);
    const kept = await waitFor('limit=1000', 1);
    expect(kept.logs.filter((l) => Date.parse(l.timestamp) < Date.now())).not.toEqual([]);
    // Three days on: everything older than two days goes, the sign-in of a day ago's clock included.
    clockOffset = 3 * DAY_MS;
    adminCookie = await login(a.app, ADMIN.email, ADMIN.password);
    const cutoff = Date.now() + clockOffset - 2 * DAY_MS;
    await eventually(async () => {
      const page = await auditPage(a.app, 'limit=1000');
      return page.logs.every((l) => Date.parse(l.timestamp) >= cutoff) && page.total === page.logs.length;
    }, 5000);
    const left = await auditPage(a.app, 'limit=1000');
    expect(left.logs.map((l) => l.action)).toEqual(['auth.login']);

    // No index still names a purged entry.
    const store = createClient({ url: falkordb.url });
    await store.connect();
    try {
      const entryKeys = await store.keys('graphdb:audit:entry:*');
      const ids = new Set(entryKeys.map((key) => key.slice('graphdb:audit:entry:'.length)));
      expect(ids.size).toBe(left.total);
      const indexKeys = [...(await store.keys('graphdb:audit:by:*')), 'graphdb:audit:all'];
      for (const key of indexKeys)
        for (const id of await store.zRange(key, 0, -1)) expect(ids.has(id), `${id} in ${key}`).toBe(true);
      expect(await store.keys('graphdb:audit:by:action:user.create')).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
