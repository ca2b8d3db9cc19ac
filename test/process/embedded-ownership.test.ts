// The embedded FalkorDB belongs to one server process and one directory: a SIGKILL of the server stops its database
// too, a restart takes the port back (or moves and keeps old tokens working), a database left running on the
// directory is stopped cleanly rather than joined by a second one, and a second server on a live directory refuses.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, readlink, realpath } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundledPackageDir, resolveModulePath } from '../../src/platform/falkordb/embedded-falkordb.js';
import { redisCommands } from '../../src/platform/falkordb/embedded-ownership.js';
import { findServerBinary } from '../../src/platform/falkordb/server-binary.js';
import { isPortFree } from '../../src/platform/net.js';
import { eventually } from '../support/wait.js';
import { isProcessAlive, runServerProcess, type ServerProcess } from '../support/server-process.js';

interface EmbeddedLine {
  embeddedFalkorDB: { host: string; port: number; pid: number; passwordFile: string };
}

const running: ServerProcess[] = [];
const others: (() => void)[] = [];

afterAll(async () => {
  for (const server of running) {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }
  for (const stop of others) stop();
});

async function start(dataDir: string): Promise<{ server: ServerProcess; embedded: EmbeddedLine['embeddedFalkorDB'] }> {
  const server = await runServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  running.push(server);
  const line = (await server.waitForLine((l) => 'embeddedFalkorDB' in l, 60_000)) as unknown as EmbeddedLine;
  await server.waitForLine((l) => typeof l.msg === 'string' && l.msg.startsWith('Server listening at'), 30_000);
  return { server, embedded: line.embeddedFalkorDB };
}

/** The pids of every process whose working directory is `dir` (Valkey changes into its data directory). */
async function processesServing(dir: string): Promise<number[]> {
  const real = await realpath(dir);
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cwd = await readlink(`/proc/${entry}/cwd`).catch(() => undefined);
    if (cwd === real) pids.push(Number(entry));
  }
  return pids;
}

async function adminToken(server: ServerProcess, embedded: EmbeddedLine['embeddedFalkorDB']): Promise<string> {
  const password = (await readFile(embedded.passwordFile, 'utf8')).trim();
  const res = await fetch(`${server.baseUrl}/api/auth/tokens/credentials`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      username: 'admin',
      password,
      host: embedded.host,
      port: String(embedded.port),
      tls: 'false',
    }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

async function graphNames(server: ServerProcess, token: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${server.baseUrl}/api/graph`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: await res.json() };
}

async function killHard(server: ServerProcess): Promise<void> {
  server.child.kill('SIGKILL');
  await server.exited;
}

describe('the embedded FalkorDB after a SIGKILL of its server', () => {
  it('stops with its server; a restart takes the port back, or moves and keeps every token working', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-own-kill-'));
    const databaseDir = path.join(dataDir, 'falkordb');
    const first = await start(dataDir);
    const token = await adminToken(first.server, first.embedded);
    const created = await fetch(`${first.server.baseUrl}/api/graph/kept`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(created.status).toBe(200);

    await killHard(first.server);
    // No orphan: the database sees its server gone and stops (writing its data) on its own.
    await eventually(() => !isProcessAlive(first.embedded.pid), 30_000);
    expect(await processesServing(databaseDir)).toEqual([]);

    const second = await start(dataDir);
    expect(second.embedded.port).toBe(first.embedded.port);
    expect(await graphNames(second.server, token)).toEqual({ status: 200, body: { opts: ['kept'] } });
    expect(await processesServing(databaseDir)).toEqual([second.embedded.pid]);

    // Another program takes the port while the server is down: the database moves, and the token made for the old
    // port still reaches it.
    await killHard(second.server);
    await eventually(() => isPortFree('127.0.0.1', first.embedded.port), 30_000);
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(first.embedded.port, '127.0.0.1', resolve));
    others.push(() => squatter.close());
    const third = await start(dataDir);
    expect(third.embedded.port).not.toBe(first.embedded.port);
    expect(await graphNames(third.server, token)).toEqual({ status: 200, body: { opts: ['kept'] } });
    expect(await processesServing(databaseDir)).toEqual([third.embedded.pid]);
    third.server.child.kill('SIGTERM');
    expect((await third.server.exited).code).toBe(0);
    expect(await processesServing(databaseDir)).toEqual([]);
  }, 180_000);

  it('stops a database left running on its directory cleanly and serves its data on its port', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-own-orphan-'));
    const databaseDir = path.join(dataDir, 'falkordb');
    const first = await start(dataDir);
    const token = await adminToken(first.server, first.embedded);
    first.server.child.kill('SIGTERM');
    expect((await first.server.exited).code).toBe(0);

    // What a server killed before the database had a supervisor left behind: the database, running on its own on
    // the directory and the stored port, its parent gone.
    const server = await findServerBinary({
      bundledDir: bundledPackageDir() && path.join(bundledPackageDir()!, 'bin'),
    });
    const orphan = spawn(
      server.path,
      [
        '--port',
        String(first.embedded.port),
        '--bind',
        '127.0.0.1',
        '--loadmodule',
        resolveModulePath(undefined),
        '--aclfile',
        path.join(databaseDir, 'users.acl'),
        '--dir',
        databaseDir,
        '--appendonly',
        'yes',
      ],
      { stdio: 'ignore', detached: true },
    );
    orphan.unref();
    const orphanPid = orphan.pid!;
    others.push(() => isProcessAlive(orphanPid) && process.kill(orphanPid, 'SIGKILL'));
    const password = (await readFile(first.embedded.passwordFile, 'utf8')).trim();
    // A graph written to the orphan only, after its server was gone: the clean stop must keep it.
    await eventually(async () => {
      const replies = await redisCommands(
        '127.0.0.1',
        first.embedded.port,
        [
          ['AUTH', 'admin', password],
          ['GRAPH.QUERY', 'written-late', 'CREATE (:Late)'],
        ],
        2000,
      ).catch(() => []);
      return Array.isArray(replies[1]);
    }, 15_000);

    const second = await start(dataDir);
    expect(isProcessAlive(orphanPid)).toBe(false);
    expect(second.embedded.port).toBe(first.embedded.port);
    const names = await graphNames(second.server, token);
    expect(names.status).toBe(200);
    expect((names.body as { opts: string[] }).opts).toContain('written-late');
    expect(await processesServing(databaseDir)).toEqual([second.embedded.pid]);
    await second.server.waitForLine((l) => typeof l.msg === 'string' && l.msg.includes('left running'));
  }, 120_000);

  it('refuses to start a second server on a directory whose server is running', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-own-twice-'));
    const first = await start(dataDir);
    const second = await runServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    running.push(second);
    expect((await second.exited).code).toBe(1);
    const fatal = second.lines.find((l) => l.level === 60);
    expect(String(fatal?.msg)).toContain(`belongs to another graphdb-server (pid ${first.server.child.pid})`);
    expect(await processesServing(path.join(dataDir, 'falkordb'))).toEqual([first.embedded.pid]);
    // The first server is untouched.
    expect((await fetch(`${first.server.baseUrl}/healthz`)).status).toBe(200);
  }, 120_000);
});
