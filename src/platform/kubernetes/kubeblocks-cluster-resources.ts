// What KubeBlocks made for one cluster, read through the core API: its Pods, the ConfigMap of its data component's
// configuration, and the Secret of its default account.
import type { V1Pod } from '@kubernetes/client-node';
import type { ClusterPort, PodRecord } from '../clusters/cluster-port.js';
import { parseRedisConf } from '../clusters/redis-conf.js';
import { COMPONENT_LABEL, INSTANCE_LABEL } from '../../lib/kubernetes-labels.js';
import { isNotFound } from './kube-errors.js';
import type { KubeBlocksAccess } from './kubeblocks-api.js';
import { kubeBlocksPodsOf } from './kube-pod-telemetry.js';

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
  const component = labels[COMPONENT_LABEL] ?? '';
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

/** The part of the cluster port that reads a cluster's Pods, configuration and default account. */
export function kubeBlocksClusterResources(
  access: KubeBlocksAccess,
): Required<Pick<ClusterPort, 'listPods' | 'readConfig' | 'readAccount'>> {
  const { core } = access;
  return {
    async listPods(namespace, cluster) {
      try {
        const reply = await core.listNamespacedPod({
          namespace,
          labelSelector: kubeBlocksPodsOf(cluster),
          limit: POD_LIST_LIMIT,
        });
        return reply.items.map((pod) => podRecordOf(pod, cluster)).sort((a, b) => a.name.localeCompare(b.name));
      } catch (error) {
        throw access.failure(error, 'list', `pods of cluster ${namespace}/${cluster}`);
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
        throw access.failure(error, 'list', `configmaps of cluster ${namespace}/${cluster}`);
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
        if (isNotFound(error)) return undefined;
        // The Secret's name, never its content.
        throw access.failure(error, 'get', `secret ${namespace}/${name}`);
      }
    },
  };
}
