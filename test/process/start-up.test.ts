// What a person starting the server meets: a port already in use is reported in one sentence before anything is
// created; a start tells in words where everything is; an ADMIN_PASSWORD from the environment never reaches the disk;
// the root leads to the documentation; and one version is reported everywhere, the API compatibility apart from it.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, readdir } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runServerProcess } from '../support/server-process.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

describe('starting the server', () => {
  it('refuses a port already in use in one sentence, before creating anything', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    const dataDir = path.join(await mkdtemp(path.join(os.tmpdir(), 'gdb-port-')), 'data');
    try {
      const server = await runServerProcess({ DATA_DIR: dataDir, PORT: String(port) });
      const exit = await server.exited;
      expect(exit.code).toBe(1);
      expect(server.stderr().trim()).toBe(
        `graphdb-server cannot start: port ${port} is already in use on 127.0.0.1; stop the process that holds it, or set PORT to a free port.`,
      );
      expect(existsSync(dataDir), 'no secrets, admin or database were created').toBe(false);
    } finally {
      holder.close();
    }
  });

  it('says where everything is, keeps ADMIN_PASSWORD off the disk, and reports one version', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-banner-'));
    const password = 'start-up-test-password';
    const server = await runServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'info', ADMIN_PASSWORD: password });
    try {
      const ready = await server.waitForLine(
        (l) => typeof l.msg === 'string' && l.msg.includes(' is ready at '),
        60_000,
      );
      // stdout is a pipe here, so the default (LOG_FORMAT=auto) writes JSON lines.
      expect(ready.level).toBe(30);
      expect(ready.msg).toBe(
        `graphdb-server ${VERSION} is ready at ${server.baseUrl}; API documentation at ${server.baseUrl}/api-docs`,
      );
      const messages = server.lines.map((l) => String(l.msg));
      expect(messages).toContain('First admin: admin@localhost, with the password from ADMIN_PASSWORD');
      const adminFile = path.join(dataDir, 'falkordb-admin-password');
      const port = readFileSync(path.join(dataDir, 'falkordb', 'port'), 'utf8').trim();
      expect(messages).toContain(
        `Embedded FalkorDB: host 127.0.0.1, port ${port}, user admin, password in ${adminFile}`,
      );
      expect(messages.find((m) => m.startsWith('Create a token for it: curl -s '))).toContain(`$(cat ${adminFile})`);

      // The password given in the environment is nowhere in DATA_DIR.
      expect(existsSync(path.join(dataDir, 'initial-admin-password'))).toBe(false);
      const files = await readdir(dataDir, { recursive: true });
      for (const file of files) {
        const full = path.join(dataDir, file);
        if (statSync(full).isFile())
          expect(readFileSync(full).includes(password), `${file} holds ADMIN_PASSWORD`).toBe(false);
      }
      const login = await fetch(`${server.baseUrl}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@localhost', password }),
      });
      expect(login.status).toBe(200);

      const root = await fetch(`${server.baseUrl}/`, { redirect: 'manual' });
      expect(root.status).toBe(302);
      expect(root.headers.get('location')).toBe('/api-docs');

      const health = (await (await fetch(`${server.baseUrl}/health`)).json()) as { version: string };
      expect(health.version).toBe(VERSION);
      const spec = (await (await fetch(`${server.baseUrl}/api-spec.json`)).json()) as {
        info: { version: string; 'x-compatibility': { browserApi: string; adminApi: string } };
      };
      expect(spec.info.version).toBe(VERSION);
      expect(spec.info['x-compatibility']).toEqual({
        browserApi: 'FalkorDB Browser API 1.4.6',
        adminApi: 'FalkorDB Enterprise admin API',
      });
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 120_000);

  it('writes readable lines with LOG_FORMAT=pretty, and JSON lines with LOG_FORMAT=json', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-pretty-'));
    const pretty = await runServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' });
    try {
      const ready = await pretty.waitForLine(
        (l) => typeof l.msg === 'string' && l.msg.includes(' is ready at '),
        60_000,
      );
      expect(ready.msg).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}graphdb-server \S+ is ready at http:\/\/127\.0\.0\.1:/);
      await fetch(`${pretty.baseUrl}/api-spec.json`);
      const access = await pretty.waitForLine(
        (l) => typeof l.msg === 'string' && l.msg.includes('GET /api-spec.json -> 200'),
      );
      expect(access.msg).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}GET \/api-spec\.json -> 200 \d+\.\d ms/);
      for (const line of pretty.lines) {
        expect(String(line.msg)).not.toContain('{"level"');
        expect(line.level, 'no line is JSON').toBeUndefined();
      }
    } finally {
      pretty.child.kill('SIGTERM');
      await pretty.exited;
    }
    const json = await runServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'info', LOG_FORMAT: 'json' });
    try {
      const ready = await json.waitForLine((l) => typeof l.msg === 'string' && l.msg.includes(' is ready at '), 60_000);
      expect(ready.level).toBe(30);
      expect(typeof ready.time).toBe('number');
    } finally {
      json.child.kill('SIGTERM');
      await json.exited;
    }
  }, 180_000);
});
