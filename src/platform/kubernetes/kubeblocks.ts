// The cluster port on KubeBlocks: Cluster objects (apps.kubeblocks.io v1, or v1alpha1 on KubeBlocks 0.9), parsed
// once per object version, with the OpsRequests, the version catalog and each cluster's Pods, configuration and
// account from their own modules. Objects that do not parse are skipped with a warning.
import type { KubeConfig } from '@kubernetes/client-node';
import type { ClusterObject, ClusterPort, ClusterScope, NewCluster } from '../clusters/cluster-port.js';
import { RawClusterSchema, toClusterRecord, type ClusterRecord } from '../clusters/cluster-records.js';
import { clusterManifest } from './cluster-manifest.js';
import type { PlatformLogger } from '../logger.js';
import { PortError } from '../port-errors.js';
import { isNotFound } from './kube-errors.js';
import {
  CLUSTER_GROUP,
  clusterParamsOf,
  kubeBlocksAccess,
  type KubeBlocksAccess,
  type KubeBlocksApi,
} from './kubeblocks-api.js';
import { kubeBlocksClusterResources } from './kubeblocks-cluster-resources.js';
import { kubeBlocksOperations } from './kubeblocks-operations.js';
import { kubeBlocksVersions } from './kubeblocks-versions.js';

const FALKORDB_LABEL = 'clusterdefinition.kubeblocks.io/name=falkordb';

/** Clusters are listed this many per request, and at most CLUSTER_LIST_MAX in all (a bounded answer). */
const CLUSTER_PAGE = 250;
const CLUSTER_LIST_MAX = 2000;

/**
 * What names one version of an object's content: every write gives an object a new resourceVersion, its uid tells
 * it from a namesake created after a delete, and the API version the shape it was served in. Undefined when the
 * object lacks one of them (it is then parsed every time).
 */
export function objectVersionOf(item: unknown): string | undefined {
  const object = item as { apiVersion?: unknown; metadata?: { uid?: unknown; resourceVersion?: unknown } } | null;
  const apiVersion = object?.apiVersion;
  const uid = object?.metadata?.uid;
  const resourceVersion = object?.metadata?.resourceVersion;
  if (typeof apiVersion !== 'string' || typeof uid !== 'string' || typeof resourceVersion !== 'string')
    return undefined;
  if (!apiVersion || !uid || !resourceVersion) return undefined;
  return `${apiVersion}|${uid}|${resourceVersion}`;
}

/** A record shared by the lists that saw the same object version: frozen, so no caller can change it for another. */
function frozenRecord(record: ClusterRecord): ClusterRecord {
  for (const component of record.components) Object.freeze(component);
  Object.freeze(record.components);
  return Object.freeze(record);
}

/**
 * `detected`: the result of detectKubeBlocks at start-up, when it succeeded; otherwise detection happens (once)
 * at the first request, so a server that starts while the API server is briefly away still comes up.
 */
export function createKubeBlocksClusters(
  kubeConfig: KubeConfig,
  logger: PlatformLogger,
  detected?: KubeBlocksApi,
  onError?: (kind: string) => void,
): ClusterPort {
  const access = kubeBlocksAccess(kubeConfig, detected, onError);
  return {
    ...kubeBlocksClusterObjects(access, logger),
    ...kubeBlocksOperations(access),
    ...kubeBlocksVersions(access),
    ...kubeBlocksClusterResources(access),
  };
}

type ClusterObjectMethods = Pick<ClusterPort, 'list' | 'get'> &
  Required<
    Pick<
      ClusterPort,
      'createCluster' | 'deleteCluster' | 'getClusterObject' | 'createClusterObject' | 'replaceClusterObject'
    >
  >;

/** The Cluster objects: list (shared while in flight), read, create, replace and delete. */
function kubeBlocksClusterObjects(access: KubeBlocksAccess, logger: PlatformLogger): ClusterObjectMethods {
  const { objects, apiVersions } = access;
  const counted = access.failure;
  /** The record of one Cluster object; undefined when it does not parse or is not a FalkorDB deployment. */
  function parseCluster(item: unknown): ClusterRecord | undefined {
    const parsed = RawClusterSchema.safeParse(item);
    if (!parsed.success) {
      logger.warn(
        { reason: parsed.error.issues[0]?.message, name: (item as { metadata?: { name?: string } }).metadata?.name },
        'skipping a Cluster object that does not parse',
      );
      return undefined;
    }
    const clusterDef = parsed.data.spec.clusterDef ?? parsed.data.spec.clusterDefinitionRef;
    return clusterDef === undefined || clusterDef === 'falkordb'
      ? frozenRecord(toClusterRecord(parsed.data))
      : undefined;
  }

  // Each object version is parsed once: a list of 1,000 deployments, most unchanged since the last one, reuses their
  // records (and with them the JSON the routes keep per record). Past twice a full list's worth, it starts over. An
  // object that does not parse is warned about once per version, not on every list.
  const parsedVersions = new Map<string, ClusterRecord | undefined>();
  function parseClusters(items: unknown[]): ClusterRecord[] {
    if (parsedVersions.size > 2 * CLUSTER_LIST_MAX) parsedVersions.clear();
    return items.flatMap((item) => {
      const version = objectVersionOf(item);
      if (version !== undefined && parsedVersions.has(version)) {
        const known = parsedVersions.get(version);
        return known ? [known] : [];
      }
      const record = parseCluster(item);
      if (version !== undefined) parsedVersions.set(version, record);
      return record ? [record] : [];
    });
  }

  // A list asked for while the same list is on its way shares that answer (a console polling from many tabs, a
  // burst of CLI calls): one upstream list, not one per caller. Not once a cluster write through this adapter has
  // completed since that list was sent, so a caller always sees its own writes.
  let clusterWrites = 0;
  const listsInFlight = new Map<string, { writes: number; list: Promise<ClusterRecord[]> }>();
  const afterClusterWrite = <T>(write: Promise<T>): Promise<T> =>
    write.finally(() => {
      clusterWrites++;
    });

  async function listOnce(scope: ClusterScope): Promise<ClusterRecord[]> {
    const clusterParams = clusterParamsOf(await apiVersions());
    try {
      // A page at a time (`limit`/`continue`), at most CLUSTER_LIST_MAX objects in all: one request per page,
      // never one per cluster.
      const items: unknown[] = [];
      let token: string | undefined;
      do {
        const page = { labelSelector: FALKORDB_LABEL, limit: CLUSTER_PAGE, ...(token ? { _continue: token } : {}) };
        const reply = (
          'allNamespaces' in scope
            ? await objects.listClusterCustomObject({ ...clusterParams, ...page })
            : await objects.listNamespacedCustomObject({ ...clusterParams, namespace: scope.namespace, ...page })
        ) as { items?: unknown[]; metadata?: { continue?: string } };
        items.push(...(reply.items ?? []));
        token = reply.metadata?.continue || undefined;
      } while (token && items.length < CLUSTER_LIST_MAX);
      return parseClusters(items.slice(0, CLUSTER_LIST_MAX));
    } catch (error) {
      throw counted(error, 'list', 'KubeBlocks clusters');
    }
  }

  const methods: ClusterObjectMethods = {
    list(scope: ClusterScope) {
      const key = 'allNamespaces' in scope ? '*' : `ns:${scope.namespace}`;
      const shared = listsInFlight.get(key);
      if (shared && shared.writes === clusterWrites) return shared.list;
      const list = listOnce(scope).finally(() => {
        if (listsInFlight.get(key)?.list === list) listsInFlight.delete(key);
      });
      listsInFlight.set(key, { writes: clusterWrites, list });
      return list;
    },

    async createCluster(cluster: NewCluster) {
      const api = await apiVersions();
      if (api.clusterVersion !== 'v1')
        throw new PortError('rejected', 'Creating clusters needs KubeBlocks 1.x (apps.kubeblocks.io/v1)');
      try {
        const created: unknown = await objects.createNamespacedCustomObject({
          ...clusterParamsOf(api),
          namespace: cluster.namespace,
          body: clusterManifest(cluster),
        });
        const [record] = parseClusters([created]);
        if (!record)
          throw new PortError('unavailable', `the API server answered an unreadable cluster ${cluster.name}`);
        return record;
      } catch (error) {
        if (error instanceof PortError) throw error;
        throw counted(error, 'create', `cluster ${cluster.namespace}/${cluster.name}`);
      }
    },

    async getClusterObject(namespace, name) {
      const clusterParams = clusterParamsOf(await apiVersions());
      try {
        const object = (await objects.getNamespacedCustomObject({ ...clusterParams, namespace, name })) as {
          metadata?: Record<string, unknown>;
        };
        const { managedFields: _managed, ...metadata } = object.metadata ?? {};
        return { ...object, metadata };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw counted(error, 'get', `cluster ${namespace}/${name}`);
      }
    },

    async createClusterObject(object: ClusterObject) {
      const api = await apiVersions();
      const served = `${CLUSTER_GROUP}/${api.clusterVersion}`;
      if (object.apiVersion !== served)
        throw new PortError('rejected', `apiVersion must be ${served} (the version this KubeBlocks serves)`);
      try {
        const created: unknown = await objects.createNamespacedCustomObject({
          ...clusterParamsOf(api),
          namespace: object.metadata.namespace,
          body: object,
        });
        const [record] = parseClusters([created]);
        if (!record) throw new PortError('unavailable', `the API server answered an unreadable cluster`);
        return record;
      } catch (error) {
        if (error instanceof PortError) throw error;
        throw counted(error, 'create', `cluster ${object.metadata.namespace}/${object.metadata.name}`);
      }
    },

    async replaceClusterObject(object: ClusterObject) {
      const api = await apiVersions();
      const served = `${CLUSTER_GROUP}/${api.clusterVersion}`;
      if (object.apiVersion !== served)
        throw new PortError('rejected', `apiVersion must be ${served} (the version this KubeBlocks serves)`);
      const { namespace, name } = object.metadata;
      try {
        let body = object;
        if (object.metadata.resourceVersion === undefined) {
          const current = (await objects.getNamespacedCustomObject({ ...clusterParamsOf(api), namespace, name })) as {
            metadata?: { resourceVersion?: string };
          };
          body = { ...object, metadata: { ...object.metadata, resourceVersion: current.metadata?.resourceVersion } };
        }
        await objects.replaceNamespacedCustomObject({ ...clusterParamsOf(api), namespace, name, body });
      } catch (error) {
        throw counted(error, 'update', `cluster ${namespace}/${name}`);
      }
    },

    async deleteCluster(namespace, name, options) {
      const clusterParams = clusterParamsOf(await apiVersions());
      try {
        await objects.deleteNamespacedCustomObject({
          ...clusterParams,
          namespace,
          name,
          ...(options?.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: options.gracePeriodSeconds }),
          propagationPolicy: 'Background',
        });
        return true;
      } catch (error) {
        if (isNotFound(error)) return false;
        throw counted(error, 'delete', `cluster ${namespace}/${name}`);
      }
    },

    async get(namespace, name) {
      const clusterParams = clusterParamsOf(await apiVersions());
      try {
        return parseClusters([await objects.getNamespacedCustomObject({ ...clusterParams, namespace, name })])[0];
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw counted(error, 'get', `cluster ${namespace}/${name}`);
      }
    },
  };
  // Cluster writes end the sharing of any list sent before them (see listsInFlight).
  return {
    ...methods,
    createCluster: (cluster) => afterClusterWrite(methods.createCluster(cluster)),
    createClusterObject: (object) => afterClusterWrite(methods.createClusterObject(object)),
    replaceClusterObject: (object) => afterClusterWrite(methods.replaceClusterObject(object)),
    deleteCluster: (namespace, name, options) => afterClusterWrite(methods.deleteCluster(namespace, name, options)),
  };
}
