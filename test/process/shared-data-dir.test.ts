// Two server processes without Kubernetes share DATA_DIR (and a token store): admin users created concurrently
// through both are all kept. The file stores' read-check-write holds a lock between processes, not only a mutex in
// each one.
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRETS } from '../support/app.js';
import { startTestFalkorDB, type TestFalkorDB } from '../support/falkordb.js';
import { runServerProcess, type ServerProcess } from '../support/server-process.js';
import { stopServers } from '../support/store-servers.js';

const ADMIN = { email: 'root@corp.example', password: 'shared-dir-password-1' };
const CLIENTS = 20;
const USERS_PER_CLIENT = 4;

let store: TestFalkorDB;
let dataDir: string;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  store = await startTestFalkorDB();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-shared-dir-'));
  // One after the other: the first creates the first admin, the second finds it.
  for (let i = 0; i < 2; i++) {
    const server = await runServerProcess({
      ...TEST_SECRETS,
      LOG_LEVEL: 'info',
      DATA_DIR: dataDir,
      TOKEN_STORE_URL: store.url,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
    });
    servers.push(server);
    await server.waitForLine((l) => typeof l.msg === 'string' && l.msg.startsWith('Server listening at'), 60_000);
  }
}, 150_000);
afterAll(async () => {
  await stopServers(servers);
  await store?.stop();
});

async function signIn(server: ServerProcess): Promise<string> {
  const res = await fetch(`${server.baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.baseUrl },
    body: JSON.stringify(ADMIN),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.headers.getSetCookie()[0]!.split(';')[0]!;
}

describe('two server processes sharing DATA_DIR', () => {
  it('keep every admin user either of them acknowledged, with 20 clients creating users through both', async () => {
    const cookies = [await signIn(servers[0]!), await signIn(servers[1]!)];
    const acknowledged: string[] = [];
    const otherAnswers: string[] = [];
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        const server = servers[client % 2]!;
        for (let i = 0; i < USERS_PER_CLIENT; i++) {
          const email = `user-${client}-${i}@corp.example`;
          const res = await fetch(`${server.baseUrl}/api/users/`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', origin: server.baseUrl, cookie: cookies[client % 2]! },
            body: JSON.stringify({ email, name: email, role: 'viewer', password: 'viewer-password-1' }),
          });
          if (res.status === 201) acknowledged.push(email);
          else otherAnswers.push(`${res.status} ${await res.text()}`);
        }
      }),
    );
    // Conflicts beyond the bounded retries may answer 409; nothing else is expected, and most writes succeed.
    for (const answer of otherAnswers) expect(answer).toMatch(/^409 /);
    expect(acknowledged.length).toBeGreaterThan((CLIENTS * USERS_PER_CLIENT) / 2);

    // What is on disk: every acknowledged user is in the shared user list.
    const secretsDir = path.join(dataDir, 'admin', 'secrets');
    const files = (await readdir(secretsDir)).filter((name) => name.endsWith('.json'));
    const stored = (await Promise.all(files.map((name) => readFile(path.join(secretsDir, name), 'utf8')))).join('\n');
    const missing = acknowledged.filter((email) => !stored.includes(email));
    expect(missing, `${missing.length} of ${acknowledged.length} acknowledged users missing`).toEqual([]);

    // And each server lists them.
    for (const [index, server] of servers.entries()) {
      const res = await fetch(`${server.baseUrl}/api/users/?limit=100`, { headers: { cookie: cookies[index]! } });
      const text = await res.text();
      expect(res.status).toBe(200);
      expect(acknowledged.filter((email) => !text.includes(email))).toEqual([]);
    }
  }, 120_000);
});
