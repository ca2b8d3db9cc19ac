// Adapters are loaded when the configuration asks for them: an embedded start (no Kubernetes, no identity provider
// configured) must not load the Kubernetes client or the OpenID client, which would cost tens of MiB and hundreds of
// milliseconds at every start (src/platform/kubernetes/kube-adapters.ts, src/platform/oidc/oidc-clients.ts). The
// server speaks to Redis-protocol servers through node-redis' core (@redis/client), never through the `redis`
// package, which loads the RedisJSON, search, time-series and probabilistic modules' command sets too (about 150
// files, 4 MiB at ready; docs/performance.md).
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runServerProcess } from '../support/server-process.js';

const RECORDER = new URL('../support/record-packages.ts', import.meta.url).href;

describe('an embedded start', () => {
  it('loads neither the Kubernetes client, nor the OpenID client, nor the Redis module command sets', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-lazy-'));
    const recordFile = path.join(dataDir, 'packages.txt');
    const server = await runServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'info', RECORD_PACKAGES_FILE: recordFile }, [
      '--import',
      RECORDER,
    ]);
    try {
      await server.waitForLine((l) => typeof l.msg === 'string' && l.msg.includes(' is ready at '), 60_000);
      // A sign-in with a provider nobody configured is refused without the OpenID client.
      const signIn = await fetch(`${server.baseUrl}/api/auth/oauth/alpha`, { redirect: 'manual' });
      expect(signIn.status).toBeGreaterThanOrEqual(400);
      expect(signIn.status).toBeLessThan(500);
      const packages = readFileSync(recordFile, 'utf8').trim().split('\n');
      // The recorder works: the packages every start needs are there.
      expect(packages).toEqual(expect.arrayContaining(['fastify', 'pino', 'zod']));
      expect(packages).not.toContain('@kubernetes/client-node');
      expect(packages).not.toContain('openid-client');
      expect(packages).toContain('@redis/client');
      for (const unused of ['redis', '@redis/bloom', '@redis/json', '@redis/search', '@redis/time-series'])
        expect(packages).not.toContain(unused);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});
