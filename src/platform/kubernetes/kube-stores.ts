// Kubernetes adapters of the storage ports: the settings and RBAC ConfigMaps and Secrets in the server's namespace,
// through @kubernetes/client-node. API failures become port errors in kube-errors.ts.
import { CoreV1Api, type KubeConfig, type V1ConfigMap, type V1Secret } from '@kubernetes/client-node';
import { countedKubeErrors } from './kube-errors.js';
import {
  MANAGED_BY,
  StaleVersionError,
  type AdminStores,
  type ConfigMapPort,
  type DataMap,
  type SecretPort,
  type StoredSecret,
  type Versioned,
} from '../stores/ports.js';

export const SETTINGS_CONFIGMAP = 'graphdb-admin-settings';
/** Custom roles and group mappings, data key `rbac.json` (the FalkorDB Enterprise admin API's `falkordb-rbac`). */
export const RBAC_CONFIGMAP = 'graphdb-rbac';

/** Counts failed API calls by status (or `unreachable`), for the metrics. */
export type KubeErrorObserver = (kind: string) => void;

async function call<T>(
  verb: string,
  resource: string,
  namespace: string,
  work: () => Promise<T>,
  onError?: KubeErrorObserver,
): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    // A 404 is an answer (the object does not exist), not an error.
    const translated = countedKubeErrors(onError)(error, { verb, resource, namespace });
    if (translated.kind === 'not-found') return undefined;
    throw translated;
  }
}

const decode = (data: Record<string, string> | undefined): DataMap =>
  Object.fromEntries(
    Object.entries(data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]),
  );
const encode = (data: DataMap): Record<string, string> =>
  Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'utf8').toString('base64')]));

export function createKubeConfigMap(
  api: CoreV1Api,
  namespace: string,
  name = SETTINGS_CONFIGMAP,
  onError?: KubeErrorObserver,
): ConfigMapPort {
  const resource = `configmaps/${name}`;
  // The labels and annotations of the version last seen: a replace must carry them, or it would drop what others put
  // there, such as the chart's `helm.sh/resource-policy: keep` (without which the next `helm upgrade` deletes it).
  let lastSeen: { version: string; labels?: Record<string, string>; annotations?: Record<string, string> } | undefined;
  const versioned = (configMap: V1ConfigMap): Versioned<DataMap> => {
    const version = configMap.metadata?.resourceVersion ?? '';
    lastSeen = { version, labels: configMap.metadata?.labels, annotations: configMap.metadata?.annotations };
    return { value: configMap.data ?? {}, version };
  };
  const metadataOf = async (version: string) => {
    if (lastSeen?.version !== version) {
      const current = await call(
        'get',
        resource,
        namespace,
        () => api.readNamespacedConfigMap({ name, namespace }),
        onError,
      );
      // Another version (or none) is there now: the replace below fails with a conflict, as it should.
      if (current) versioned(current);
    }
    const seen = lastSeen?.version === version ? lastSeen : undefined;
    return {
      ...(seen?.labels ? { labels: seen.labels } : {}),
      ...(seen?.annotations ? { annotations: seen.annotations } : {}),
    };
  };
  return {
    description: `ConfigMap ${namespace}/${name}`,
    async read() {
      const configMap = await call(
        'get',
        resource,
        namespace,
        () => api.readNamespacedConfigMap({ name, namespace }),
        onError,
      );
      return configMap ? versioned(configMap) : undefined;
    },
    async write(data, version) {
      const body: V1ConfigMap = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name,
          namespace,
          ...(version ? { ...(await metadataOf(version)), resourceVersion: version } : { labels: { ...MANAGED_BY } }),
        },
        data,
      };
      const written = version
        ? await call(
            'update',
            resource,
            namespace,
            () => api.replaceNamespacedConfigMap({ name, namespace, body }),
            onError,
          )
        : await call('create', resource, namespace, () => api.createNamespacedConfigMap({ namespace, body }), onError);
      if (!written) throw new StaleVersionError(resource);
      return versioned(written);
    },
  };
}

export function createKubeSecrets(api: CoreV1Api, namespace: string, onError?: KubeErrorObserver): SecretPort {
  const versioned = (secret: V1Secret): StoredSecret => ({
    value: decode(secret.data),
    version: secret.metadata?.resourceVersion ?? '',
    labels: { ...secret.metadata?.labels },
  });
  return {
    async read(name) {
      const secret = await call(
        'get',
        `secrets/${name}`,
        namespace,
        () => api.readNamespacedSecret({ name, namespace }),
        onError,
      );
      return secret ? versioned(secret) : undefined;
    },
    async write(name, data, version, labels) {
      const resource = `secrets/${name}`;
      if (version) {
        const current = await call(
          'get',
          resource,
          namespace,
          () => api.readNamespacedSecret({ name, namespace }),
          onError,
        );
        if (!current) throw new StaleVersionError(resource);
        const body: V1Secret = {
          ...current,
          metadata: { ...current.metadata, resourceVersion: version },
          data: encode(data),
        };
        const written = await call(
          'update',
          resource,
          namespace,
          () => api.replaceNamespacedSecret({ name, namespace, body }),
          onError,
        );
        if (!written) throw new StaleVersionError(resource);
        return versioned(written);
      }
      const body: V1Secret = {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'Opaque',
        metadata: { name, namespace, labels: { ...labels, ...MANAGED_BY } },
        data: encode(data),
      };
      const created = await call(
        'create',
        resource,
        namespace,
        () => api.createNamespacedSecret({ namespace, body }),
        onError,
      );
      if (!created) throw new StaleVersionError(resource);
      return versioned(created);
    },
  };
}

export function createKubeAdminStores(
  kubeConfig: KubeConfig,
  namespace: string,
  onError?: KubeErrorObserver,
  names: { settingsConfigMap: string; rbacConfigMap: string } = {
    settingsConfigMap: SETTINGS_CONFIGMAP,
    rbacConfigMap: RBAC_CONFIGMAP,
  },
): AdminStores {
  const api = kubeConfig.makeApiClient(CoreV1Api);
  return {
    settings: createKubeConfigMap(api, namespace, names.settingsConfigMap, onError),
    rbac: createKubeConfigMap(api, namespace, names.rbacConfigMap, onError),
    secrets: createKubeSecrets(api, namespace, onError),
  };
}
