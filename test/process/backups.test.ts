// Backups in embedded mode as `npm start` runs them: src/main.ts as a child process with its own FalkorDB
// (accounts, AOF on), so the wiring of services.ts is what is tested: a backup through the admin API lands in
// DATA_DIR/backups, a restore brings back the graphs changed and deleted since, and the admin's session still works
// after it.
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FalkorDB } from 'falkordb';
import { describe, expect, it } from 'vitest';
import { runServerProcess } from '../support/server-process.js';
import { eventually } from '../support/wait.js';

interface EmbeddedLine {
  embeddedFalkorDB: { host: string; port: number; username: string; passwordFile: string };
}

describe('backups of the embedded FalkorDB, from the server process', () => {
  it('backs up through the API and restores the graphs as they were', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-backups-main-'));
    const server = await runServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    try {
      const { embeddedFalkorDB: embedded } = (await server.waitForLine(
        (l) => 'embeddedFalkorDB' in l,
      )) as unknown as EmbeddedLine;
      await server.waitForLine((l) => typeof l.msg === 'string' && l.msg.startsWith('Server listening at'));
      const graphs = async <T>(work: (db: FalkorDB) => Promise<T>): Promise<T> => {
        const db = await FalkorDB.connect({
          username: embedded.username,
          password: (await readFile(embedded.passwordFile, 'utf8')).trim(),
          socket: { host: embedded.host, port: embedded.port },
        });
        try {
          return await work(db);
        } finally {
          await db.close();
        }
      };
      await graphs(async (db) => {
        await db.selectGraph('library').query("CREATE (:Book {title: 'Dune'}), (:Book {title: 'Emma'})");
      });

      const password = (await readFile(path.join(dataDir, 'initial-admin-password'), 'utf8')).trim();
      const login = await fetch(`${server.baseUrl}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@localhost', password }),
      });
      expect(login.status).toBe(200);
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      const api = (method: string, url: string, body?: unknown) =>
        fetch(`${server.baseUrl}${url}`, {
          method,
          headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });

      // Browser tokens live in database 1: one is revoked and one issued after the backup; the restore must keep that.
      const newToken = async () => {
        const res = await fetch(`${server.baseUrl}/api/auth/tokens/credentials`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            username: embedded.username,
            password: (await readFile(embedded.passwordFile, 'utf8')).trim(),
            host: embedded.host,
            port: String(embedded.port),
            tls: 'false',
          }),
        });
        expect(res.status).toBe(200);
        return ((await res.json()) as { token: string }).token;
      };
      const tokenStatus = async (baseUrl: string, token: string) =>
        (await fetch(`${baseUrl}/api/status`, { headers: { authorization: `Bearer ${token}` } })).status;
      const revoked = await newToken();

      const created = await api('POST', '/api/clusters/embedded/backups/', {
        backupName: 'nightly-1',
        backupMethod: 'datafile',
      });
      expect(created.status, await created.clone().text()).toBe(201);
      await eventually(
        async () =>
          ((await (await api('GET', '/api/clusters/embedded/backups/nightly-1')).json()) as { status: string })
            .status === 'completed',
        20_000,
      );
      expect(await readdir(path.join(dataDir, 'backups'))).toEqual(
        expect.arrayContaining(['nightly-1.rdb', 'nightly-1.json']),
      );

      const jti = (JSON.parse(Buffer.from(revoked.split('.')[1]!, 'base64url').toString('utf8')) as { jti: string })
        .jti;
      const revocation = await fetch(`${server.baseUrl}/api/auth/tokens/${jti}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${revoked}` },
      });
      expect(revocation.status, await revocation.clone().text()).toBeLessThan(300);
      const issued = await newToken();
      await graphs(async (db) => {
        await db.selectGraph('library').query("CREATE (:Book {title: 'Ulysses'})");
        await db.selectGraph('scratch').query('CREATE (:Note)');
      });

      const restore = await api('POST', '/api/clusters/embedded/restores/', { backup: { name: 'nightly-1' } });
      expect(restore.status, await restore.clone().text()).toBe(201);
      const { name } = (await restore.json()) as { name: string };
      let last: { status: string; message?: string } = { status: '' };
      await eventually(async () => {
        last = (await (await api('GET', `/api/clusters/embedded/restores/${name}`)).json()) as typeof last;
        return last.status === 'completed' || last.status === 'failed';
      }, 30_000);
      expect(last, JSON.stringify(last)).toMatchObject({ status: 'completed' });

      const state = await graphs(async (db) => ({
        list: (await db.list()).sort(),
        books: (
          await db
            .selectGraph('library')
            .roQuery<{ title: string }>('MATCH (b:Book) RETURN b.title AS title ORDER BY title')
        ).data?.map((row) => row.title),
      }));
      expect(state).toEqual({ list: ['library'], books: ['Dune', 'Emma'] });
      // The server answers as before the restore.
      expect((await api('GET', '/api/auth/validate')).status).toBe(200);

      // After a restart (no token cached in memory), the tokens are as they were just before the restore: the
      // revoked one stays revoked, the one issued after the backup still works.
      server.child.kill('SIGTERM');
      expect((await server.exited).code).toBe(0);
      const again = await runServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
      try {
        await again.waitForLine((l) => typeof l.msg === 'string' && l.msg.startsWith('Server listening at'));
        expect(await tokenStatus(again.baseUrl, issued)).toBe(200);
        expect(await tokenStatus(again.baseUrl, revoked)).toBe(401);
      } finally {
        again.child.kill('SIGTERM');
        expect((await again.exited).code).toBe(0);
      }
    } finally {
      if (server.child.exitCode === null) {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    }
  }, 90_000);
});
