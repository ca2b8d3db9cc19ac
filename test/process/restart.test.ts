// What a user makes in embedded mode survives a restart of the embedded FalkorDB (the admin API's own restart
// operation) and of the whole server process with the same DATA_DIR.
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/wait.js';
import { runServerProcess, type ServerProcess } from '../support/server-process.js';

interface EmbeddedLine {
  embeddedFalkorDB: { host: string; port: number; username: string; passwordFile: string };
}

async function start(dataDir: string): Promise<{ server: ServerProcess; embedded: EmbeddedLine['embeddedFalkorDB'] }> {
  const server = await runServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  const line = (await server.waitForLine((l) => 'embeddedFalkorDB' in l)) as unknown as EmbeddedLine;
  await server.waitForLine((l) => typeof l.msg === 'string' && l.msg.startsWith('Server listening at'));
  return { server, embedded: line.embeddedFalkorDB };
}

interface Client {
  call(
    method: string,
    url: string,
    options?: { token?: string; cookie?: string; body?: unknown },
  ): Promise<{ status: number; json: unknown; cookie: string | null }>;
}

function client(server: ServerProcess): Client {
  return {
    async call(method, url, { token, cookie, body } = {}) {
      const headers: Record<string, string> = {};
      if (token) headers.authorization = `Bearer ${token}`;
      if (cookie) headers.cookie = cookie;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${server.baseUrl}${url}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      const setCookie = res.headers.get('set-cookie');
      return {
        status: res.status,
        json: text ? (JSON.parse(text) as unknown) : undefined,
        cookie: setCookie ? setCookie.split(';', 1)[0]! : null,
      };
    },
  };
}

describe('embedded mode across restarts', () => {
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    for (const server of servers) {
      if (server.child.exitCode === null) {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    }
  });

  it('keeps tokens, database users, empty and full graphs, settings and admin users', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-restart-'));
    const first = await start(dataDir);
    servers.push(first.server);
    const api = client(first.server);
    const adminPassword = (await readFile(first.embedded.passwordFile, 'utf8')).trim();
    const target = { host: first.embedded.host, port: String(first.embedded.port), tls: 'false' };

    const adminToken = await api.call('POST', '/api/auth/tokens/credentials', {
      body: { username: 'admin', password: adminPassword, ...target },
    });
    expect(adminToken.status).toBe(200);
    const admin = (adminToken.json as { token: string }).token;
    expect(
      (
        await api.call('POST', '/api/user', {
          token: admin,
          body: { username: 'carol', password: 'carol-password-1', role: 'Read-Write' },
        })
      ).status,
    ).toBe(201);
    const carolToken = await api.call('POST', '/api/auth/tokens/credentials', {
      body: { username: 'carol', password: 'carol-password-1', ...target },
    });
    expect(carolToken.status).toBe(200);
    const carol = (carolToken.json as { token: string }).token;
    expect((await api.call('POST', '/api/graph/empty-one', { token: carol })).status).toBe(200);
    const write = await api.call(
      'GET',
      `/api/graph/full-one?query=${encodeURIComponent("CREATE (:City {name: 'Oslo'})")}&timeout=10000`,
      { token: carol },
    );
    expect(write.status).toBe(200);

    const consolePassword = (await readFile(path.join(dataDir, 'initial-admin-password'), 'utf8')).trim();
    const login = await api.call('POST', '/api/auth/login', {
      body: { email: 'admin@localhost', password: consolePassword },
    });
    expect(login.status).toBe(200);
    const cookie = login.cookie!;
    expect((await api.call('PATCH', '/api/settings/', { cookie, body: { ui: { theme: 'dark' } } })).status).toBe(200);
    expect(
      (
        await api.call('POST', '/api/users', {
          cookie,
          body: { email: 'ops@corp.example', name: 'Ops', role: 'operator', password: 'ops-password-1' },
        })
      ).status,
    ).toBe(201);

    const expectEverythingKept = async (server: ServerProcess) => {
      const c = client(server);
      const graphs = await c.call('GET', '/api/graph', { token: carol });
      expect(graphs.status).toBe(200);
      expect((graphs.json as { opts: string[] }).opts).toEqual(expect.arrayContaining(['empty-one', 'full-one']));
      const read = await c.call(
        'GET',
        `/api/graph/full-one?query=${encodeURIComponent('MATCH (c:City) RETURN c.name AS name')}&timeout=10000`,
        { token: carol },
      );
      expect(read.json).toMatchObject({ data: [{ name: 'Oslo' }] });
      const users = await c.call('GET', '/api/user', { token: admin });
      expect(users.status).toBe(200);
      expect((users.json as { result: { username: string; role: string }[] }).result).toContainEqual({
        username: 'carol',
        role: 'Read-Write',
        keys: ['*'],
        selected: false,
      });
      // Her password is kept too: a new token can be made with it.
      expect(
        (
          await c.call('POST', '/api/auth/tokens/credentials', {
            body: { username: 'carol', password: 'carol-password-1', ...target },
          })
        ).status,
      ).toBe(200);
      const relogin = await c.call('POST', '/api/auth/login', {
        body: { email: 'ops@corp.example', password: 'ops-password-1' },
      });
      expect(relogin.status).toBe(200);
      const settings = await c.call('GET', '/api/settings/', {
        cookie: (
          await c.call('POST', '/api/auth/login', { body: { email: 'admin@localhost', password: consolePassword } })
        ).cookie!,
      });
      expect(settings.json).toMatchObject({ ui: { theme: 'dark' } });
    };

    // The admin API's restart operation stops and starts the embedded FalkorDB under the running server.
    const restart = await api.call('POST', '/api/clusters/embedded/ops/restart', { cookie, body: {} });
    expect(restart.status).toBe(202);
    await eventually(async () => {
      const operations = await api.call('GET', '/api/clusters/embedded/ops', { cookie });
      return (operations.json as { operations: { phase: string }[] }).operations[0]?.phase === 'Succeed';
    }, 20_000);
    await expectEverythingKept(first.server);

    first.server.child.kill('SIGTERM');
    expect((await first.server.exited).code).toBe(0);
    const second = await start(dataDir);
    servers.push(second.server);
    expect(second.embedded.port).toBe(first.embedded.port);
    await expectEverythingKept(second.server);
  }, 90_000);
});
