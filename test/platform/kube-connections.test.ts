// The API clients built from our KubeConfig share keep-alive connections: @kubernetes/client-node alone opens a new
// TLS connection for every request.
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeConfig } from '../../src/platform/kubernetes/kube-config.js';
import { startKubeApiDouble, type KubeApiDouble } from '../support/kube/kube-api-double.js';

describe('connections to the Kubernetes API server', () => {
  let kube: KubeApiDouble;
  beforeAll(async () => {
    kube = await startKubeApiDouble();
  });
  afterAll(async () => {
    await kube.close();
  });

  it('sends sequential requests of every API client over one TLS connection', async () => {
    const kubeConfig = loadKubeConfig({ kind: 'kubeconfig', path: kube.kubeconfigPath });
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const otherClient = kubeConfig.makeApiClient(CoreV1Api);
    const before = kube.tlsConnections();
    const created = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'pooled' }, data: { a: '1' } },
    });
    expect(created.data).toEqual({ a: '1' });
    for (let read = 0; read < 4; read++) {
      const client = read % 2 === 0 ? core : otherClient;
      const found = await client.readNamespacedConfigMap({ namespace: 'default', name: 'pooled' });
      expect(found.data).toEqual({ a: '1' });
    }
    expect(kube.tlsConnections() - before).toBe(1);
  });

  it('opens more connections for concurrent requests, and reuses them after', async () => {
    const kubeConfig = loadKubeConfig({ kind: 'kubeconfig', path: kube.kubeconfigPath });
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const before = kube.tlsConnections();
    const readAll = () =>
      Promise.all(Array.from({ length: 3 }, () => core.listNamespacedConfigMap({ namespace: 'default' })));
    await readAll();
    const opened = kube.tlsConnections() - before;
    expect(opened).toBeGreaterThanOrEqual(1);
    expect(opened).toBeLessThanOrEqual(3);
    await readAll();
    expect(kube.tlsConnections() - before).toBe(opened);
  });
});
