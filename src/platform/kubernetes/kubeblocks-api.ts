// The KubeBlocks API as every part of the cluster adapter reaches it: its groups and labels, which versions the
// installed KubeBlocks serves (detected once), the two API clients and the one translation of their errors.
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { countedKubeErrors, isNotFound, translateKubeError } from './kube-errors.js';

export const CLUSTER_GROUP = 'apps.kubeblocks.io';

export interface KubeBlocksApi {
  clusterVersion: 'v1' | 'v1alpha1';
  opsGroup: string;
}

/** KubeBlocks 1.x serves Cluster at v1 and OpsRequest in operations.kubeblocks.io; 0.9 has both in apps/v1alpha1. */
export async function detectKubeBlocks(kubeConfig: KubeConfig): Promise<KubeBlocksApi> {
  // Discovery, not a list: any authenticated identity may read it, while listing clusters across namespaces
  // needs a ClusterRole the chart grants only in multi-cluster mode.
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  try {
    const { resources } = await api.getAPIResources({ group: CLUSTER_GROUP, version: 'v1' });
    if (resources.some((resource) => resource.name === 'clusters'))
      return { clusterVersion: 'v1', opsGroup: 'operations.kubeblocks.io' };
  } catch (error) {
    if (!isNotFound(error)) throw translateKubeError(error, { verb: 'discover', resource: 'the KubeBlocks API' });
  }
  return { clusterVersion: 'v1alpha1', opsGroup: CLUSTER_GROUP };
}

/** What the parts of the cluster adapter share: the clients, the detected versions and the error translation. */
export interface KubeBlocksAccess {
  objects: CustomObjectsApi;
  core: CoreV1Api;
  /** The versions the installed KubeBlocks serves, detected at the first call (and again after a failed one). */
  apiVersions: () => Promise<KubeBlocksApi>;
  /** An API error as a port error; counted by kind (onError) unless it is a 404, which callers often expect. */
  failure: (error: unknown, verb: string, what: string) => Error;
}

/**
 * `detected`: the result of detectKubeBlocks at start-up, when it succeeded; otherwise detection happens (once)
 * at the first request, so a server that starts while the API server is briefly away still comes up.
 */
export function kubeBlocksAccess(
  kubeConfig: KubeConfig,
  detected?: KubeBlocksApi,
  onError?: (kind: string) => void,
): KubeBlocksAccess {
  let detection: Promise<KubeBlocksApi> | undefined = detected ? Promise.resolve(detected) : undefined;
  const counted = countedKubeErrors(onError);
  return {
    objects: kubeConfig.makeApiClient(CustomObjectsApi),
    core: kubeConfig.makeApiClient(CoreV1Api),
    apiVersions: () => {
      detection ??= detectKubeBlocks(kubeConfig).catch((error: unknown) => {
        detection = undefined;
        throw error;
      });
      return detection;
    },
    failure: (error, verb, what) => counted(error, { verb, resource: what }),
  };
}

export const clusterParamsOf = (api: KubeBlocksApi) => ({
  group: CLUSTER_GROUP,
  version: api.clusterVersion,
  plural: 'clusters',
});
