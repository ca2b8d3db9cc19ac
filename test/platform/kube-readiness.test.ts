import { describe, expect, it } from 'vitest';
import { startKubeApiDouble } from '../support/kube/kube-api-double.js';
import { startTestFalkorDB } from '../support/falkordb.js';
import { runServerProcess } from '../support/server-process.js';

describe('readiness with Kubernetes configured', () => {
  it('checks the API server named by KUBECONFIG with its credentials, and turns 503 when it is gone', async () => {
    const kube = await startKubeApiDouble();
    const falkordb = await startTestFalkorDB();
    const server = await runServerProcess({ TOKEN_STORE_URL: falkordb.url, KUBECONFIG: kube.kubeconfigPath, LOG_LEVEL: 'warn' });
    try {
      let ready: Response | undefined;
      for (let attempt = 0; attempt < 100 && !ready; attempt++) {
        ready = await fetch(`${server.baseUrl}/readyz`).catch(() => undefined);
        if (!ready) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(ready?.status, JSON.stringify(server.lines)).toBe(200);
      expect(await ready?.json()).toEqual({ status: 'ready', checks: { tokenStore: { ok: true }, settings: { ok: true }, kubernetes: { ok: true } } });
      expect(kube.requests).toContainEqual({ method: 'GET', path: '/version' });

      await kube.close();
      const notReady = await fetch(`${server.baseUrl}/readyz`);
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toEqual({ status: 'not ready', checks: { tokenStore: { ok: true }, settings: { ok: true }, kubernetes: { ok: false } } });
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      await falkordb.stop();
    }
  });
});
