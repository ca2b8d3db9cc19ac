// KubeBlocks' phases and repository config in the FalkorDB Enterprise admin API's words and types.
import { describe, expect, it } from 'vitest';
import {
  backupStatusOf,
  backupView,
  restoreStatusOf,
  scheduleView,
  stringConfig,
  typedConfig,
} from '../../src/admin/backups/backup-views.js';

const at = (iso: string) => Date.parse(iso);

describe('KubeBlocks phases and repository config in the API words', () => {
  it('maps backup and restore phases', () => {
    expect(['', 'New', 'InProgress', 'Running', 'Completed', 'Failed', 'Deleting'].map(backupStatusOf)).toEqual([
      'pending',
      'pending',
      'running',
      'running',
      'completed',
      'failed',
      'running',
    ]);
    expect(['', 'Running', 'Completed', 'AsDataSource', 'Failed'].map(restoreStatusOf)).toEqual([
      'pending',
      'running',
      'completed',
      'completed',
      'failed',
    ]);
  });

  it('says why a backup cannot be restored, and where it came from', () => {
    const base = {
      name: 'b',
      namespace: 'ns',
      cluster: 'c',
      policyName: 'p',
      method: 'volume-snapshot',
      createdAt: '2026-01-01T00:00:00Z',
    };
    expect(backupView({ ...base, phase: 'Running' }, 'repo')).toMatchObject({
      type: 'snapshot',
      source: 'manual',
      repository: 'repo',
      startTime: '2026-01-01T00:00:00Z',
      canRestore: false,
      restoreNotReadyReason: 'The backup is running; only a completed backup can be restored',
    });
    expect(backupView({ ...base, phase: 'Completed', scheduleName: 's' }, 'repo')).toMatchObject({
      source: 'scheduled',
      canRestore: true,
    });
    expect(backupView({ ...base, phase: 'Completed', scheduleName: 's' }, 'repo')).not.toHaveProperty(
      'restoreNotReadyReason',
    );
  });

  it('computes a schedule’s next run only while it is enabled', () => {
    const schedule = {
      name: 's',
      namespace: 'ns',
      cluster: 'c',
      policyName: 'p',
      method: 'datafile',
      cronExpression: '0 3 * * *',
      retentionPeriod: '30d',
      enabled: true,
      phase: 'Available',
      createdAt: '2026-01-01T00:00:00Z',
    };
    expect(scheduleView(schedule, at('2026-01-01T04:00:00Z'))).toMatchObject({
      status: 'Available',
      nextRun: '2026-01-02T03:00:00.000Z',
    });
    expect(scheduleView({ ...schedule, enabled: false }, at('2026-01-01T04:00:00Z'))).not.toHaveProperty('nextRun');
  });

  it('types repository config values again (KubeBlocks keeps strings)', () => {
    const stored = stringConfig({ bucket: 'b', insecure: true, geesefsMemoryLimit: 512, endpoint: undefined });
    expect(stored).toEqual({ bucket: 'b', insecure: 'true', geesefsMemoryLimit: '512' });
    expect(typedConfig(stored)).toEqual({ bucket: 'b', insecure: true, geesefsMemoryLimit: 512 });
    expect(typedConfig({ insecure: 'maybe', bucket: 'true' })).toEqual({ insecure: 'maybe', bucket: 'true' });
  });
});
