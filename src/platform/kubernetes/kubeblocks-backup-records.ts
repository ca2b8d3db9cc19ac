// The objects of KubeBlocks data protection (dataprotection.kubeblocks.io/v1alpha1) as the backup port's records:
// their labels and annotations, the zod schemas of their untyped replies, and one conversion per kind.
import { z } from 'zod';
import { INSTANCE_LABEL } from '../../lib/kubernetes-labels.js';
import type {
  BackupRecord,
  PolicyRecord,
  RepositoryRecord,
  RestoreRecord,
  ScheduleRecord,
} from '../backups/backup-port.js';

export const GROUP = 'dataprotection.kubeblocks.io';
export const VERSION = 'v1alpha1';
export const POLICY_LABEL = 'dataprotection.kubeblocks.io/backup-policy';
export const SCHEDULE_LABEL = 'dataprotection.kubeblocks.io/backup-schedule';
export const AUTOMATED_LABEL = 'graphdb.falkordb.com/automated';
/** KubeBlocks' mark of the default repository. */
export const DEFAULT_REPO_ANNOTATION = 'dataprotection.kubeblocks.io/is-default-repo';
/** The API's storage type of a repository the server made (KubeBlocks knows only its storage provider). */
export const REPO_TYPE_ANNOTATION = 'graphdb.falkordb.com/repository-type';
/** The repository a user named for one backup (KubeBlocks records the one it used in status.backupRepoName). */
export const REQUESTED_REPO_ANNOTATION = 'graphdb.falkordb.com/backup-repo';
export const LIST_LIMIT = 1000;
/** On a credentials Secret: the repository this server wrote it for. */
export const REPO_SECRET_ANNOTATION = 'graphdb.falkordb.com/backup-repo';

const Metadata = z.object({
  name: z.string(),
  namespace: z.string().optional(),
  creationTimestamp: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  resourceVersion: z.string().optional(),
  uid: z.string().optional(),
});
const Pairs = z.array(z.object({ name: z.string(), value: z.string() })).optional();

export const RawRepoSchema = z.object({
  metadata: Metadata,
  spec: z.object({
    storageProviderRef: z.string(),
    config: z.record(z.string(), z.string()).optional(),
    credential: z.object({ name: z.string(), namespace: z.string() }).optional(),
  }),
  status: z
    .object({
      phase: z.string().optional(),
      isDefault: z.boolean().optional(),
      conditions: z.array(z.object({ message: z.string().optional(), status: z.string().optional() })).optional(),
    })
    .optional(),
});
export const RawBackupSchema = z.object({
  metadata: Metadata,
  spec: z.object({
    backupPolicyName: z.string(),
    backupMethod: z.string(),
    deletionPolicy: z.string().optional(),
    retentionPeriod: z.string().optional(),
    parentBackupName: z.string().optional(),
    parameters: Pairs,
  }),
  status: z
    .object({
      phase: z.string().optional(),
      backupRepoName: z.string().optional(),
      totalSize: z.string().optional(),
      startTimestamp: z.string().optional(),
      completionTimestamp: z.string().optional(),
      expiration: z.string().optional(),
      failureReason: z.string().optional(),
    })
    .optional(),
});
export const RawPolicySchema = z.object({
  metadata: Metadata,
  spec: z.object({
    backupRepoName: z.string().optional(),
    pathPrefix: z.string().optional(),
    backupMethods: z.array(z.object({ name: z.string(), snapshotVolumes: z.boolean().optional() })),
  }),
  status: z.object({ phase: z.string().optional(), message: z.string().optional() }).optional(),
});
export const RawScheduleSchema = z.object({
  metadata: Metadata,
  spec: z.object({
    backupPolicyName: z.string(),
    startingDeadlineMinutes: z.number().optional(),
    schedules: z.array(
      z.object({
        backupMethod: z.string(),
        cronExpression: z.string(),
        enabled: z.boolean().optional(),
        retentionPeriod: z.string().optional(),
        name: z.string().optional(),
      }),
    ),
  }),
  status: z
    .object({
      phase: z.string().optional(),
      failureReason: z.string().optional(),
      schedules: z
        .record(
          z.string(),
          z.object({
            phase: z.string().optional(),
            failureReason: z.string().optional(),
            lastScheduleTime: z.string().optional(),
            lastSuccessfulTime: z.string().optional(),
          }),
        )
        .optional(),
    })
    .optional(),
});
export const RawRestoreSchema = z.object({
  metadata: Metadata,
  spec: z.object({
    backup: z.object({ name: z.string(), namespace: z.string() }),
    restoreTime: z.string().optional(),
  }),
  status: z
    .object({
      phase: z.string().optional(),
      startTimestamp: z.string().optional(),
      completionTimestamp: z.string().optional(),
      conditions: z.array(z.object({ message: z.string().optional() })).optional(),
    })
    .optional(),
});

const clusterOf = (metadata: z.infer<typeof Metadata>) => metadata.labels?.[INSTANCE_LABEL] ?? '';
const created = (metadata: z.infer<typeof Metadata>) => metadata.creationTimestamp ?? '';
const withValue = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined || value === '' ? {} : { [key]: value }) as Partial<Record<K, V>>;

export function toRepositoryRecord(raw: z.infer<typeof RawRepoSchema>): RepositoryRecord {
  const failed = raw.status?.conditions?.find((condition) => condition.status === 'False');
  return {
    name: raw.metadata.name,
    storageProviderRef: raw.spec.storageProviderRef,
    ...withValue('type', raw.metadata.annotations?.[REPO_TYPE_ANNOTATION]),
    isDefault: raw.metadata.annotations?.[DEFAULT_REPO_ANNOTATION] === 'true' || raw.status?.isDefault === true,
    createdAt: created(raw.metadata),
    phase: raw.status?.phase ?? '',
    ...withValue('message', failed?.message),
    config: raw.spec.config ?? {},
  };
}

export function toBackupRecord(raw: z.infer<typeof RawBackupSchema>): BackupRecord {
  const status = raw.status ?? {};
  const labels = raw.metadata.labels ?? {};
  return {
    name: raw.metadata.name,
    namespace: raw.metadata.namespace ?? '',
    cluster: clusterOf(raw.metadata),
    policyName: raw.spec.backupPolicyName,
    method: raw.spec.backupMethod,
    phase: status.phase ?? '',
    ...withValue('scheduleName', labels[SCHEDULE_LABEL]),
    ...(labels[AUTOMATED_LABEL] === 'true' ? { automated: true } : {}),
    ...withValue('repository', status.backupRepoName ?? raw.metadata.annotations?.[REQUESTED_REPO_ANNOTATION]),
    ...withValue('totalSize', status.totalSize),
    createdAt: created(raw.metadata),
    ...withValue('startTime', status.startTimestamp),
    ...withValue('completionTime', status.completionTimestamp),
    ...withValue('expiration', status.expiration),
    ...withValue('retentionPeriod', raw.spec.retentionPeriod),
    ...withValue('deletionPolicy', raw.spec.deletionPolicy),
    ...withValue('parentBackupName', raw.spec.parentBackupName),
    ...(raw.spec.parameters?.length
      ? { parameters: Object.fromEntries(raw.spec.parameters.map((p) => [p.name, p.value])) }
      : {}),
    ...withValue('failureReason', status.failureReason),
  };
}

export function toPolicyRecord(raw: z.infer<typeof RawPolicySchema>): PolicyRecord {
  return {
    name: raw.metadata.name,
    namespace: raw.metadata.namespace ?? '',
    cluster: clusterOf(raw.metadata),
    ...withValue('repository', raw.spec.backupRepoName),
    methods: raw.spec.backupMethods.map((method) => ({
      name: method.name,
      ...(method.snapshotVolumes === undefined ? {} : { snapshotVolumes: method.snapshotVolumes }),
    })),
    ...withValue('pathPrefix', raw.spec.pathPrefix),
    phase: raw.status?.phase ?? '',
    ...withValue('message', raw.status?.message),
    createdAt: created(raw.metadata),
  };
}

export function toScheduleRecord(raw: z.infer<typeof RawScheduleSchema>): ScheduleRecord | undefined {
  const entry = raw.spec.schedules[0];
  if (!entry) return undefined;
  const status =
    raw.status?.schedules?.[entry.name ?? entry.backupMethod] ?? raw.status?.schedules?.[entry.backupMethod];
  return {
    name: raw.metadata.name,
    namespace: raw.metadata.namespace ?? '',
    cluster: clusterOf(raw.metadata),
    policyName: raw.spec.backupPolicyName,
    method: entry.backupMethod,
    cronExpression: entry.cronExpression,
    retentionPeriod: entry.retentionPeriod ?? '',
    enabled: entry.enabled ?? false,
    ...(raw.spec.startingDeadlineMinutes === undefined
      ? {}
      : { startingDeadlineMinutes: raw.spec.startingDeadlineMinutes }),
    phase: raw.status?.phase ?? '',
    ...withValue('failureReason', raw.status?.failureReason ?? status?.failureReason),
    createdAt: created(raw.metadata),
    ...withValue('lastRun', status?.lastScheduleTime),
    ...withValue('lastSucceeded', status?.lastSuccessfulTime),
    ...(status?.phase === 'Failed' ? { lastFailed: true } : {}),
  };
}

export function toRestoreRecord(raw: z.infer<typeof RawRestoreSchema>): RestoreRecord {
  const status = raw.status ?? {};
  const message = status.conditions?.map((condition) => condition.message).find(Boolean);
  return {
    name: raw.metadata.name,
    namespace: raw.metadata.namespace ?? '',
    cluster: clusterOf(raw.metadata),
    backupName: raw.spec.backup.name,
    backupNamespace: raw.spec.backup.namespace,
    ...withValue('restoreTime', raw.spec.restoreTime),
    phase: status.phase ?? '',
    createdAt: created(raw.metadata),
    ...withValue('startTime', status.startTimestamp),
    ...withValue('completionTime', status.completionTimestamp),
    ...withValue('message', message),
  };
}

/** The Secret holding a repository's credentials (in the server's namespace). */
export const repoSecretName = (repo: string) => `graphdb-backup-repo-${repo}`;
