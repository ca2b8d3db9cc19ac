// Loads the Kubernetes client configuration (a kubeconfig file, or the pod's service account in a cluster)
// and offers the readiness probe of the API server.
import { readFile } from 'node:fs/promises';
import { KubeConfig, VersionApi } from '@kubernetes/client-node';
import type { KubernetesSource } from '../../config.js';

export function loadKubeConfig(source: KubernetesSource): KubeConfig {
  const kubeConfig = new KubeConfig();
  switch (source.kind) {
    case 'kubeconfig':
      kubeConfig.loadFromFile(source.path);
      break;
    case 'in-cluster':
      kubeConfig.loadFromCluster();
      break;
  }
  return kubeConfig;
}

/** Resolves when the API server answers `GET /version` with the configured credentials. */
export function kubernetesReadiness(kubeConfig: KubeConfig): () => Promise<void> {
  const versionApi = kubeConfig.makeApiClient(VersionApi);
  return async () => {
    await versionApi.getCode();
  };
}

const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** The pod's own namespace from its service-account mount, when running in a cluster. */
export async function serviceAccountNamespace(file = SERVICE_ACCOUNT_NAMESPACE): Promise<string | undefined> {
  try {
    return (await readFile(file, 'utf8')).trim() || undefined;
  } catch {
    return undefined;
  }
}
