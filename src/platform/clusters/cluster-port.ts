// The cluster port: what the admin API needs from a deployment platform (KubeBlocks, or the embedded FalkorDB).
import type { ClusterRecord, OperationRecord } from './cluster-records.js';
import type { ConfigParameter } from './redis-conf.js';

export type OperationRequest =
  | { type: 'Restart'; components: string[] }
  | { type: 'Start' }
  | { type: 'Stop' }
  | {
      type: 'HorizontalScaling';
      component: string;
      kind: 'component' | 'sharding';
      currentReplicas: number;
      replicas?: number;
      shards?: number;
    }
  | { type: 'VerticalScaling'; component: string; requests?: ResourceAmounts; limits?: ResourceAmounts }
  | {
      type: 'Reconfiguring';
      component: string;
      /** A null value clears the parameter (back to its default). */
      parameters: Record<string, string | null>;
      force?: boolean;
      preConditionDeadlineSeconds?: number;
    }
  | { type: 'Switchover'; component: string; instanceName: string; candidateName?: string }
  | { type: 'VolumeExpansion'; component: string; volumeName: string; storage: string }
  | { type: 'Upgrade'; components: string[]; serviceVersion?: string; componentDefinition?: string };

export interface ResourceAmounts {
  cpu?: string;
  memory?: string;
}

/** Options every OpsRequest may carry. */
export interface OperationOptions {
  /** KubeBlocks `spec.force`: run even while another operation is running. */
  force?: boolean;
}

export type ClusterScope = { namespace: string } | { allNamespaces: true };

/** One FalkorDB component version a deployment may be created with (a KubeBlocks ComponentVersion). */
export interface VersionCatalogEntry {
  name: string;
  createdAt: string;
  /** Newest first. */
  releases: { version: string; stable?: boolean }[];
  componentDefinitions: { name: string; version: string; image?: string }[];
}

/** One Pod of a deployment (label app.kubernetes.io/instance=<cluster>). */
export interface PodRecord {
  name: string;
  namespace: string;
  /** The Pod's phase (Running, Pending, …), or the waiting reason of a container (CrashLoopBackOff, …). */
  status: string;
  ready: boolean;
  restartCount: number;
  createdAt: string;
  /** KubeBlocks' role label (primary, secondary, …); '' when it has none. */
  role: string;
  /** The component (falkordb, falkordb-sent, or a shard's component). */
  component: string;
  shardId?: string;
  hostname: string;
  ports: { name?: string; port: number; protocol?: string }[];
  /** The Pod's DNS name through its component's headless Service. */
  dns: string;
}

/** A Service of a component (KubeBlocks ClusterComponentService). */
export interface ComponentService {
  name: string;
  serviceType: 'ClusterIP' | 'NodePort' | 'LoadBalancer';
  annotations?: Record<string, string>;
  podService?: boolean;
}

export interface Scheduling {
  nodeSelector?: Record<string, string>;
  tolerations?: Record<string, unknown>[];
}

/** A deployment to create, already checked (topology rules, defaults applied) by the admin service. */
export interface NewCluster {
  name: string;
  namespace: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  topology: 'standalone' | 'replication' | 'cluster';
  /** The FalkorDB service version; the platform's default when absent. */
  version?: string;
  /** Data replicas (per shard for `cluster`). */
  replicas: number;
  shards?: number;
  resources?: { requests?: ResourceAmounts; limits?: ResourceAmounts };
  /** The data volume; none when absent. */
  storage?: { size: string; storageClass?: string };
  /** The data component's Services (the shard template's in the cluster topology). */
  services?: ComponentService[];
  /** Leaves the metrics exporter container out of the data Pods. */
  disableExporter?: boolean;
  sentinel?: {
    replicas: number;
    resources?: { requests?: ResourceAmounts; limits?: ResourceAmounts };
    storage?: { size: string; storageClass?: string };
    services?: ComponentService[];
    scheduling?: Scheduling;
  };
  terminationPolicy: 'DoNotTerminate' | 'Delete' | 'WipeOut';
  /** The whole deployment's scheduling (the Cluster's spec.schedulingPolicy). */
  scheduling?: Scheduling;
  /** The data component's own scheduling (the shard template's), over the deployment's. */
  dataScheduling?: Scheduling;
}

export interface ClusterPort {
  /**
   * The deployments of a scope. A record handed out is never changed afterwards (a change is a new record): the
   * routes keep each record's JSON.
   */
  list(scope: ClusterScope): Promise<ClusterRecord[]>;
  get(namespace: string, name: string): Promise<ClusterRecord | undefined>;
  /** Creates the operation and returns its name at once; it does not wait for completion. */
  createOperation(
    namespace: string,
    cluster: ClusterRecord,
    request: OperationRequest,
    options?: OperationOptions,
  ): Promise<string>;
  /** Newest first. */
  listOperations(namespace: string, cluster: string): Promise<OperationRecord[]>;
  /** One operation of the cluster; undefined when there is none of that name (or it belongs to another cluster). */
  getOperation(namespace: string, cluster: string, name: string): Promise<OperationRecord | undefined>;
  /** Deletes the operation's record; false when there was none. */
  deleteOperation(namespace: string, name: string): Promise<boolean>;
  /** Asks for a running operation to be cancelled (KubeBlocks `spec.cancel: true`). */
  cancelOperation(namespace: string, name: string): Promise<void>;
  /**
   * Why operations of this type never apply on this platform, or undefined where they may. The service asks before the
   * phase check, and for an upgrade before the version check: no phase or version would make the operation apply.
   */
  inapplicable?(type: OperationRequest['type']): string | undefined;
  /**
   * The versions a deployment may be created with. KubeBlocks keeps them in cluster-scoped ComponentVersion
   * objects, which only the multi-cluster ClusterRole may read: callers ask only in multi-cluster mode.
   */
  versionCatalog?(): Promise<VersionCatalogEntry[]>;
  /** The Pods of a deployment, at most a bounded number of them. */
  listPods?(namespace: string, cluster: string): Promise<PodRecord[]>;
  /** Creates the deployment (a ConflictError when the name is taken); absent where deployments cannot be created. */
  createCluster?(cluster: NewCluster): Promise<ClusterRecord>;
  /** Deletes the deployment; false when there was none. Absent where deployments cannot be deleted. */
  deleteCluster?(namespace: string, name: string, options?: { gracePeriodSeconds?: number }): Promise<boolean>;
  /**
   * The default account of a deployment's component (KubeBlocks' Secret `<cluster>-<component>-account-default`);
   * undefined when there is none.
   */
  readAccount?(
    namespace: string,
    cluster: string,
    component: string,
  ): Promise<{ username: string; password: string } | undefined>;
  /**
   * The data component's FalkorDB configuration: KubeBlocks renders it into the ConfigMap
   * `<cluster>-<component>-<config spec>` (key `redis.conf`); the embedded server answers CONFIG GET. Undefined when
   * there is none (yet).
   */
  readConfig?(
    namespace: string,
    cluster: string,
  ): Promise<{ configMapName: string; parameters: ConfigParameter[] } | undefined>;
  /** The stored Cluster object as it is (without managedFields); undefined when there is none. */
  getClusterObject?(namespace: string, name: string): Promise<Record<string, unknown> | undefined>;
  /** Creates a Cluster object given whole (a raw manifest); the API server validates it. */
  createClusterObject?(object: ClusterObject): Promise<ClusterRecord>;
  /** Replaces a Cluster object given whole (its resourceVersion, when absent, is the stored one's). */
  replaceClusterObject?(object: ClusterObject): Promise<void>;
}

/** A raw Cluster manifest, already checked for its name, namespace, apiVersion and kind. */
export interface ClusterObject {
  apiVersion: string;
  kind: 'Cluster';
  metadata: { name: string; namespace: string; [key: string]: unknown };
  [key: string]: unknown;
}
