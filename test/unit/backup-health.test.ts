// The backup metrics' figures (backupHealthOf).
import { describe, expect, it } from 'vitest';
import { backupHealthOf } from '../../src/admin/backups/backup-health.js';
import type { BackupRecord } from '../../src/platform/backups/backup-port.js';

const backup = (name: string, phase: string, extra: Partial<BackupRecord> = {}): BackupRecord => ({
  name,
  namespace: 'ns',
  cluster: 'db',
  policyName: 'db-falkordb-backup-policy',
  method: 'datafile',
  phase,
  createdAt: '2026-03-01T00:00:00Z',
  ...extra,
});

describe('backupHealthOf', () => {
  it("counts the managed deployments' backups by the API's status, and dates the newest failure", () => {
    const health = backupHealthOf(
      [
        backup('a', 'Completed'),
        backup('b', 'Running'),
        backup('c', 'Deleting'),
        backup('d', ''),
        backup('e', 'Failed', { startTime: '2026-03-02T00:00:00Z', completionTime: '2026-03-02T00:10:00Z' }),
        backup('f', 'Failed', { startTime: '2026-03-03T00:00:00Z' }),
        backup('g', 'Failed'),
        // Another engine's backup in the same namespace, and one of a deployment not managed here.
        backup('h', 'Failed', { cluster: 'postgres', createdAt: '2026-04-01T00:00:00Z' }),
        backup('i', 'Failed', { namespace: 'other', createdAt: '2026-04-01T00:00:00Z' }),
      ],
      new Set(['ns/db']),
    );
    expect(health.byStatus).toEqual({ pending: 1, running: 2, completed: 1, failed: 3 });
    expect(health.lastFailureMs).toBe(Date.parse('2026-03-03T00:00:00Z'));
  });

  it('reports every status at 0 and no failure time when nothing failed', () => {
    expect(backupHealthOf([backup('a', 'Completed')], new Set(['ns/db']))).toEqual({
      byStatus: { pending: 0, running: 0, completed: 1, failed: 0 },
      lastFailureMs: 0,
    });
  });
});
