// The path and query parameters many admin routes share: a deployment's name in the path and its namespace in the
// query. Each is declared once here; the features' schemas.ts build on them.
import { z } from 'zod';
import { KUBERNETES_NAME } from '../lib/kubernetes-names.js';

export const NamespaceNameSchema = z
  .string()
  .regex(KUBERNETES_NAME, 'must be a Kubernetes namespace name')
  .meta({ description: 'A Kubernetes namespace', examples: ['graphdb'] });
/** `?namespace=` of a deployment's sub-resources. */
export const ClusterNamespaceSchema = NamespaceNameSchema.optional().meta({
  description: "The cluster's namespace; the configured cluster namespace when absent.",
});
export const ClusterNamespaceQuerySchema = z.object({ namespace: ClusterNamespaceSchema });

export const ClusterNameSchema = z
  .string()
  .regex(KUBERNETES_NAME, 'must be a cluster name')
  .meta({ description: 'The deployment: the name of its KubeBlocks Cluster object', examples: ['orders'] });
/** `/api/clusters/{clusterName}/…` */
export const ClusterNameParamsSchema = z.object({ clusterName: ClusterNameSchema });
