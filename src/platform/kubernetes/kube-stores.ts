// Kubernetes adapters of the storage ports: the settings ConfigMap and Secrets in the server's namespace,
// through @kubernetes/client-node. API failures are translated here into the ports' errors, with messages that
// say what to fix (the RBAC verb that is missing, the server that cannot be reached), never raw API text.
import { ApiException, CoreV1Api, type KubeConfig, type V1ConfigMap, type V1Secret } from '@kubernetes/client-node';
import { unreachableMessage } from './kube-config.js';
import { AlreadyExistsError, StaleVersionError, StoreRejectedError, StoreUnavailableError, type AdminStores, type ConfigMapPort, type DataMap, type SecretPort, type Versioned } from '../stores/ports.js';

export const SETTINGS_CONFIGMAP = 'graphdb-admin-settings';
const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'graphdb-admin-server' };

interface StatusBody {
  message?: string;
  reason?: string;
}

function statusOf(error: unknown): { code: number; body: StatusBody } | undefined {
  if (!(error instanceof ApiException)) return undefined;
  let body: StatusBody = {};
  const raw: unknown = error.body;
  if (typeof raw === 'string') {
    try {
      body = JSON.parse(raw) as StatusBody;
    } catch {
      body = {};
    }
  } else if (raw && typeof raw === 'object') body = raw;
  return { code: error.code, body };
}

/** Maps an API failure for `verb` on `resource` to the ports' errors; returns undefined for a 404. */
function translate(error: unknown, verb: string, resource: string, namespace: string): Error | undefined {
  const status = statusOf(error);
  if (!status) return new StoreUnavailableError(unreachableMessage(error), 503);
  switch (status.code) {
    case 404:
      return undefined;
    case 409:
      return status.body.reason === 'AlreadyExists' ? new AlreadyExistsError(resource) : new StaleVersionError(resource);
    case 422:
      return new StoreRejectedError(`Kubernetes rejected ${resource}: ${status.body.message ?? 'invalid object'}`);
    case 401:
      return new StoreUnavailableError('The Kubernetes API server refused the server\'s credentials', 500);
    case 403:
      return new StoreUnavailableError(`The server's service account may not ${verb} ${resource.split('/')[0]} in namespace ${namespace}; grant it in the chart's Role`, 500);
    default:
      return new StoreUnavailableError(`The Kubernetes API server answered ${status.code} to ${verb} ${resource}`, 503);
  }
}

/** Counts failed API calls by status (or `unreachable`), for the metrics. */
export type KubeErrorObserver = (kind: string) => void;

async function call<T>(verb: string, resource: string, namespace: string, work: () => Promise<T>, onError?: KubeErrorObserver): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    // A 404 is an answer (the object does not exist), not an error.
    if (!(error instanceof ApiException && error.code === 404)) onError?.(error instanceof ApiException ? String(error.code) : 'unreachable');
    const translated = translate(error, verb, resource, namespace);
    if (translated) throw translated;
    return undefined;
  }
}

const decode = (data: Record<string, string> | undefined): DataMap =>
  Object.fromEntries(Object.entries(data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]));
const encode = (data: DataMap): Record<string, string> => Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'utf8').toString('base64')]));

export function createKubeConfigMap(api: CoreV1Api, namespace: string, name = SETTINGS_CONFIGMAP, onError?: KubeErrorObserver): ConfigMapPort {
  const resource = `configmaps/${name}`;
  const versioned = (configMap: V1ConfigMap): Versioned<DataMap> => ({ value: configMap.data ?? {}, version: configMap.metadata?.resourceVersion ?? '' });
  return {
    description: `ConfigMap ${namespace}/${name}`,
    async read() {
      const configMap = await call('get', resource, namespace, () => api.readNamespacedConfigMap({ name, namespace }), onError);
      return configMap ? versioned(configMap) : undefined;
    },
    async write(data, version) {
      const body: V1ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ...(version ? { resourceVersion: version } : { labels: MANAGED_BY }) }, data };
      const written = version
        ? await call('update', resource, namespace, () => api.replaceNamespacedConfigMap({ name, namespace, body }), onError)
        : await call('create', resource, namespace, () => api.createNamespacedConfigMap({ namespace, body }), onError);
      if (!written) throw new StaleVersionError(resource);
      return versioned(written);
    },
  };
}

export function createKubeSecrets(api: CoreV1Api, namespace: string, onError?: KubeErrorObserver): SecretPort {
  const versioned = (secret: V1Secret): Versioned<DataMap> => ({ value: decode(secret.data), version: secret.metadata?.resourceVersion ?? '' });
  return {
    async read(name) {
      const secret = await call('get', `secrets/${name}`, namespace, () => api.readNamespacedSecret({ name, namespace }), onError);
      return secret ? versioned(secret) : undefined;
    },
    async write(name, data, version) {
      const resource = `secrets/${name}`;
      if (version) {
        const current = await call('get', resource, namespace, () => api.readNamespacedSecret({ name, namespace }), onError);
        if (!current) throw new StaleVersionError(resource);
        const body: V1Secret = { ...current, metadata: { ...current.metadata, resourceVersion: version }, data: encode(data) };
        const written = await call('update', resource, namespace, () => api.replaceNamespacedSecret({ name, namespace, body }), onError);
        if (!written) throw new StaleVersionError(resource);
        return versioned(written);
      }
      const body: V1Secret = { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name, namespace, labels: MANAGED_BY }, data: encode(data) };
      const created = await call('create', resource, namespace, () => api.createNamespacedSecret({ namespace, body }), onError);
      if (!created) throw new StaleVersionError(resource);
      return versioned(created);
    },
  };
}

export function createKubeAdminStores(kubeConfig: KubeConfig, namespace: string, onError?: KubeErrorObserver): AdminStores {
  const api = kubeConfig.makeApiClient(CoreV1Api);
  return { settings: createKubeConfigMap(api, namespace, SETTINGS_CONFIGMAP, onError), secrets: createKubeSecrets(api, namespace, onError) };
}
