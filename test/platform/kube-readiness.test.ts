import { describe, expect, it } from 'vitest';
import { startKubeApiDouble } from '../support/kube/kube-api-double.js';
import { startTestFalkorDB } from '../support/falkordb.js';
import { runServerProcess, type ServerProcess } from '../support/server-process.js';
import { eventually, sleep } from '../support/wait.js';

/** Polls /readyz until it answers 200 and returns that answer; fails after 20 s with what the server logged. */
async function untilReady(server: ServerProcess): Promise<Response | undefined> {
  let ready: Response | undefined;
  await eventually(
    async () => {
      ready = await fetch(`${server.baseUrl}/readyz`).catch(() => undefined);
      return ready?.status === 200;
    },
    20_000,
    100,
  ).catch((error: unknown) => {
    throw new Error(
      `${String(error)}; last answer ${ready?.status}; the server logged ${JSON.stringify(server.lines)}`,
    );
  });
  return ready;
}

describe('readiness with Kubernetes configured', () => {
  it('checks the API server named by KUBECONFIG with its credentials; stays ready (degraded) through a short outage, then turns 503', async () => {
    const kube = await startKubeApiDouble();
    const falkordb = await startTestFalkorDB();
    const OUTAGE_READY_MS = 1500;
    const server = await runServerProcess({
      TOKEN_STORE_URL: falkordb.url,
      KUBECONFIG: kube.kubeconfigPath,
      LOG_LEVEL: 'warn',
      KUBERNETES_OUTAGE_READY_MS: String(OUTAGE_READY_MS),
    });
    try {
      const ready = await untilReady(server);
      expect(ready?.status, JSON.stringify(server.lines)).toBe(200);
      expect(await ready?.json()).toEqual({
        status: 'ready',
        checks: { tokenStore: { ok: true }, settings: { ok: true }, kubernetes: { ok: true } },
      });
      expect(kube.requests).toContainEqual({ method: 'GET', path: '/version' });

      await kube.close();
      const gone = Date.now();
      // Every replica sees the same outage: they keep serving from their last good copies instead of all leaving.
      const degraded = await fetch(`${server.baseUrl}/readyz`);
      expect(degraded.status).toBe(200);
      expect(await degraded.json()).toEqual({
        status: 'degraded',
        checks: { tokenStore: { ok: true }, settings: { ok: true }, kubernetes: { ok: false } },
      });
      // The outage has to outlast KUBERNETES_OUTAGE_READY_MS: time passing is what is under test.
      await sleep(gone + OUTAGE_READY_MS + 300 - Date.now());
      const notReady = await fetch(`${server.baseUrl}/readyz`);
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toEqual({
        status: 'not ready',
        checks: { tokenStore: { ok: true }, settings: { ok: true }, kubernetes: { ok: false } },
      });
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      await falkordb.stop();
    }
  }, 60_000);

  it('leaves the Service at once when the API server refuses its credentials (waiting will not fix a 401)', async () => {
    const kube = await startKubeApiDouble();
    const falkordb = await startTestFalkorDB();
    const server = await runServerProcess({
      TOKEN_STORE_URL: falkordb.url,
      KUBECONFIG: kube.kubeconfigPath,
      LOG_LEVEL: 'warn',
    });
    try {
      expect((await untilReady(server))?.status).toBe(200);
      // Within the (default, five-minute) outage window, yet not tolerated: the token was revoked.
      kube.failRequests({ pathIncludes: '/version' }, 401, 'Unauthorized', 'Unauthorized');
      const refused = await fetch(`${server.baseUrl}/readyz`);
      expect(refused.status).toBe(503);
      expect(await refused.json()).toEqual({
        status: 'not ready',
        checks: { tokenStore: { ok: true }, settings: { ok: true }, kubernetes: { ok: false } },
      });
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      await falkordb.stop();
      await kube.close();
    }
  }, 60_000);
});
