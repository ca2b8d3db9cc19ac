// Cluster reads, scoped to the namespaces multi_cluster_mode and the role allow (day-2 operations:
// ../operations/operation-service.ts).
import type { ClusterPort, PodRecord } from '../../platform/clusters/cluster-port.js';
import type { ClusterRecord } from '../../platform/clusters/cluster-records.js';
import { NotFoundError } from '../../shared/http-errors.js';
import { rulesAllow, shippedRulesOf, type PermissionRule, type RoleName } from '../permissions/permissions.js';

export interface ClusterScope {
  /** The namespace the server manages deployments in (CLUSTER_NAMESPACE). */
  clusterNamespace: string;
  /** features.multi_cluster_mode as the settings say now: other namespaces are visible only while it is on. */
  multiClusterMode: () => Promise<boolean>;
  /** A role's rules (context.rbac.rulesOf); the shipped ones when absent. */
  rulesOf?: (role: RoleName) => Promise<readonly PermissionRule[]>;
}

/** A duration as kubectl prints ages: 45s, 12m, 5h, 3d. */
export function ageOf(since: string, now: number): string {
  const started = Date.parse(since);
  if (Number.isNaN(started)) return '';
  const seconds = Math.max(0, Math.floor((now - started) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 2 * 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 2 * 86400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}

function podView(pod: PodRecord, now: number) {
  return {
    name: pod.name,
    namespace: pod.namespace,
    status: pod.status,
    ready: pod.ready,
    restartCount: pod.restartCount,
    age: ageOf(pod.createdAt, now),
    role: pod.role,
    ...(pod.shardId ? { shardId: pod.shardId } : {}),
    hostname: pod.hostname,
    ports: pod.ports,
    // Usage needs the metrics API, which GET …/metrics reads; the list does not ask for it.
    cpuPercent: null,
    memoryPercent: null,
    dns: pod.dns,
  };
}

export function createClusterService(port: ClusterPort, scope: ClusterScope) {
  const { clusterNamespace } = scope;

  async function existing(namespace: string, name: string): Promise<ClusterRecord> {
    const cluster = await port.get(namespace, name);
    if (!cluster) throw new NotFoundError(`Cluster ${name} not found in namespace ${namespace}`);
    return cluster;
  }

  return {
    /**
     * The deployments a role may read: the cluster namespace only while multi_cluster_mode is off (nothing for
     * another one asked for); with it on, the namespace asked for or all, each filtered by the role's rules.
     */
    async listVisible(role: RoleName, askedNamespace: string | undefined): Promise<ClusterRecord[]> {
      if (!(await scope.multiClusterMode())) {
        if (askedNamespace && askedNamespace !== clusterNamespace) return [];
        return port.list({ namespace: clusterNamespace });
      }
      const [found, rules] = await Promise.all([
        port.list(askedNamespace ? { namespace: askedNamespace } : { allNamespaces: true }),
        scope.rulesOf ? scope.rulesOf(role) : shippedRulesOf(role),
      ]);
      return found.filter((cluster) => rulesAllow(rules, 'clusters', 'list', cluster.namespace));
    },

    /**
     * multi_cluster_mode for every cluster route but the list: while it is off, a cluster or its operations in
     * another namespace are not found (404), before the permission check and any Kubernetes call.
     */
    async assertNamespaceInScope(askedNamespace: string, name: string): Promise<void> {
      if (askedNamespace === clusterNamespace || (await scope.multiClusterMode())) return;
      throw new NotFoundError(`Cluster ${name} not found in namespace ${askedNamespace}`);
    },

    get: existing,

    /** The cluster's Pods in the real product's shape (404 when the cluster does not exist). */
    async pods(namespace: string, name: string, now = Date.now()) {
      await existing(namespace, name);
      const pods = port.listPods ? await port.listPods(namespace, name) : [];
      return { pods: pods.map((pod) => podView(pod, now)), total: pods.length };
    },
  };
}

export type ClusterService = ReturnType<typeof createClusterService>;
