// KubeBlocks' objects as a test reads and writes them behind the server's back, the same way over the Kubernetes API
// double and over a real API server (the admin's kubectl, status through the status subresource as a controller
// writes it): one CLI suite runs over either (`npm run test:kube` picks the real one, test/support/admin.ts ADAPTERS).
import { CustomObjectsApi } from '@kubernetes/client-node';
import type { AdminTestApp } from '../admin.js';
import type { KubeObject } from './kube-api-double.js';
import { applyWithStatus, readObject, writeStatus } from './real-kubeblocks.js';

export interface ObjectStore {
  /**
   * Creates the object, or replaces its status when it exists (`namespace` '' for cluster-scoped objects). An object
   * read earlier (carrying its resourceVersion) is written only when unchanged since, as a controller's write is.
   */
  put(resource: string, namespace: string, object: KubeObject): Promise<void>;
  get(resource: string, namespace: string, name: string): Promise<KubeObject | undefined>;
  /** Every object of the resource, in every namespace. */
  list(resource: string): Promise<KubeObject[]>;
}

export function objectStoreOf(t: Pick<AdminTestApp, 'kube' | 'real'>): ObjectStore {
  const kube = t.kube;
  if (kube)
    return {
      put: (resource, namespace, object) => {
        kube.put(resource, namespace, object);
        return Promise.resolve();
      },
      get: (resource, namespace, name) => Promise.resolve(kube.get(resource, namespace, name)),
      list: (resource) => Promise.resolve(kube.list(resource)),
    };
  const admin = t.real!.api.admin;
  const api = admin.makeApiClient(CustomObjectsApi);
  return {
    put: async (resource, namespace, object) => {
      const name = object.metadata.name!;
      const namespaced = { ...object, metadata: { ...object.metadata, ...(namespace ? { namespace } : {}) } };
      if (await readObject(admin, resource, namespace, name))
        await writeStatus(admin, resource, namespace, name, object.status, object.metadata.resourceVersion);
      else await applyWithStatus(admin, resource, namespaced);
    },
    get: (resource, namespace, name) => readObject(admin, resource, namespace, name),
    list: async (resource) => {
      const [group, version, plural] = resource.split('/') as [string, string, string];
      const answer = (await api.listClusterCustomObject({ group, version, plural })) as { items: KubeObject[] };
      return answer.items;
    },
  };
}
