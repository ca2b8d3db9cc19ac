import { mkdtemp, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FalkorDB } from 'falkordb';
import { describe, expect, it } from 'vitest';
import { isProcessAlive, runServerProcess, type ServerProcess } from '../support/server-process.js';
import { eventually, sleep } from '../support/wait.js';

interface EmbeddedLine {
  embeddedFalkorDB: { host: string; port: number; pid: number; username: string; passwordFile: string };
}

async function startEmbedded(
  dataDir: string,
): Promise<{ server: ServerProcess; embedded: EmbeddedLine['embeddedFalkorDB'] }> {
  const server = await runServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  const line = (await server.waitForLine((l) => 'embeddedFalkorDB' in l)) as unknown as EmbeddedLine;
  await server.waitForLine((l) => typeof l.msg === 'string' && l.msg.startsWith('Server listening at'));
  return { server, embedded: line.embeddedFalkorDB };
}

async function withGraphClient<T>(
  embedded: EmbeddedLine['embeddedFalkorDB'],
  work: (db: FalkorDB) => Promise<T>,
): Promise<T> {
  const password = (await readFile(embedded.passwordFile, 'utf8')).trim();
  const db = await FalkorDB.connect({
    username: embedded.username,
    password,
    socket: { host: embedded.host, port: embedded.port },
  });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/** The server process in embedded mode with a first admin, and that admin's session cookie. */
async function signedInServer(dataDirPrefix: string) {
  const admin = { email: 'root@example.com', password: 'process-test-password' };
  const dataDir = await mkdtemp(path.join(os.tmpdir(), dataDirPrefix));
  const server = await runServerProcess({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
  });
  try {
    await server.waitForLine((l) => typeof l.msg === 'string' && l.msg.startsWith('Server listening at'));
    const login = await fetch(`${server.baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.baseUrl },
      body: JSON.stringify(admin),
    });
    expect(login.status, await login.text()).toBe(200);
    return { server, cookie: login.headers.getSetCookie()[0]!.split(';')[0]! };
  } catch (error) {
    server.child.kill('SIGTERM');
    await server.exited;
    throw error;
  }
}

describe('the server process in embedded mode', () => {
  it('starts its own FalkorDB, keeps data across a restart, and leaves no child process behind', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-main-'));

    const first = await startEmbedded(dataDir);
    expect(first.server.lines.some((l) => l.msg === `Server listening at ${first.server.baseUrl}`)).toBe(true);
    const health = await fetch(`${first.server.baseUrl}/healthz`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${first.server.baseUrl}/readyz`);
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: { tokenStore: { ok: true }, settings: { ok: true } },
    });
    await withGraphClient(first.embedded, async (db) => {
      const reply = await db
        .selectGraph('persisted')
        .query<{ name: string }>("CREATE (:Person {name: 'Ada'}) RETURN 1 AS one");
      expect(reply.data).toEqual([{ one: 1 }]);
    });
    expect((await stat(path.join(dataDir, 'secrets.json'))).mode & 0o777).toBe(0o600);
    // The first admin of an embedded install gets a generated password, kept in a 0600 file.
    const passwordFile = path.join(dataDir, 'initial-admin-password');
    expect((await stat(passwordFile)).mode & 0o777).toBe(0o600);
    const password = (await readFile(passwordFile, 'utf8')).trim();
    const login = await fetch(`${first.server.baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@localhost', password }),
    });
    expect(login.status).toBe(200);
    expect(login.headers.get('set-cookie')).toMatch(/^token=.*; HttpOnly; SameSite=Lax$/);

    first.server.child.kill('SIGTERM');
    expect(await first.server.exited).toEqual({ code: 0, signal: null });
    expect(isProcessAlive(first.embedded.pid)).toBe(false);
    await expect(fetch(`${first.server.baseUrl}/healthz`)).rejects.toThrow();

    const second = await startEmbedded(dataDir);
    try {
      const names = await withGraphClient(second.embedded, async (db) => {
        const reply = await db
          .selectGraph('persisted')
          .roQuery<{ name: string }>('MATCH (p:Person) RETURN p.name AS name');
        return reply.data?.map((row) => row.name);
      });
      expect(names).toEqual(['Ada']);
    } finally {
      second.server.child.kill('SIGINT');
      expect((await second.server.exited).code).toBe(0);
      expect(isProcessAlive(second.embedded.pid)).toBe(false);
    }
  });

  it('writes its access lines to stdout and keeps them in memory, where diagnostics count them', async () => {
    const { server, cookie } = await signedInServer('gdb-main-logs-');
    try {
      for (let i = 0; i < 3; i++)
        expect((await fetch(`${server.baseUrl}/api/auth/validate`, { headers: { cookie } })).status).toBe(200);
      // stdout: one access line per request, written within the destination's 10-ms batch.
      await server.waitForLine(
        (l) => (l.req as { url?: string } | undefined)?.url === '/api/auth/validate' && l.msg === 'request completed',
      );
      // The in-memory copy: the sign-in and the three reads are this hour's activity (an access line each).
      const res = await fetch(`${server.baseUrl}/api/admin/diagnostics/`, { headers: { cookie } });
      const diagnostics = (await res.json()) as { resources: { recentActivityCount: number } };
      expect(res.status).toBe(200);
      expect(diagnostics.resources.recentActivityCount).toBeGreaterThanOrEqual(4);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it("keeps the audit log in the embedded FalkorDB under the shared store's least-privilege account", async () => {
    const { server, cookie } = await signedInServer('gdb-main-audit-');
    try {
      // Every query shape of the audit store: the plain page (ZCARD, ZRANGE, MGET) and a filtered one (its script).
      for (const query of ['', '?action=auth.login&result=success&limit=10']) {
        let body = '';
        await eventually(
          async () => {
            const res = await fetch(`${server.baseUrl}/api/audit/${query}`, { headers: { cookie } });
            body = await res.text();
            return res.status === 200 && body.includes('auth.login');
          },
          5000,
          { detail: () => body },
        );
      }
      expect(server.lines.filter((l) => /NOPERM/.test(JSON.stringify(l)))).toEqual([]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('acts on a SIGTERM that arrives while it is still starting: exit 0, no FalkorDB left behind', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-main-'));
    const server = await runServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    // The embedded FalkorDB is up, the HTTP server not yet: Node's default would kill the process and orphan it.
    const line = (await server.waitForLine((l) => 'embeddedFalkorDB' in l)) as unknown as EmbeddedLine;
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(isProcessAlive(line.embeddedFalkorDB.pid)).toBe(false);
  });

  it('finishes a request in flight on SIGTERM before it stops the embedded FalkorDB', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-main-'));
    const { server, embedded } = await startEmbedded(dataDir);
    // The start-up log names the embedded database's administrator and the file holding its password.
    const password = (await readFile(embedded.passwordFile, 'utf8')).trim();
    const created = await fetch(`${server.baseUrl}/api/auth/tokens/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        username: embedded.username,
        password,
        host: embedded.host,
        port: String(embedded.port),
        tls: 'false',
      }),
    });
    expect(created.status).toBe(200);
    const { token } = (await created.json()) as { token: string };
    // The graph the slow query reads exists first: a read never creates a graph.
    const graph = await fetch(`${server.baseUrl}/api/graph/slow`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(graph.status).toBe(200);
    const slowQuery = encodeURIComponent('UNWIND range(1, 10000000) AS x RETURN count(x) AS n');
    const inFlight = fetch(`${server.baseUrl}/api/graph/slow?query=${slowQuery}&timeout=60000`, {
      headers: { authorization: `Bearer ${token}` },
    });
    // The query has to be in flight when SIGTERM arrives: give the request time to reach the server.
    await sleep(300);
    server.child.kill('SIGTERM');
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ data: [{ n: 10_000_000 }] });
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(isProcessAlive(embedded.pid)).toBe(false);
    // stdout is written every few milliseconds; 'stopped' is logged just before the process exits, so it is there
    // only because the pending lines are flushed on exit.
    expect(server.lines.at(-1)).toMatchObject({ level: 30, msg: 'stopped' });
    // The access line of the query, composed outside pino's serializer: the path, the route and a hash of the
    // query string, never the Cypher.
    const access = server.lines.filter((line) => line.msg === 'request completed');
    expect(access).toContainEqual(
      expect.objectContaining({
        reqId: expect.any(String) as unknown,
        pid: server.child.pid,
        req: {
          method: 'GET',
          url: '/api/graph/slow',
          remoteAddress: '127.0.0.1',
          route: expect.stringMatching(/^\/api\/graph\/:/) as unknown,
          queryHash: expect.stringMatching(/^[0-9a-f]{16}$/) as unknown,
        },
        res: { statusCode: 200 },
        responseTime: expect.any(Number) as unknown,
      }),
    );
    expect(JSON.stringify(server.lines)).not.toContain('range(1');
  });

  it('refuses to start on a bad configuration, listing every problem', async () => {
    const server = await runServerProcess({ LOG_LEVEL: 'chatty', ENCRYPTION_KEY: 'xyz' });
    const { code } = await server.exited;
    expect(code).toBe(1);
    expect(server.stderr()).toContain('Invalid configuration (2 problems)');
    expect(server.stderr()).toContain('LOG_LEVEL: must be one of');
    expect(server.stderr()).toContain('ENCRYPTION_KEY: must be 64 hex characters');
  });

  it('explains what to install when no server binary can run FalkorDB', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-main-'));
    const server = await runServerProcess({ DATA_DIR: dataDir, FALKORDB_SERVER_BIN: '/nonexistent/valkey-server' });
    const { code } = await server.exited;
    expect(code).toBe(1);
    const fatal = server.lines.find((l) => l.level === 60);
    expect(String(fatal?.msg)).toContain('apt-get install -t bookworm-backports valkey-server');
  });
});
