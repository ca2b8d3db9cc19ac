// The embedded database as a stranger on the network sees it: no passwordless account, no way to the token
// store's account, loopback-only by default (critical finding).
import { request as httpRequest } from 'node:http';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServerProcess, type ServerProcess } from '../support/server-process.js';

interface EmbeddedLine {
  embeddedFalkorDB: { host: string; port: number; username: string; passwordFile: string };
}

/** A JSON request sent from a chosen local address, so a second loopback address can stand in for another host. */
function requestFrom(
  localAddress: string,
  url: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      url,
      { method, localAddress, headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, json: text ? (JSON.parse(text) as unknown) : undefined }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function startServer(
  env: Record<string, string>,
): Promise<{ server: ServerProcess; embedded: EmbeddedLine['embeddedFalkorDB'] }> {
  const server = await runServerProcess({ LOG_LEVEL: 'info', ...env });
  const line = (await server.waitForLine((l) => 'embeddedFalkorDB' in l)) as unknown as EmbeddedLine;
  await server.waitForLine((l) => typeof l.msg === 'string' && l.msg.startsWith('Server listening at'));
  return { server, embedded: line.embeddedFalkorDB };
}

async function stop(server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM');
  await server.exited;
}

describe('the embedded FalkorDB, reached over the network', () => {
  let dataDir: string;
  let server: ServerProcess;
  let embedded: EmbeddedLine['embeddedFalkorDB'];
  let adminPassword: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-embedded-security-'));
    // Listening on every address, as the image and the chart do.
    ({ server, embedded } = await startServer({ DATA_DIR: dataDir, HOST: '0.0.0.0' }));
    adminPassword = (await readFile(embedded.passwordFile, 'utf8')).trim();
  });
  afterAll(async () => {
    if (server) await stop(server);
  });

  const tokenRequest = (username: string, password?: string) => ({
    username,
    ...(password === undefined ? {} : { password }),
    host: embedded.host,
    port: String(embedded.port),
    tls: 'false',
  });

  it('refuses the review attack from another address: the passwordless default user gets no token', async () => {
    const url = `http://127.0.0.1:${server.port}/api/auth/tokens/credentials`;
    for (const attempt of [tokenRequest('default'), tokenRequest('default', '')]) {
      const res = await requestFrom('127.0.0.8', url, 'POST', attempt);
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ message: 'Invalid credentials or connection failed', code: 'unauthenticated' });
    }
  });

  it('has no account that answers without a password', async () => {
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = net.connect({ host: embedded.host, port: embedded.port }, () =>
        socket.write('*1\r\n$4\r\nPING\r\n'),
      );
      socket.once('data', (chunk) => {
        socket.destroy();
        resolve(chunk.toString('utf8'));
      });
      socket.once('error', reject);
    });
    expect(reply).toMatch(/^-NOAUTH/);
  });

  it('names the administrator and the file holding its password in the start-up log, never the password', async () => {
    expect(embedded.username).toBe('admin');
    expect(embedded.passwordFile).toBe(path.join(dataDir, 'falkordb-admin-password'));
    expect((await stat(embedded.passwordFile)).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(dataDir, 'falkordb-token-store-password'))).mode & 0o777).toBe(0o600);
    const line = server.lines.find((l) => 'embeddedFalkorDB' in l)!;
    expect(String(line.msg)).toContain(`username admin, password in ${embedded.passwordFile}`);
    const storePassword = (await readFile(path.join(dataDir, 'falkordb-token-store-password'), 'utf8')).trim();
    const everything = JSON.stringify(server.lines) + server.stderr();
    expect(everything).not.toContain(adminPassword);
    expect(everything).not.toContain(storePassword);
    // The ACL file keeps hashes only.
    const acl = await readFile(path.join(dataDir, 'falkordb', 'users.acl'), 'utf8');
    expect(acl).not.toContain(adminPassword);
    expect(acl).toMatch(/^user default off/m);
  });

  it('lets whoever holds the administrator password create an Admin token', async () => {
    const res = await requestFrom(
      '127.0.0.1',
      `http://127.0.0.1:${server.port}/api/auth/tokens/credentials`,
      'POST',
      tokenRequest('admin', adminPassword),
    );
    expect(res.status).toBe(200);
    const { token } = res.json as { token: string };
    const status = await fetch(`${server.baseUrl}/api/status`, { headers: { authorization: `Bearer ${token}` } });
    expect(status.status).toBe(200);
  });

  it("keeps browser users away from the token store's account, so nobody can take the store down", async () => {
    const created = await requestFrom(
      '127.0.0.1',
      `http://127.0.0.1:${server.port}/api/auth/tokens/credentials`,
      'POST',
      tokenRequest('admin', adminPassword),
    );
    const auth = { authorization: `Bearer ${(created.json as { token: string }).token}` };
    const patch = await fetch(`${server.baseUrl}/api/user/graphdb-token-store?role=Read-Only`, {
      method: 'PATCH',
      headers: auth,
    });
    expect(patch.status).toBe(400);
    expect(await patch.json()).toEqual({
      message: 'User graphdb-token-store is used by this server and cannot be changed or deleted',
      code: 'invalid_request',
    });
    const del = await fetch(`${server.baseUrl}/api/user`, {
      method: 'DELETE',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ users: [{ username: 'graphdb-token-store' }] }),
    });
    expect(del.status).toBe(400);

    // The review took the store down by demoting `default`; the store no longer signs in as `default`.
    const demoted = await fetch(`${server.baseUrl}/api/user/default?role=Read-Only`, {
      method: 'PATCH',
      headers: auth,
    });
    expect(demoted.status).toBe(200);
    const list = await fetch(`${server.baseUrl}/api/auth/tokens`, { headers: auth });
    expect(list.status).toBe(200);
    const again = await requestFrom(
      '127.0.0.1',
      `http://127.0.0.1:${server.port}/api/auth/tokens/credentials`,
      'POST',
      tokenRequest('admin', adminPassword),
    );
    expect(again.status).toBe(200);

    const client = createClient({
      url: `redis://admin:${encodeURIComponent(adminPassword)}@${embedded.host}:${embedded.port}`,
    });
    await client.connect();
    try {
      const rules = await client.sendCommand<unknown[]>(['ACL', 'GETUSER', 'graphdb-token-store']);
      const commands = String(rules[rules.indexOf('commands') + 1]);
      expect(commands).toContain('-@all');
      expect(commands).not.toContain('+@all');
      const keys = String(rules[rules.indexOf('keys') + 1]);
      expect(keys).toBe('~graphdb:*');
    } finally {
      await client.close();
    }
  });

  it('reports not ready while the token store refuses the server its commands', async () => {
    const client = createClient({
      url: `redis://admin:${encodeURIComponent(adminPassword)}@${embedded.host}:${embedded.port}`,
    });
    await client.connect();
    try {
      expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
      // PING still answers; writes do not.
      await client.sendCommand(['ACL', 'SETUSER', 'graphdb-token-store', '-set']);
      const res = await fetch(`${server.baseUrl}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ status: 'not ready', checks: { tokenStore: { ok: false } } });
      await client.sendCommand(['ACL', 'SETUSER', 'graphdb-token-store', '+set']);
      expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
    } finally {
      await client.close();
    }
  });
});

describe('listening address in embedded mode', () => {
  it('listens on loopback only unless HOST is set', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-embedded-host-'));
    const { server } = await startServer({ DATA_DIR: dataDir, HOST: '' });
    try {
      expect(server.lines.some((l) => l.msg === `Server listening at http://127.0.0.1:${server.port}`)).toBe(true);
      // 127.0.0.8 is another loopback address: a server bound to 127.0.0.1 does not answer there.
      await expect(fetch(`http://127.0.0.8:${server.port}/healthz`)).rejects.toThrow();
      expect((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status).toBe(200);
    } finally {
      await stop(server);
    }
  });
});
