// The real app over the Kubernetes API double, wired as services.ts wires it (settings and users in the double,
// KubeBlocks clusters, the readiness probe), with a chosen Kubernetes request timeout; several replicas may share
// one double.
import { pino } from 'pino';
import { loadKubeConfig, kubernetesReadiness } from '../../src/platform/kubernetes/kube-config.js';
import { createKubeAdminStores } from '../../src/platform/kubernetes/kube-stores.js';
import { createKubeBlocksClusters } from '../../src/platform/kubernetes/kubeblocks.js';
import { ADMIN, NAMESPACE } from './admin.js';
import { startTestApp, type TestApp } from './app.js';
import type { TestFalkorDB } from './falkordb.js';
import type { KubeApiDouble } from './kube/kube-api-double.js';

export async function startKubeReplica(
  kube: KubeApiDouble,
  options: { timeoutMs?: number; falkordb?: TestFalkorDB; env?: Record<string, string> } = {},
): Promise<TestApp> {
  const kubeConfig = loadKubeConfig({ kind: 'kubeconfig', path: kube.kubeconfigPath }, options.timeoutMs);
  return startTestApp({
    falkordb: options.falkordb,
    env: { SETTINGS_REFRESH_MS: '0', PUBLIC_ORIGIN: 'https://admin.corp.example', ...options.env },
    deps: {
      adminStores: createKubeAdminStores(kubeConfig, NAMESPACE),
      readinessChecks: [{ name: 'kubernetes', check: kubernetesReadiness(kubeConfig) }],
      clusters: createKubeBlocksClusters(kubeConfig, pino({ level: 'silent' }), {
        clusterVersion: 'v1',
        opsGroup: 'operations.kubeblocks.io',
      }),
      firstAdmin: { email: ADMIN.email, password: ADMIN.password },
    },
  });
}
