// KubeBlocks through the Kubernetes API: Cluster objects (apps.kubeblocks.io v1, or v1alpha1 on KubeBlocks 0.9, (one file because Cluster and OpsRequest calls share the KubeBlocks API groups detected once)
// detected once) and OpsRequest objects. Untyped replies are parsed with zod; objects that do not parse are
// skipped with a warning.
import { parseRedisConf } from '../clusters/redis-conf.js';
import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type V1Pod,
} from '@kubernetes/client-node';
import { z } from 'zod';
import type {
  ClusterObject,
  ClusterPort,
  ClusterScope,
  OperationOptions,
  NewCluster,
  OperationRequest,
  PodRecord,
  ResourceAmounts,
  VersionCatalogEntry,
} from '../clusters/cluster-port.js';
import {
  RawClusterSchema,
  RawOpsRequestSchema,
  toClusterRecord,
  toOperationRecord,
  type ClusterRecord,
} from '../clusters/cluster-records.js';
import { newestFirst } from '../clusters/versions.js';
import { clusterManifest } from './cluster-manifest.js';
import type { PlatformLogger } from '../logger.js';
import { PortError } from '../port-errors.js';
import { translateKubeError } from './kube-errors.js';
import { kubeBlocksPodsOf } from './kube-pod-telemetry.js';

const CLUSTER_GROUP = 'apps.kubeblocks.io';
const FALKORDB_LABEL = 'clusterdefinition.kubeblocks.io/name=falkordb';
const INSTANCE_LABEL = 'app.kubernetes.io/instance';
const OPS_TYPE_LABEL = 'operations.kubeblocks.io/ops-type';

export interface KubeBlocksApi {
  clusterVersion: 'v1' | 'v1alpha1';
  opsGroup: string;
}

function failure(error: unknown, verb: string, what: string): Error {
  return translateKubeError(error, { verb, resource: what });
}

/** A KubeBlocks ComponentVersion (apps.kubeblocks.io, cluster-scoped): releases and which definitions use them. */
const RawComponentVersionSchema = z.object({
  metadata: z.object({ name: z.string(), creationTimestamp: z.string().optional() }),
  spec: z
    .object({
      releases: z
        .array(
          z.object({
            name: z.string(),
            serviceVersion: z.string(),
            images: z.record(z.string(), z.string()).optional(),
          }),
        )
        .optional(),
      compatibilityRules: z
        .array(z.object({ compDefs: z.array(z.string()).optional(), releases: z.array(z.string()).optional() }))
        .optional(),
    })
    .optional(),
});
/** At most this many ComponentVersion objects are read (a catalog holds a handful). */
const CATALOG_LIMIT = 200;

/** A ComponentVersion as a catalog entry: releases newest first, each compatible definition at its newest release. */
export function toVersionCatalogEntry(raw: z.infer<typeof RawComponentVersionSchema>): VersionCatalogEntry {
  const releases = raw.spec?.releases ?? [];
  const byName = new Map(releases.map((release) => [release.name, release]));
  const componentDefinitions = (raw.spec?.compatibilityRules ?? []).flatMap((rule) => {
    const usable = (rule.releases ?? []).flatMap((name) => byName.get(name) ?? []);
    const newest = usable.sort((a, b) => newestFirst(a.serviceVersion, b.serviceVersion))[0];
    if (!newest) return [];
    const images = Object.entries(newest.images ?? {});
    const image = (newest.images?.falkordb ?? images[0]?.[1]) || undefined;
    return (rule.compDefs ?? []).map((name) => ({ name, version: newest.serviceVersion, ...(image ? { image } : {}) }));
  });
  return {
    name: raw.metadata.name,
    createdAt: raw.metadata.creationTimestamp ?? '',
    releases: [...new Set(releases.map((release) => release.serviceVersion))]
      .sort(newestFirst)
      .map((version) => ({ version })),
    componentDefinitions,
  };
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
    if (!(error instanceof ApiException && error.code === 404)) throw failure(error, 'discover', 'the KubeBlocks API');
  }
  return { clusterVersion: 'v1alpha1', opsGroup: CLUSTER_GROUP };
}

const amounts = (given: ResourceAmounts | undefined) =>
  given && (given.cpu || given.memory)
    ? { ...(given.cpu ? { cpu: given.cpu } : {}), ...(given.memory ? { memory: given.memory } : {}) }
    : undefined;

/** The OpsRequest body for one operation, in the dialect of the installed KubeBlocks. */
export function opsRequestBody(
  namespace: string,
  cluster: ClusterRecord,
  request: OperationRequest,
  api: KubeBlocksApi,
  options: OperationOptions = {},
): Record<string, unknown> {
  const legacy = api.clusterVersion === 'v1alpha1';
  const spec: Record<string, unknown> = { clusterName: cluster.name, type: request.type };
  if (options.force) spec.force = true;
  switch (request.type) {
    case 'Restart':
      spec.restart = request.components.map((componentName) => ({ componentName }));
      break;
    case 'Upgrade':
      spec.upgrade = {
        components: request.components.map((componentName) => ({
          componentName,
          ...(request.serviceVersion ? { serviceVersion: request.serviceVersion } : {}),
          ...(request.componentDefinition ? { componentDefinitionName: request.componentDefinition } : {}),
        })),
      };
      break;
    case 'Start':
    case 'Stop':
      break;
    case 'HorizontalScaling': {
      const entry: Record<string, unknown> = { componentName: request.component };
      if (request.shards !== undefined) entry.shards = request.shards;
      if (request.replicas !== undefined) {
        if (legacy) entry.replicas = request.replicas;
        else {
          // KubeBlocks 1.x takes deltas: scale out or in by the difference from the current count.
          const delta = request.replicas - request.currentReplicas;
          if (delta > 0) entry.scaleOut = { replicaChanges: delta };
          if (delta < 0) entry.scaleIn = { replicaChanges: -delta };
        }
      }
      spec.horizontalScaling = [entry];
      break;
    }
    case 'VerticalScaling': {
      const requests = amounts(request.requests);
      const limits = amounts(request.limits);
      spec.verticalScaling = [
        { componentName: request.component, ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) },
      ];
      break;
    }
    case 'Reconfiguring': {
      // A null value clears the parameter: the entry names the key without a value.
      const parameters = Object.entries(request.parameters).map(([key, value]) =>
        value === null ? { key } : { key, value },
      );
      if (request.force) spec.force = true;
      if (request.preConditionDeadlineSeconds) spec.preConditionDeadlineSeconds = request.preConditionDeadlineSeconds;
      if (legacy)
        spec.reconfigure = {
          componentName: request.component,
          configurations: [{ name: 'falkordb-config', keys: [{ key: 'redis.conf', parameters }] }],
        };
      else spec.reconfigures = [{ componentName: request.component, parameters }];
      break;
    }
    case 'Switchover':
      // 1.x: the instance to demote and, optionally, the one to promote; 0.9: the one to promote ("*": any).
      spec.switchover = [
        legacy
          ? { componentName: request.component, instanceName: request.candidateName ?? '*' }
          : {
              componentName: request.component,
              instanceName: request.instanceName,
              ...(request.candidateName ? { candidateName: request.candidateName } : {}),
            },
      ];
      break;
    case 'VolumeExpansion':
      spec.volumeExpansion = [
        {
          componentName: request.component,
          volumeClaimTemplates: [{ name: request.volumeName, storage: request.storage }],
        },
      ];
      break;
  }
  const type = request.type.toLowerCase();
  return {
    apiVersion: `${api.opsGroup}/v1alpha1`,
    kind: 'OpsRequest',
    metadata: {
      generateName: `${cluster.name}-${type}-`,
      namespace,
      labels: { [INSTANCE_LABEL]: cluster.name, [OPS_TYPE_LABEL]: request.type },
    },
    spec,
  };
}

/** Clusters are listed this many per request, and at most CLUSTER_LIST_MAX in all (a bounded answer). */
const CLUSTER_PAGE = 250;
const CLUSTER_LIST_MAX = 2000;

/** At most this many Pods of one cluster are read (a sharded cluster of many shards stays well below). */
const POD_LIST_LIMIT = 500;

/**
 * The FalkorDB addon's configuration specs of a data component (`falkordb-replication-config` for standalone and
 * replication, `falkordb-cluster-config` for shards; `falkordb-config` in older addons). KubeBlocks names the rendered
 * ConfigMap `<cluster>-<component>-<spec>`; the sentinel's own specs do not match.
 */
const DATA_CONFIG_SPEC = /-(falkordb-replication-config|falkordb-cluster-config|falkordb-config)$/;
/** At most this many ConfigMaps of one cluster are read to find its configuration. */
const CONFIG_MAP_LIST_LIMIT = 100;

/** A Pod as GET /api/clusters/{name}/pods needs it. */
function podRecordOf(pod: V1Pod, cluster: string): PodRecord {
  const labels = pod.metadata?.labels ?? {};
  const statuses = pod.status?.containerStatuses ?? [];
  const waiting = statuses.find((status) => status.state?.waiting?.reason)?.state?.waiting?.reason;
  const component = labels['apps.kubeblocks.io/component-name'] ?? '';
  const shard = labels['apps.kubeblocks.io/sharding-name'] ? component : undefined;
  const name = pod.metadata?.name ?? '';
  const namespace = pod.metadata?.namespace ?? '';
  return {
    name,
    namespace,
    status: pod.metadata?.deletionTimestamp ? 'Terminating' : (waiting ?? pod.status?.phase ?? 'Unknown'),
    ready: pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
    restartCount: statuses.reduce((sum, status) => sum + (status.restartCount ?? 0), 0),
    createdAt: pod.metadata?.creationTimestamp ? new Date(pod.metadata.creationTimestamp).toISOString() : '',
    role: labels['kubeblocks.io/role'] ?? '',
    component,
    ...(shard ? { shardId: shard } : {}),
    hostname: pod.spec?.hostname ?? name,
    ports: (pod.spec?.containers ?? []).flatMap((container) =>
      (container.ports ?? []).map((port) => ({
        ...(port.name ? { name: port.name } : {}),
        port: port.containerPort,
        ...(port.protocol ? { protocol: port.protocol } : {}),
      })),
    ),
    dns: `${pod.spec?.hostname ?? name}.${pod.spec?.subdomain ?? `${cluster}-${component}-headless`}.${namespace}.svc.cluster.local`,
  };
}

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

/** At most this many OpsRequests of one cluster are read for its list (KubeBlocks keeps a bounded history). */
const OPS_LIST_LIMIT = 1000;

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
  const objects = kubeConfig.makeApiClient(CustomObjectsApi);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  let detection: Promise<KubeBlocksApi> | undefined = detected ? Promise.resolve(detected) : undefined;
  const apiVersions = () => {
    detection ??= detectKubeBlocks(kubeConfig).catch((error: unknown) => {
      detection = undefined;
      throw error;
    });
    return detection;
  };
  const counted = (error: unknown, verb: string, what: string) => {
    if (!(error instanceof ApiException && error.code === 404))
      onError?.(error instanceof ApiException ? String(error.code) : 'unreachable');
    return failure(error, verb, what);
  };
  const clusterParamsOf = (api: KubeBlocksApi) => ({
    group: CLUSTER_GROUP,
    version: api.clusterVersion,
    plural: 'clusters',
  });
  const opsParamsOf = (api: KubeBlocksApi) => ({ group: api.opsGroup, version: 'v1alpha1', plural: 'opsrequests' });

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

  const port: ClusterPort = {
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

    async readAccount(namespace, cluster, component) {
      const name = `${cluster}-${component}-account-default`;
      try {
        const secret = await core.readNamespacedSecret({ namespace, name });
        const decode = (key: string) => {
          const value = secret.data?.[key];
          return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
        };
        const username = decode('username');
        const password = decode('password');
        return username === undefined || password === undefined ? undefined : { username, password };
      } catch (error) {
        if (error instanceof ApiException && error.code === 404) return undefined;
        // The Secret's name, never its content.
        throw counted(error, 'get', `secret ${namespace}/${name}`);
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
        if (error instanceof ApiException && error.code === 404) return undefined;
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
        if (error instanceof ApiException && error.code === 404) return false;
        throw counted(error, 'delete', `cluster ${namespace}/${name}`);
      }
    },

    async listPods(namespace, cluster) {
      try {
        const reply = await core.listNamespacedPod({
          namespace,
          labelSelector: kubeBlocksPodsOf(cluster),
          limit: POD_LIST_LIMIT,
        });
        return reply.items.map((pod) => podRecordOf(pod, cluster)).sort((a, b) => a.name.localeCompare(b.name));
      } catch (error) {
        throw counted(error, 'list', `pods of cluster ${namespace}/${cluster}`);
      }
    },

    async readConfig(namespace, cluster) {
      try {
        const reply = await core.listNamespacedConfigMap({
          namespace,
          labelSelector: `${INSTANCE_LABEL}=${cluster}`,
          limit: CONFIG_MAP_LIST_LIMIT,
        });
        const found = reply.items
          .filter((map) => {
            const name = map.metadata?.name ?? '';
            return name.startsWith(`${cluster}-`) && DATA_CONFIG_SPEC.test(name) && !name.includes('-falkordb-sent-');
          })
          .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))
          .find((map) => map.data?.['redis.conf'] !== undefined);
        if (!found) return undefined;
        return {
          configMapName: found.metadata?.name ?? '',
          parameters: parseRedisConf(found.data?.['redis.conf'] ?? ''),
        };
      } catch (error) {
        throw counted(error, 'list', `configmaps of cluster ${namespace}/${cluster}`);
      }
    },

    async get(namespace, name) {
      const clusterParams = clusterParamsOf(await apiVersions());
      try {
        return parseClusters([await objects.getNamespacedCustomObject({ ...clusterParams, namespace, name })])[0];
      } catch (error) {
        if (error instanceof ApiException && error.code === 404) return undefined;
        throw counted(error, 'get', `cluster ${namespace}/${name}`);
      }
    },

    async createOperation(namespace, cluster, request, options) {
      const api = await apiVersions();
      // KubeBlocks 0.9's OpsRequest has no shard count (its schema would silently drop one, leaving an operation
      // that changes nothing): 0.9 reshards only through the Cluster's spec.shardingSpecs.
      if (api.clusterVersion === 'v1alpha1' && request.type === 'HorizontalScaling' && request.shards !== undefined)
        throw new PortError(
          'rejected',
          `KubeBlocks 0.9 cannot change the shard count of ${request.component} with an OpsRequest; change spec.shardingSpecs of cluster ${cluster.name} instead`,
        );
      const opsParams = opsParamsOf(api);
      try {
        const created = (await objects.createNamespacedCustomObject({
          ...opsParams,
          namespace,
          body: opsRequestBody(namespace, cluster, request, api, options),
        })) as { metadata?: { name?: string } };
        return created.metadata?.name ?? '';
      } catch (error) {
        throw counted(error, 'create', 'OpsRequest');
      }
    },

    async versionCatalog() {
      const api = await apiVersions();
      try {
        const reply = (await objects.listClusterCustomObject({
          group: CLUSTER_GROUP,
          version: api.clusterVersion,
          plural: 'componentversions',
          limit: CATALOG_LIMIT,
        })) as { items?: unknown[] };
        return (reply.items ?? []).flatMap((item) => {
          const parsed = RawComponentVersionSchema.safeParse(item);
          return parsed.success && parsed.data.metadata.name.includes('falkordb')
            ? [toVersionCatalogEntry(parsed.data)]
            : [];
        });
      } catch (error) {
        // No ComponentVersion kind (KubeBlocks 0.9 before it had one): an empty catalog, not an error.
        if (error instanceof ApiException && error.code === 404) return [];
        throw counted(error, 'list', 'componentversions');
      }
    },

    async listOperations(namespace, cluster) {
      const opsParams = opsParamsOf(await apiVersions());
      try {
        const reply = (await objects.listNamespacedCustomObject({
          ...opsParams,
          namespace,
          labelSelector: `${INSTANCE_LABEL}=${cluster}`,
          limit: OPS_LIST_LIMIT,
        })) as { items?: unknown[] };
        return (reply.items ?? [])
          .flatMap((item) => {
            const parsed = RawOpsRequestSchema.safeParse(item);
            return parsed.success ? [toOperationRecord(parsed.data)] : [];
          })
          .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.name.localeCompare(a.name));
      } catch (error) {
        throw counted(error, 'list', 'OpsRequests');
      }
    },

    async getOperation(namespace, cluster, name) {
      const opsParams = opsParamsOf(await apiVersions());
      try {
        const parsed = RawOpsRequestSchema.safeParse(
          await objects.getNamespacedCustomObject({ ...opsParams, namespace, name }),
        );
        if (!parsed.success) return undefined;
        const record = toOperationRecord(parsed.data);
        return record.cluster === cluster ? record : undefined;
      } catch (error) {
        if (error instanceof ApiException && error.code === 404) return undefined;
        throw counted(error, 'get', `OpsRequest ${namespace}/${name}`);
      }
    },

    async deleteOperation(namespace, name) {
      const opsParams = opsParamsOf(await apiVersions());
      try {
        await objects.deleteNamespacedCustomObject({ ...opsParams, namespace, name });
        return true;
      } catch (error) {
        if (error instanceof ApiException && error.code === 404) return false;
        throw counted(error, 'delete', `OpsRequest ${namespace}/${name}`);
      }
    },

    async cancelOperation(namespace, name) {
      const opsParams = opsParamsOf(await apiVersions());
      try {
        await objects.patchNamespacedCustomObject(
          { ...opsParams, namespace, name, body: { spec: { cancel: true } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
      } catch (error) {
        throw counted(error, 'patch', `OpsRequest ${namespace}/${name}`);
      }
    },
  };
  // Cluster writes end the sharing of any list sent before them (see listsInFlight).
  return {
    ...port,
    createCluster: (cluster) => afterClusterWrite(port.createCluster!(cluster)),
    createClusterObject: (object) => afterClusterWrite(port.createClusterObject!(object)),
    replaceClusterObject: (object) => afterClusterWrite(port.replaceClusterObject!(object)),
    deleteCluster: (namespace, name, options) => afterClusterWrite(port.deleteCluster!(namespace, name, options)),
  };
}
