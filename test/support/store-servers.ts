// Two src/main.ts processes on one external token store (the store-topology process tests): started together, each
// able to issue tokens for a graph database, stopped together, and their error lines read apart from the one both
// replicas on one host must log.
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { TEST_SECRETS } from './app.js';
import type { TestFalkorDB } from './falkordb.js';
import { runServerProcess, type ServerProcess } from './server-process.js';

export async function startServersOnStore(tokenStoreUrl: string, count = 2): Promise<ServerProcess[]> {
  const start = async () => {
    const started = await runServerProcess({
      ...TEST_SECRETS,
      LOG_LEVEL: 'info',
      DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'gdb-store-')),
      TOKEN_STORE_URL: tokenStoreUrl,
      DATABASE_HOSTS: '127.0.0.1',
      TOKEN_CREATION_PER_MINUTE: '0',
    });
    await started.waitForLine((l) => typeof l.msg === 'string' && l.msg.startsWith('Server listening at'));
    return started;
  };
  return Promise.all(Array.from({ length: count }, start));
}

export async function stopServers(servers: (ServerProcess | undefined)[]): Promise<void> {
  for (const running of servers) {
    running?.child.kill('SIGTERM');
    await running?.exited;
  }
}

/** A token for the `default` user of `graphs`, issued by `server`, with its id (the JWT's jti). */
export async function issueToken(
  server: ServerProcess,
  graphs: TestFalkorDB,
  name: string,
): Promise<{ token: string; id: string }> {
  const res = await fetch(`${server.baseUrl}/api/auth/tokens/credentials`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'default', host: graphs.host, port: String(graphs.port), tls: 'false', name }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const { token } = (await res.json()) as { token: string };
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { jti: string };
  return { token, id: claims.jti };
}

/**
 * The error lines a server logged, but for the one both replicas on this host log: the second cannot open the
 * metrics exporter's port (9090) the first holds.
 */
export function errorLines(running: ServerProcess) {
  return running.lines.filter(
    (line) => line.level === 50 && !JSON.stringify(line).includes('EADDRINUSE: address already in use 127.0.0.1:9090'),
  );
}
