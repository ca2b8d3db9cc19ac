// The backup port: what the admin API needs from a data-protection platform (KubeBlocks' dataprotection.kubeblocks.io
// objects, or the embedded FalkorDB's snapshots under DATA_DIR/backups/). Records are normalised: KubeBlocks' own
// phases (New, Running, Completed, …) are kept as they are, and the admin service maps them to the API's words.
import { PortError } from '../port-errors.js';
import type { ClusterScope } from '../clusters/cluster-port.js';

/** A storage location for backups (a KubeBlocks BackupRepo). */
export interface RepositoryRecord {
  name: string;
  storageProviderRef: string;
  /** The API's storage type (s3, minio, …), as the server recorded it at creation; undefined for a foreign repo. */
  type?: string;
  isDefault: boolean;
  createdAt: string;
  /** KubeBlocks' phase: PreChecking, Ready, Failed, Deleting; '' before the controller saw it. */
  phase: string;
  message?: string;
  /** The BackupRepo's spec.config (strings, as KubeBlocks keeps them). */
  config: Record<string, string>;
}

export interface NewRepository {
  name: string;
  storageProviderRef: string;
  type: string;
  isDefault: boolean;
  config: Record<string, string>;
  /** Written to a Secret the repository refers to; never read back. */
  credentials?: Record<string, string>;
}

export interface RepositoryChange {
  config?: Record<string, string>;
  credentials?: Record<string, string>;
  isDefault?: boolean;
}

export interface BackupRecord {
  name: string;
  namespace: string;
  cluster: string;
  policyName: string;
  method: string;
  /** KubeBlocks' phase: New, InProgress, Running, Completed, Failed, Deleting ('' before the controller saw it). */
  phase: string;
  /** The schedule that made it, when one did. */
  scheduleName?: string;
  /** Made by the server itself (the auto schedule), not asked for by a user or a schedule. */
  automated?: boolean;
  repository?: string;
  totalSize?: string;
  createdAt: string;
  startTime?: string;
  completionTime?: string;
  expiration?: string;
  retentionPeriod?: string;
  deletionPolicy?: string;
  parentBackupName?: string;
  parameters?: Record<string, string>;
  failureReason?: string;
}

export interface NewBackup {
  name: string;
  namespace: string;
  cluster: string;
  policyName: string;
  method: string;
  repository?: string;
  retentionPeriod?: string;
  deletionPolicy: 'Delete' | 'Retain';
  parentBackupName?: string;
  parameters?: Record<string, string>;
  labels?: Record<string, string>;
}

export interface PolicyRecord {
  name: string;
  namespace: string;
  cluster: string;
  repository?: string;
  methods: { name: string; snapshotVolumes?: boolean }[];
  pathPrefix?: string;
  /** Available or Unavailable ('' before the controller saw it). */
  phase: string;
  message?: string;
  createdAt: string;
}

export interface NewPolicy {
  name: string;
  namespace: string;
  cluster: string;
  repository?: string;
  /** The components' pods the policy backs up. */
  component: string;
}

export interface ScheduleSpec {
  policyName: string;
  method: string;
  cronExpression: string;
  retentionPeriod: string;
  enabled: boolean;
  startingDeadlineMinutes?: number;
}

export interface ScheduleRecord extends ScheduleSpec {
  name: string;
  namespace: string;
  cluster: string;
  /** KubeBlocks' phase: Available, Failed ('' before the controller saw it). */
  phase: string;
  failureReason?: string;
  createdAt: string;
  lastRun?: string;
  lastSucceeded?: string;
  /** Whether the last run failed (known only where runs are recorded). */
  lastFailed?: boolean;
  nextRun?: string;
  deleting?: boolean;
}

export interface NewSchedule extends ScheduleSpec {
  name: string;
  namespace: string;
  cluster: string;
}

export interface RestoreRecord {
  name: string;
  namespace: string;
  cluster: string;
  backupName: string;
  backupNamespace: string;
  restoreTime?: string;
  /** KubeBlocks' phase: Running, Completed, Failed, AsDataSource ('' before the controller saw it). */
  phase: string;
  createdAt: string;
  startTime?: string;
  completionTime?: string;
  message?: string;
}

export interface NewRestore {
  name: string;
  namespace: string;
  cluster: string;
  backup: { name: string; namespace: string };
  restoreTime?: string;
  env?: { name: string; value?: string }[];
  parameters?: Record<string, string>;
  backoffLimit?: number;
  serviceAccountName?: string;
  containerResources?: Record<string, unknown>;
  prepareDataConfig?: Record<string, unknown>;
}

export interface BackupPort {
  /** Where backups go here: `kubeblocks` (BackupRepos) or `local` (DATA_DIR/backups, one fixed place). */
  readonly kind: 'kubeblocks' | 'local';
  /** The backup methods this platform can run. */
  readonly methods: readonly string[];
  /** The methods that support a point-in-time restore. */
  readonly pointInTimeMethods: readonly string[];
  /** The policy a cluster's backups use when none is named (KubeBlocks makes `<cluster>-<component>-backup-policy`). */
  defaultPolicyName(cluster: string, component: string): string;

  listRepositories(): Promise<RepositoryRecord[]>;
  getRepository(name: string): Promise<RepositoryRecord | undefined>;
  /** Absent where repositories are not managed (embedded mode). */
  createRepository?(repository: NewRepository): Promise<RepositoryRecord>;
  updateRepository?(name: string, change: RepositoryChange): Promise<RepositoryRecord>;
  deleteRepository?(name: string): Promise<boolean>;
  /** The backup policies (`namespace/name`, every namespace) that keep their backups in the repository. */
  repositoryUsers?(name: string): Promise<string[]>;

  /** Newest first. */
  listBackups(namespace: string, cluster: string): Promise<BackupRecord[]>;
  /**
   * Every backup of the namespace (or of every namespace), whichever cluster made it, in one request: what the
   * backup metrics count. Bounded to one page (1000 objects on KubeBlocks).
   */
  listBackupsIn(scope: ClusterScope): Promise<BackupRecord[]>;
  getBackup(namespace: string, name: string): Promise<BackupRecord | undefined>;
  /** Starts a backup and returns at once (a ConflictError-kind PortError when the name is taken). */
  createBackup(backup: NewBackup): Promise<BackupRecord>;
  deleteBackup(namespace: string, name: string): Promise<boolean>;

  listPolicies(namespace: string, cluster: string): Promise<PolicyRecord[]>;
  getPolicy(namespace: string, name: string): Promise<PolicyRecord | undefined>;
  createPolicy?(policy: NewPolicy): Promise<PolicyRecord>;
  deletePolicy?(namespace: string, name: string): Promise<boolean>;

  listSchedules(namespace: string, cluster: string): Promise<ScheduleRecord[]>;
  getSchedule(namespace: string, name: string): Promise<ScheduleRecord | undefined>;
  createSchedule(schedule: NewSchedule): Promise<ScheduleRecord>;
  updateSchedule(namespace: string, name: string, spec: ScheduleSpec): Promise<ScheduleRecord>;
  deleteSchedule(namespace: string, name: string): Promise<boolean>;

  listRestores(namespace: string, cluster: string): Promise<RestoreRecord[]>;
  getRestore(namespace: string, name: string): Promise<RestoreRecord | undefined>;
  /** Starts a restore into the cluster and returns at once. */
  createRestore(restore: NewRestore): Promise<RestoreRecord>;
  deleteRestore(namespace: string, name: string): Promise<boolean>;

  /** Stops what the port runs in the background (the embedded scheduler). */
  close?(): Promise<void>;
}

/** With neither Kubernetes nor an embedded FalkorDB there is nothing to back up. */
export const NO_BACKUPS: BackupPort = {
  kind: 'local',
  methods: [],
  pointInTimeMethods: [],
  defaultPolicyName: (cluster, component) => `${cluster}-${component}-backup-policy`,
  listRepositories: () => Promise.resolve([]),
  getRepository: () => Promise.resolve(undefined),
  listBackups: () => Promise.resolve([]),
  listBackupsIn: () => Promise.resolve([]),
  getBackup: () => Promise.resolve(undefined),
  createBackup: () => Promise.reject(new PortError('rejected', 'No deployment platform is configured')),
  deleteBackup: () => Promise.resolve(false),
  listPolicies: () => Promise.resolve([]),
  getPolicy: () => Promise.resolve(undefined),
  listSchedules: () => Promise.resolve([]),
  getSchedule: () => Promise.resolve(undefined),
  createSchedule: () => Promise.reject(new PortError('rejected', 'No deployment platform is configured')),
  updateSchedule: () => Promise.reject(new PortError('not-found', 'No deployment platform is configured')),
  deleteSchedule: () => Promise.resolve(false),
  listRestores: () => Promise.resolve([]),
  getRestore: () => Promise.resolve(undefined),
  createRestore: () => Promise.reject(new PortError('rejected', 'No deployment platform is configured')),
  deleteRestore: () => Promise.resolve(false),
};
