// The platform's backup records in the FalkorDB Enterprise admin API's shapes (Backup, BackupPolicy, BackupSchedule, Restore,
// BackupRepository): KubeBlocks' phases mapped to the API's words, repository config values typed again. Pure.
import type {
  BackupRecord,
  PolicyRecord,
  RepositoryRecord,
  RestoreRecord,
  ScheduleRecord,
} from '../../platform/backups/backup-port.js';
import { nextRun, parseCron } from '../../lib/cron.js';

export type BackupStatus = 'pending' | 'running' | 'completed' | 'failed';

/** KubeBlocks' Backup phase → the API's status. A backup being deleted is still at work, and cannot be restored. */
export function backupStatusOf(phase: string): BackupStatus {
  switch (phase) {
    case 'Completed':
      return 'completed';
    case 'Failed':
      return 'failed';
    case 'InProgress':
    case 'Running':
    case 'Deleting':
      return 'running';
    default:
      return 'pending';
  }
}

export function restoreStatusOf(phase: string): BackupStatus {
  switch (phase) {
    case 'Completed':
    case 'AsDataSource':
      return 'completed';
    case 'Failed':
      return 'failed';
    case 'Running':
      return 'running';
    default:
      return 'pending';
  }
}

export function backupView(record: BackupRecord, fallbackRepository: string) {
  const status = backupStatusOf(record.phase);
  const reason =
    status === 'completed'
      ? undefined
      : record.phase === 'Deleting'
        ? 'The backup is being deleted'
        : status === 'failed'
          ? `The backup failed${record.failureReason ? `: ${record.failureReason}` : ''}`
          : `The backup is ${status}; only a completed backup can be restored`;
  return {
    name: record.name,
    cluster: record.cluster,
    namespace: record.namespace,
    backupPolicyName: record.policyName,
    backupMethodName: record.method,
    type: record.method === 'volume-snapshot' ? ('snapshot' as const) : ('full' as const),
    status,
    source: record.scheduleName
      ? ('scheduled' as const)
      : record.automated
        ? ('automated' as const)
        : ('manual' as const),
    repository: record.repository ?? fallbackRepository,
    ...(record.totalSize ? { size: record.totalSize } : {}),
    startTime: record.startTime ?? record.createdAt,
    ...(record.completionTime ? { completionTime: record.completionTime } : {}),
    ...(record.expiration ? { expirationDate: record.expiration } : {}),
    ...(record.retentionPeriod ? { retentionPeriod: record.retentionPeriod } : {}),
    ...(record.deletionPolicy ? { deletionPolicy: record.deletionPolicy } : {}),
    ...(record.parentBackupName ? { parentBackupName: record.parentBackupName } : {}),
    ...(record.parameters ? { parameters: record.parameters } : {}),
    canRestore: status === 'completed',
    ...(reason ? { restoreNotReadyReason: reason } : {}),
  };
}

export function policyView(record: PolicyRecord): {
  name: string;
  cluster: string;
  namespace: string;
  backupRepoName?: string;
  backupMethods: { name: string; snapshotVolumes?: boolean }[];
  pathPrefix?: string;
  status?: 'Available' | 'Unavailable';
  message?: string;
  createdAt: string;
} {
  return {
    name: record.name,
    cluster: record.cluster,
    namespace: record.namespace,
    ...(record.repository ? { backupRepoName: record.repository } : {}),
    backupMethods: record.methods,
    ...(record.pathPrefix ? { pathPrefix: record.pathPrefix } : {}),
    ...(record.phase === 'Available' || record.phase === 'Unavailable' ? { status: record.phase } : {}),
    ...(record.message ? { message: record.message } : {}),
    createdAt: record.createdAt,
  };
}

/** The next run of an enabled schedule, in UTC, when its expression parses. */
function nextRunOf(record: ScheduleRecord, now: number): string | undefined {
  if (record.nextRun) return record.nextRun;
  if (!record.enabled) return undefined;
  try {
    const next = nextRun(parseCron(record.cronExpression), now);
    return next === undefined ? undefined : new Date(next).toISOString();
  } catch {
    return undefined;
  }
}

export function scheduleView(record: ScheduleRecord, now: number) {
  const status: 'Available' | 'Failed' | 'Deleting' | undefined = record.deleting
    ? 'Deleting'
    : record.phase === 'Available' || record.phase === 'Failed'
      ? record.phase
      : undefined;
  const next = nextRunOf(record, now);
  return {
    name: record.name,
    cluster: record.cluster,
    namespace: record.namespace,
    frequency: record.cronExpression,
    backupMethod: record.method,
    backupPolicyName: record.policyName,
    retentionPeriod: record.retentionPeriod,
    ...(record.startingDeadlineMinutes === undefined
      ? {}
      : { startingDeadlineMinutes: record.startingDeadlineMinutes }),
    ...(status ? { status } : {}),
    ...(record.failureReason ? { failureReason: record.failureReason } : {}),
    ...(next ? { nextRun: next } : {}),
    enabled: record.enabled,
    ...(record.lastRun ? { lastRun: record.lastRun } : {}),
    ...(record.lastRun
      ? { lastStatus: record.lastFailed ? ('failed' as const) : ('success' as const) }
      : record.lastSucceeded
        ? { lastStatus: 'success' as const }
        : {}),
    createdAt: record.createdAt,
  };
}

export function restoreView(record: RestoreRecord) {
  return {
    name: record.name,
    cluster: record.cluster,
    namespace: record.namespace,
    backupRef: { name: record.backupName, namespace: record.backupNamespace },
    ...(record.restoreTime ? { restoreTime: record.restoreTime } : {}),
    status: restoreStatusOf(record.phase),
    startTime: record.startTime ?? record.createdAt,
    ...(record.completionTime ? { completionTime: record.completionTime } : {}),
    ...(record.message ? { message: record.message } : {}),
  };
}

/** Config keys the API types as booleans or integers (KubeBlocks keeps every value as a string). */
const BOOLEAN_KEYS = new Set(['insecure', 'noCheckBucket', 'forcePathStyle', 'noCheckContainer', 'ftpTls']);
const INTEGER_KEYS = new Set(['geesefsMemoryLimit', 'geesefsReadAheadLarge', 'ftpPort']);

export function typedConfig(config: Record<string, string>): Record<string, string | number | boolean> {
  return Object.fromEntries(
    Object.entries(config).map(([key, value]): [string, string | number | boolean] => {
      if (BOOLEAN_KEYS.has(key) && (value === 'true' || value === 'false')) return [key, value === 'true'];
      if (INTEGER_KEYS.has(key) && /^\d+$/.test(value)) return [key, Number(value)];
      return [key, value];
    }),
  );
}

export function stringConfig(config: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(config)
      .filter(([, value]) => value !== undefined && value !== null)
      .map(([key, value]) => [key, String(value)]),
  );
}

export function repositoryView(record: RepositoryRecord) {
  return {
    name: record.name,
    storageProviderRef: record.storageProviderRef,
    isDefault: record.isDefault,
    createdAt: record.createdAt,
    status:
      record.phase === 'Ready'
        ? ('ready' as const)
        : record.phase === 'Failed'
          ? ('error' as const)
          : ('pending' as const),
    ...(record.message ? { statusMessage: record.message } : {}),
    type: record.type ?? record.storageProviderRef,
    config: typedConfig(record.config),
  };
}
