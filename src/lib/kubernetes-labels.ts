// The labels the server reads and writes on Kubernetes objects, in one place.

/** The instance: KubeBlocks labels every object of a cluster with the cluster's name. */
export const INSTANCE_LABEL = 'app.kubernetes.io/instance';
/** Who manages an object: this server on what it creates, `kubeblocks` on what KubeBlocks creates. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
/** The value of MANAGED_BY_LABEL on every object this server creates. */
export const MANAGED_BY_THIS_SERVER = 'graphdb-admin-server';
/** KubeBlocks: the component of a cluster that a Pod or policy target belongs to. */
export const COMPONENT_LABEL = 'apps.kubeblocks.io/component-name';
