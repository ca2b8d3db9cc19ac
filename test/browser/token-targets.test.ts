// Token creation as a prober would use it (high finding): which targets the server will dial, and that
// silent, closed, refusing and impostor servers all answer alike, within one deadline, holding nothing open.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/platform/net.js';
import { startTestApp } from '../support/app.js';
import { useBrowserApp } from '../support/browser.js';
import { startTestFalkorDB, type TestFalkorDB } from '../support/falkordb.js';
import { eventually, sleep } from '../support/wait.js';

const DEADLINE_MS = 1000;
// One body whatever went wrong, so a caller cannot probe which hosts answer.
const REJECTED = { message: 'Invalid credentials or connection failed', code: 'unauthenticated' };

/** A TCP server on loopback: `silent` accepts and never answers; `ok` answers +OK to every line it reads. */
async function fakeServer(
  kind: 'silent' | 'ok',
): Promise<{ port: number; open: () => number; accepted: () => number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    // Reads what it is sent (so it sees the other side close), and answers nothing, or +OK to every command.
    if (kind === 'ok')
      socket.on('data', (chunk) => socket.write('+OK\r\n'.repeat(Math.max(1, chunk.toString().split('\r\n*').length))));
    else socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    open: () => sockets.size,
    accepted: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A real Valkey without the FalkorDB module, whose default user needs no password: a Redis that is not a graph database. */
async function plainValkey(): Promise<{ port: number; stop: () => Promise<void> }> {
  const port = await findFreePort();
  const child: ChildProcess = spawn(
    'valkey-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  await eventually(
    () =>
      new Promise<boolean>((resolve) => {
        const socket = net.connect({ host: '127.0.0.1', port }, () => {
          socket.destroy();
          resolve(true);
        });
        socket.on('error', () => resolve(false));
      }),
    5000,
  );
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) =>
        child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill('SIGKILL')),
      ),
  };
}

const body = (port: number, extra: Record<string, unknown> = {}) => ({
  username: 'default',
  password: 'whatever',
  host: '127.0.0.1',
  port: String(port),
  tls: 'false',
  ...extra,
});

describe('token creation against servers that are not what they claim', () => {
  const t = useBrowserApp({
    env: { CREDENTIAL_CHECK_TIMEOUT_MS: String(DEADLINE_MS), REQUEST_TIMEOUT_MS: '3000' },
    roles: [],
  });

  const create = async (payload: unknown) => {
    const started = Date.now();
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/tokens/credentials', payload: payload as never });
    return { res, elapsed: Date.now() - started };
  };

  it('answers a silent listener within the deadline and closes the socket it opened', async () => {
    const silent = await fakeServer('silent');
    try {
      const { res, elapsed } = await create(body(silent.port));
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(REJECTED);
      expect(elapsed).toBeLessThan(DEADLINE_MS * 3);
      expect(silent.accepted()).toBe(1);
      await eventually(() => silent.open() === 0, 1000, 20);
      expect(silent.open()).toBe(0);
    } finally {
      await silent.close();
    }
  });

  it('issues no token to a server that answers +OK to everything, nor to a Redis without the graph module', async () => {
    const impostor = await fakeServer('ok');
    const valkey = await plainValkey();
    try {
      for (const port of [impostor.port, valkey.port]) {
        const { res } = await create(body(port, { password: '' }));
        expect(res.statusCode, `port ${port}`).toBe(401);
        expect(res.json()).toEqual(REJECTED);
      }
    } finally {
      await impostor.close();
      await valkey.stop();
    }
  });

  it('answers closed, silent, impostor and wrong-password targets with the same body, none before the deadline', async () => {
    const silent = await fakeServer('silent');
    const impostor = await fakeServer('ok');
    const closedPort = await findFreePort();
    try {
      const outcomes = await Promise.all([
        create(body(closedPort)),
        create(body(silent.port)),
        create(body(impostor.port)),
        create({ ...body(t.falkordb.port), username: 'nobody', password: 'wrong' }),
      ]);
      for (const { res, elapsed } of outcomes) {
        expect(res.statusCode).toBe(401);
        expect(res.body).toBe(JSON.stringify(REJECTED));
        expect(elapsed).toBeGreaterThanOrEqual(DEADLINE_MS - 20);
      }
    } finally {
      await silent.close();
      await impostor.close();
    }
  });

  it('caps the credential checks in flight', async () => {
    const capped = await startTestApp({
      falkordb: t.falkordb,
      env: { CREDENTIAL_CHECK_TIMEOUT_MS: String(DEADLINE_MS), CREDENTIAL_CHECKS_MAX: '2' },
    });
    const silent = await fakeServer('silent');
    try {
      const call = () =>
        capped.app.inject({ method: 'POST', url: '/api/auth/tokens/credentials', payload: body(silent.port) });
      const first = [call(), call()];
      // Let the first two checks take both slots before the third asks.
      await sleep(100);
      const third = await call();
      expect(third.statusCode).toBe(429);
      expect(third.headers['retry-after']).toBe('1');
      expect((await Promise.all(first)).map((res) => res.statusCode)).toEqual([401, 401]);
    } finally {
      await silent.close();
      await capped.close();
    }
  });
});

describe('which hosts a token may name (DATABASE_HOSTS)', () => {
  let falkordb: TestFalkorDB;
  beforeAll(async () => {
    falkordb = await startTestFalkorDB();
  });
  afterAll(() => falkordb.stop());

  async function attempt(env: Record<string, string>, host: string, port: number) {
    const t = await startTestApp({ falkordb, env: { DATABASE_HOSTS: '', ...env } });
    try {
      return await t.app.inject({
        method: 'POST',
        url: '/api/auth/tokens/credentials',
        payload: { username: 'default', password: '', host, port: String(port), tls: 'false' },
      });
    } finally {
      await t.close();
    }
  }

  it('refuses loopback by default without connecting, and the metadata address always', async () => {
    const watcher = await fakeServer('silent');
    try {
      const loopback = await attempt({}, '127.0.0.1', watcher.port);
      expect(loopback.statusCode).toBe(400);
      expect(loopback.json()).toEqual({
        message: 'Database host 127.0.0.1 is not allowed on this server (see DATABASE_HOSTS)',
        code: 'invalid_request',
      });
      expect((await attempt({}, 'localhost', watcher.port)).statusCode).toBe(400);
      expect(watcher.accepted()).toBe(0);
      expect((await attempt({ DATABASE_HOSTS: '169.254.0.0/16' }, '169.254.169.254', 80)).statusCode).toBe(400);
      expect((await attempt({}, '0.0.0.0', falkordb.port)).statusCode).toBe(400);
    } finally {
      await watcher.close();
    }
  });

  it('allows what the list names, by address or range and port, and nothing else', async () => {
    expect(
      (await attempt({ DATABASE_HOSTS: `127.0.0.0/8:${falkordb.port}` }, '127.0.0.1', falkordb.port)).statusCode,
    ).toBe(200);
    expect((await attempt({ DATABASE_HOSTS: '127.0.0.1:1' }, '127.0.0.1', falkordb.port)).statusCode).toBe(400);
    expect((await attempt({ DATABASE_HOSTS: '10.0.0.0/8' }, '127.0.0.1', falkordb.port)).statusCode).toBe(400);
  });

  it('stops an existing token whose host the list no longer names', async () => {
    const open = await startTestApp({ falkordb, env: { DATABASE_HOSTS: '127.0.0.1' } });
    const created = await open.app.inject({
      method: 'POST',
      url: '/api/auth/tokens/credentials',
      payload: { username: 'default', password: '', host: '127.0.0.1', port: String(falkordb.port), tls: 'false' },
    });
    await open.close();
    const closed = await startTestApp({ falkordb, env: { DATABASE_HOSTS: '10.0.0.0/8' } });
    try {
      const res = await closed.app.inject({
        method: 'GET',
        url: '/api/graph',
        headers: { authorization: `Bearer ${created.json<{ token: string }>().token}` },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        message: 'Database host 127.0.0.1 is not allowed on this server (see DATABASE_HOSTS)',
        code: 'forbidden',
      });
    } finally {
      await closed.close();
    }
  });
});
