// Cluster reads, scoped to the namespaces multi_cluster_mode and the role allow (day-2 operations:
// ../operations/operation-service.ts).
import type { ClusterPort } from '../../platform/clusters/cluster-port.js';
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
  };
}

export type ClusterService = ReturnType<typeof createClusterService>;
