// KubeBlocks' side of the cluster tests against a real API server, played by the admin: Cluster objects created
// like `kubectl apply` (their status written through the status subresource, as the KubeBlocks controller does,
// since the API server ignores status on create), and OpsRequests moved through their phases.
import { CustomObjectsApi, KubernetesObjectApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { KubeObject } from './kube-api-double.js';
import { nextOpsStatus } from './kubeblocks-fixtures.js';

function groupVersion(apiVersion: string): { group: string; version: string } {
  const [group, version] = apiVersion.split('/');
  return { group: group!, version: version! };
}

/** Creates a Cluster (or any custom object), then sets the status it carries, as its controller would. */
export async function createWithStatus(admin: KubeConfig, object: KubeObject): Promise<KubeObject> {
  const { status, ...rest } = object;
  const created = (await KubernetesObjectApi.makeApiClient(admin).create(rest as KubernetesObject)) as KubeObject;
  if (status === undefined) return created;
  const { group, version } = groupVersion(object.apiVersion ?? '');
  const body = { ...created, status };
  return (await admin.makeApiClient(CustomObjectsApi).replaceNamespacedCustomObjectStatus({
    group,
    version,
    plural: 'clusters',
    namespace: created.metadata.namespace!,
    name: created.metadata.name!,
    body,
  })) as KubeObject;
}

export interface OpsRef {
  apiVersion: string;
  namespace: string;
  name: string;
}

export async function readOpsRequest(admin: KubeConfig, ops: OpsRef): Promise<KubeObject> {
  const { group, version } = groupVersion(ops.apiVersion);
  return (await admin.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
    group,
    version,
    plural: 'opsrequests',
    namespace: ops.namespace,
    name: ops.name,
  })) as KubeObject;
}

/** Moves one OpsRequest a step through the status subresource: Pending → Creating → Running (1/2) → Succeed (2/2). */
export async function advanceOpsRequest(admin: KubeConfig, ops: OpsRef): Promise<string> {
  const current = await readOpsRequest(admin, ops);
  const { phase, status } = nextOpsStatus(current.status);
  const { group, version } = groupVersion(ops.apiVersion);
  await admin.makeApiClient(CustomObjectsApi).replaceNamespacedCustomObjectStatus({
    group,
    version,
    plural: 'opsrequests',
    namespace: ops.namespace,
    name: ops.name,
    body: { ...current, status },
  });
  return phase;
}

/**
 * Creates any custom object (`resource` is `group/version/plural`; an object without a namespace is cluster-scoped),
 * then writes the status it carries through the status subresource, as its controller would.
 */
export async function applyWithStatus(admin: KubeConfig, resource: string, object: KubeObject): Promise<void> {
  const [group, version, plural] = resource.split('/') as [string, string, string];
  const { status, ...rest } = object;
  const api = admin.makeApiClient(CustomObjectsApi);
  const namespace = object.metadata.namespace;
  const created = (
    namespace
      ? await api.createNamespacedCustomObject({ group, version, plural, namespace, body: rest })
      : await api.createClusterCustomObject({ group, version, plural, body: rest })
  ) as KubeObject;
  if (status !== undefined) await writeStatus(admin, resource, namespace ?? '', created.metadata.name!, status);
}

/**
 * Replaces an object's status through its status subresource (namespace '' for a cluster-scoped object).
 * With `expectedVersion` the write is conditional, as a controller's is: it fails with 409 when the object changed
 * since the caller read it. Without it the latest object is read and written, again after a conflict.
 */
export async function writeStatus(
  admin: KubeConfig,
  resource: string,
  namespace: string,
  name: string,
  status: unknown,
  expectedVersion?: string,
): Promise<void> {
  const [group, version, plural] = resource.split('/') as [string, string, string];
  const api = admin.makeApiClient(CustomObjectsApi);
  for (let attempt = 1; ; attempt++) {
    const current = (
      namespace
        ? await api.getNamespacedCustomObject({ group, version, plural, namespace, name })
        : await api.getClusterCustomObject({ group, version, plural, name })
    ) as KubeObject;
    const metadata = expectedVersion ? { ...current.metadata, resourceVersion: expectedVersion } : current.metadata;
    const body = { ...current, metadata, status };
    try {
      if (namespace) await api.replaceNamespacedCustomObjectStatus({ group, version, plural, namespace, name, body });
      else await api.replaceClusterCustomObjectStatus({ group, version, plural, name, body });
      return;
    } catch (error) {
      const conflict = (error as { code?: number }).code === 409;
      if (!conflict || expectedVersion !== undefined || attempt === 5) throw error;
    }
  }
}

/** An object as the API server stores it; undefined when there is none. */
export async function readObject(
  admin: KubeConfig,
  resource: string,
  namespace: string,
  name: string,
): Promise<KubeObject | undefined> {
  const [group, version, plural] = resource.split('/') as [string, string, string];
  const api = admin.makeApiClient(CustomObjectsApi);
  try {
    return (
      namespace
        ? await api.getNamespacedCustomObject({ group, version, plural, namespace, name })
        : await api.getClusterCustomObject({ group, version, plural, name })
    ) as KubeObject;
  } catch (error) {
    if ((error as { code?: number }).code === 404) return undefined;
    throw error;
  }
}
