// The audit store (the shared token store) goes away while admins write. Every write acknowledged meanwhile is in the
// audit log once the store is back; with AUDIT_STORE_REQUIRED, writes are refused with 503 instead and none is made.
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileAdminStores } from '../../src/platform/stores/file-stores.js';
import { ADMIN, login } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { startTestFalkorDB, type TestFalkorDB } from '../support/falkordb.js';
import { eventually } from '../support/wait.js';

const started: { app: TestApp; store: TestFalkorDB }[] = [];
afterAll(async () => {
  for (const { app, store } of started) {
    await app.close();
    await store.stop();
  }
});

/** A server whose audit log lives in a persistent shared store (as a real token store is), and an admin session. */
async function serverWithAuditStore(env: Record<string, string> = {}) {
  const store = await startTestFalkorDB({ dataDir: await mkdtemp(path.join(os.tmpdir(), 'gdb-audit-store-')) });
  const app = await startTestApp({
    tokenStore: store,
    env: { SETTINGS_REFRESH_MS: '0', PUBLIC_ORIGIN: 'https://admin.corp.example', ...env },
    deps: {
      adminStores: createFileAdminStores(await mkdtemp(path.join(os.tmpdir(), 'gdb-audit-files-'))),
      firstAdmin: { email: ADMIN.email, password: ADMIN.password },
    },
  });
  started.push({ app, store });
  const cookie = await login(app.app, ADMIN.email, ADMIN.password);
  return { store, t: app, cookie };
}

function createUser(app: FastifyInstance, cookie: string, email: string) {
  return app.inject({
    method: 'POST',
    url: '/api/users/',
    headers: { cookie },
    payload: { email, name: email, role: 'viewer', password: 'viewer-password-1' },
  });
}

async function auditedUserCreations(app: FastifyInstance, cookie: string): Promise<string[]> {
  const res = await app.inject({
    method: 'GET',
    url: '/api/audit/?resourceType=user&limit=1000',
    headers: { cookie },
  });
  if (res.statusCode !== 200) return [];
  return res
    .json<{ logs: { action: string; resourceName?: string }[] }>()
    .logs.filter((entry) => entry.action === 'user.create')
    .map((entry) => entry.resourceName ?? '');
}

describe('an outage of the audit store', () => {
  it('keeps the entries of writes acknowledged meanwhile and stores them all once it is back', async () => {
    const { store, t, cookie } = await serverWithAuditStore();
    process.kill(store.pid, 'SIGKILL');
    const acknowledged: string[] = [];
    for (let i = 0; i < 40; i++) {
      const email = `during-outage-${i}@corp.example`;
      const res = await createUser(t.app, cookie, email);
      // The users live in files: the writes themselves succeed while the audit store is away.
      expect(res.statusCode, res.body).toBe(201);
      acknowledged.push(email);
    }
    // Past the first retry pauses: the entries are kept through several failed attempts.
    await eventually(
      () => t.logs.lines.some((l) => String(l.msg).startsWith('audit entries cannot be stored')),
      10_000,
    );

    await store.restart();
    let audited: string[] = [];
    await eventually(
      async () => {
        audited = await auditedUserCreations(t.app, cookie);
        return acknowledged.every((email) => audited.includes(email));
      },
      20_000,
      { detail: () => `audited: ${audited.length} of ${acknowledged.length}` },
    );
    expect(audited.filter((email) => email.startsWith('during-outage-')).sort()).toEqual([...acknowledged].sort());
  }, 60_000);

  it('with AUDIT_STORE_REQUIRED, refuses audited writes with 503 while the store is unreachable, and makes none', async () => {
    const { store, t, cookie } = await serverWithAuditStore({ AUDIT_STORE_REQUIRED: 'true' });
    expect((await createUser(t.app, cookie, 'before@corp.example')).statusCode).toBe(201);
    process.kill(store.pid, 'SIGKILL');
    // The recorder learns of the outage at its next write: a write made before that is acknowledged (and its entry
    // kept); from then on writes are refused until the store answers.
    const acknowledged: string[] = [];
    let refused: Awaited<ReturnType<typeof createUser>> | undefined;
    let refusedEmail = '';
    await eventually(async () => {
      refusedEmail = `during-${acknowledged.length}@corp.example`;
      refused = await createUser(t.app, cookie, refusedEmail);
      if (refused.statusCode === 201) acknowledged.push(refusedEmail);
      return refused.statusCode === 503;
    }, 10_000);
    expect(refused!.json()).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      message: 'The audit log cannot be written now, so the change was not made; try again shortly',
      code: 'unavailable',
    });
    expect(refused!.headers['retry-after']).toBe('5');
    const users = await t.app.inject({ method: 'GET', url: '/api/users/', headers: { cookie } });
    expect(users.statusCode).toBe(200);
    expect(users.body).not.toContain(refusedEmail);

    await store.restart();
    let audited: string[] = [];
    await eventually(async () => {
      audited = await auditedUserCreations(t.app, cookie);
      return ['before@corp.example', ...acknowledged].every((email) => audited.includes(email));
    }, 20_000);
    await eventually(async () => (await createUser(t.app, cookie, 'after@corp.example')).statusCode === 201, 20_000);
  }, 60_000);
});
