// Cluster-scoped facts for the admin API's system routes: the API server's liveness, Namespaces and StorageClasses.
// Namespaces and StorageClasses are cluster-scoped, so only the multi-cluster ClusterRole (chart value
// adminServer.multiClusterRbac) lets the server read them; the system service asks only in multi-cluster mode.
import { ApiException, CoreV1Api, StorageV1Api, VersionApi, type KubeConfig } from '@kubernetes/client-node';
import { translateKubeError } from './kube-errors.js';
import type { StorageClass } from '../../lib/storage-class.js';

export interface NamespaceFact {
  name: string;
  createdAt: string;
  status?: string;
  labels?: Record<string, string>;
}

export interface KubeClusterInfo {
  /** Resolves when the API server answers `GET /version` with the server's credentials. */
  probe(): Promise<void>;
  namespaces(): Promise<NamespaceFact[]>;
  storageClasses(): Promise<StorageClass[]>;
}

/** A list is read in one page of at most this many objects. */
const LIST_LIMIT = 500;
const DEFAULT_CLASS = 'storageclass.kubernetes.io/is-default-class';
const BETA_DEFAULT_CLASS = 'storageclass.beta.kubernetes.io/is-default-class';

const timestamp = (value: Date | string | undefined): string =>
  value === undefined ? '' : value instanceof Date ? value.toISOString() : value;

export function createKubeClusterInfo(kubeConfig: KubeConfig, onError?: (kind: string) => void): KubeClusterInfo {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const storage = kubeConfig.makeApiClient(StorageV1Api);
  const version = kubeConfig.makeApiClient(VersionApi);
  const failed = (error: unknown, verb: string, resource: string) => {
    onError?.(error instanceof ApiException ? String(error.code) : 'unreachable');
    return translateKubeError(error, { verb, resource });
  };
  return {
    async probe() {
      try {
        await version.getCode();
      } catch (error) {
        throw failed(error, 'get', 'the API server version');
      }
    },
    async namespaces() {
      try {
        const { items } = await core.listNamespace({ limit: LIST_LIMIT });
        return items.map((item) => ({
          name: item.metadata?.name ?? '',
          createdAt: timestamp(item.metadata?.creationTimestamp),
          ...(item.status?.phase ? { status: item.status.phase } : {}),
          ...(item.metadata?.labels ? { labels: item.metadata.labels } : {}),
        }));
      } catch (error) {
        throw failed(error, 'list', 'namespaces');
      }
    },
    async storageClasses() {
      try {
        const { items } = await storage.listStorageClass({ limit: LIST_LIMIT });
        return items.map((item) => {
          const annotations = item.metadata?.annotations ?? {};
          return {
            name: item.metadata?.name ?? '',
            provisioner: item.provisioner,
            ...(item.reclaimPolicy ? { reclaimPolicy: item.reclaimPolicy } : {}),
            ...(item.volumeBindingMode ? { volumeBindingMode: item.volumeBindingMode } : {}),
            ...(item.allowVolumeExpansion === undefined ? {} : { allowVolumeExpansion: item.allowVolumeExpansion }),
            isDefault: annotations[DEFAULT_CLASS] === 'true' || annotations[BETA_DEFAULT_CLASS] === 'true',
            createdAt: timestamp(item.metadata?.creationTimestamp),
          };
        });
      } catch (error) {
        throw failed(error, 'list', 'storageclasses');
      }
    },
  };
}
