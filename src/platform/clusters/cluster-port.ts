// The cluster port: what the admin API needs from a deployment platform (KubeBlocks, or the embedded FalkorDB).
import type { ClusterRecord, OperationRecord } from './cluster-records.js';

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
  | { type: 'VerticalScaling'; component: string; cpu?: string; memory?: string }
  | { type: 'Reconfiguring'; component: string; parameters: Record<string, string> };

export type ClusterScope = { namespace: string } | { allNamespaces: true };

/** One FalkorDB component version a deployment may be created with (a KubeBlocks ComponentVersion). */
export interface VersionCatalogEntry {
  name: string;
  createdAt: string;
  /** Newest first. */
  releases: { version: string; stable?: boolean }[];
  componentDefinitions: { name: string; version: string; image?: string }[];
}

export interface ClusterPort {
  list(scope: ClusterScope): Promise<ClusterRecord[]>;
  get(namespace: string, name: string): Promise<ClusterRecord | undefined>;
  /** Creates the operation and returns its name at once; it does not wait for completion. */
  createOperation(namespace: string, cluster: ClusterRecord, request: OperationRequest): Promise<string>;
  /** Newest first. */
  listOperations(namespace: string, cluster: string): Promise<OperationRecord[]>;
  /**
   * The versions a deployment may be created with. KubeBlocks keeps them in cluster-scoped ComponentVersion
   * objects, which only the multi-cluster ClusterRole may read: callers ask only in multi-cluster mode.
   */
  versionCatalog?(): Promise<VersionCatalogEntry[]>;
}
