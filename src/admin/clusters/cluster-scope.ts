// What every route about one deployment shares: the namespace a request concerns, and multi_cluster_mode's scope.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ClusterService } from './cluster-service.js';

/**
 * The namespace a request concerns: `?namespace=`, else the cluster namespace. Permissions are checked before
 * validation (403 before 400), so the query is still raw here: a repeated or odd `namespace` is judged as the
 * default namespace now and refused by the schema next.
 */
export function namespaceOfRequest(clusterNamespace: string) {
  return (request: FastifyRequest): string => {
    const given = (request.query as { namespace?: unknown }).namespace;
    return typeof given === 'string' && given !== '' ? given : clusterNamespace;
  };
}

/**
 * multi_cluster_mode for every cluster route (only the list honoured it). While it is off, the cluster
 * namespace is the only one: the list shows nothing elsewhere, and a cluster, its operations, pods, logs or metrics
 * elsewhere are not found (404) after validation, before any Kubernetes call.
 */
function onlyClusterNamespaceUnlessMultiCluster(clusters: ClusterService) {
  return async (request: FastifyRequest): Promise<void> => {
    const asked = (request.query as { namespace?: unknown } | undefined)?.namespace;
    const name = (request.params as { clusterName?: unknown } | undefined)?.clusterName;
    // The list route answers an empty list itself.
    if (typeof asked === 'string' && typeof name === 'string') await clusters.assertNamespaceInScope(asked, name);
  };
}

/** Registers a feature's deployment routes in a scope of their own, under multi_cluster_mode's namespace rule above. */
export function inDeploymentScope(
  scope: FastifyInstance,
  clusters: ClusterService,
  register: (deploymentScope: FastifyInstance) => void,
): void {
  void scope.register(function deploymentScope(deploymentScope, _options, done) {
    deploymentScope.addHook('preHandler', onlyClusterNamespaceUnlessMultiCluster(clusters));
    register(deploymentScope);
    done();
  });
}
