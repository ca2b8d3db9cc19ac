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
