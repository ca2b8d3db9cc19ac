// The backup metrics' figures (backupHealthOf) and the bounded look behind every alert gauge (boundedLook).
import { describe, expect, it } from 'vitest';
import { boundedLook } from '../../src/admin/alert-metrics.js';
import { backupHealthOf } from '../../src/admin/backups/backup-health.js';
import type { BackupRecord } from '../../src/platform/backups/backup-port.js';
import { sleep } from '../support/wait.js';

/** Past the second in which a finished look is shared; a timer may fire a millisecond before Date.now() says so. */
const PAST_SHARING_MS = 1050;

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

describe('boundedLook', () => {
  it('answers the last value when a look outlasts the wait, and the new one once it has ended', async () => {
    let release: (value: number) => void = () => undefined;
    let looks = 0;
    const errors: unknown[] = [];
    const look = boundedLook(
      () => {
        looks += 1;
        if (looks === 1) return Promise.resolve(1);
        return new Promise<number>((resolve) => (release = resolve));
      },
      50,
      (error) => errors.push(error),
    );
    expect(await look()).toBe(1);
    // Within a second of a finished look, gauges share it.
    expect(await look()).toBe(1);
    expect(looks).toBe(1);
    await sleep(PAST_SHARING_MS);
    // The second look hangs (an API outage): the scrape still answers, within the wait, with the value before.
    const started = Date.now();
    expect(await look()).toBe(1);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await look()).toBe(1);
    expect(looks).toBe(2);
    release(2);
    await sleep(0);
    expect(await look()).toBe(2);
    expect(errors).toEqual([]);
  });

  it('keeps the last value when a look fails, and reports the failure', async () => {
    let fail = false;
    const errors: unknown[] = [];
    const look = boundedLook(
      () => (fail ? Promise.reject(new Error('forbidden')) : Promise.resolve('ok')),
      50,
      (error) => errors.push(error),
    );
    expect(await look()).toBe('ok');
    fail = true;
    await sleep(PAST_SHARING_MS);
    expect(await look()).toBe('ok');
    expect(errors.map((error) => (error as Error).message)).toEqual(['forbidden']);
  });
});
