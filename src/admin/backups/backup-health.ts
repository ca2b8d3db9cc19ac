// What the backup metrics say about the deployments' backups: how many are in each of the API's four statuses, and
// when the newest failure happened. Pure: the backup service feeds it the platform's records.
import type { BackupRecord } from '../../platform/backups/backup-port.js';
import { backupStatusOf, type BackupStatus } from './backup-views.js';

export const BACKUP_STATUSES: readonly BackupStatus[] = ['pending', 'running', 'completed', 'failed'];

export interface BackupHealth {
  /** Backups of the managed deployments by status (every status present, 0 when none). */
  byStatus: Record<BackupStatus, number>;
  /** When the newest failed backup ended (or started, or was created), in ms since the epoch; 0 when none failed. */
  lastFailureMs: number;
}

/**
 * Counts the backups whose cluster is one of `clusters` (`namespace/name`): the namespace may hold other
 * KubeBlocks engines' backups, which are not this server's to report.
 */
export function backupHealthOf(backups: readonly BackupRecord[], clusters: ReadonlySet<string>): BackupHealth {
  const byStatus: Record<BackupStatus, number> = { pending: 0, running: 0, completed: 0, failed: 0 };
  let lastFailureMs = 0;
  for (const backup of backups) {
    if (!clusters.has(`${backup.namespace}/${backup.cluster}`)) continue;
    const status = backupStatusOf(backup.phase);
    byStatus[status] += 1;
    if (status !== 'failed') continue;
    const at = Date.parse(backup.completionTime ?? backup.startTime ?? backup.createdAt);
    if (Number.isFinite(at)) lastFailureMs = Math.max(lastFailureMs, at);
  }
  return { byStatus, lastFailureMs };
}
