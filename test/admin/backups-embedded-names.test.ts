// Embedded backups are files named after the backup (DATA_DIR/backups/<name>.json and .rdb): a backup named like the
// lists kept beside them (`schedules`, `restores`) must not replace them, nor be replaced by them. Against a real
// FalkorDB with a data directory, across a restart of the backup port (it reads everything back from disk), and from
// the layout earlier versions left (the lists beside the records), which is moved on start.
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedBackups, type EmbeddedBackups } from '../../src/platform/backups/embedded-backups.js';
import { startTestFalkorDB, type TestFalkorDB } from '../support/falkordb.js';

const NS = 'graphdb-system';
const CLUSTER = 'embedded';

describe('embedded backup files', () => {
  let falkordb: TestFalkorDB;
  let control: ReturnType<typeof createClient>;
  let root: string;
  const opened: EmbeddedBackups[] = [];

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'gdb-backup-names-'));
    falkordb = await startTestFalkorDB({ dataDir: path.join(root, 'falkordb') });
    control = createClient({ url: falkordb.url });
    control.on('error', () => undefined);
    await control.connect();
  });
  afterAll(async () => {
    for (const backups of opened) await backups.close?.();
    await control?.quit().catch(() => undefined);
    await falkordb?.stop();
  });

  /** The backup port over `dir`, as the server opens it at start-up. */
  async function open(dir: string): Promise<EmbeddedBackups> {
    const backups = await createEmbeddedBackups({
      falkordb,
      dir,
      namespace: NS,
      cluster: CLUSTER,
      command: (args) => control.sendCommand(args),
      logger: pino({ level: 'silent' }),
      tickMs: 0,
    });
    opened.push(backups);
    return backups;
  }

  const backup = (name: string) => ({
    name,
    namespace: NS,
    cluster: CLUSTER,
    policyName: `${CLUSTER}-falkordb-backup-policy`,
    method: 'datafile',
    deletionPolicy: 'Delete' as const,
  });

  it('keeps backups named schedules and restores apart from the schedules and restores, across a restart', async () => {
    const dir = path.join(root, 'backups');
    const backups = await open(dir);
    await control.sendCommand(['GRAPH.QUERY', 'kept', 'CREATE (:Item {n: 1})']);
    await backups.createSchedule({
      name: 'nightly',
      namespace: NS,
      cluster: CLUSTER,
      policyName: `${CLUSTER}-falkordb-backup-policy`,
      method: 'datafile',
      cronExpression: '0 3 * * *',
      retentionPeriod: '7d',
      enabled: true,
    });
    await backups.createBackup(backup('schedules'));
    await backups.createBackup(backup('restores'));
    await backups.idle();
    await backups.createRestore({
      name: 'back-to-restores',
      namespace: NS,
      cluster: CLUSTER,
      backup: { name: 'restores', namespace: NS },
    });
    await backups.idle();

    // Still right in this process…
    expect((await backups.listSchedules(NS, CLUSTER)).map((s) => s.name)).toEqual(['nightly']);
    expect((await backups.listRestores(NS, CLUSTER)).map((r) => [r.name, r.phase])).toEqual([
      ['back-to-restores', 'Completed'],
    ]);
    // …and as read back from disk by the next start.
    await backups.close?.();
    const again = await open(dir);
    expect((await again.listBackups(NS, CLUSTER)).map((b) => [b.name, b.phase]).sort()).toEqual([
      ['restores', 'Completed'],
      ['schedules', 'Completed'],
    ]);
    expect((await again.listSchedules(NS, CLUSTER)).map((s) => [s.name, s.cronExpression])).toEqual([
      ['nightly', '0 3 * * *'],
    ]);
    expect((await again.listRestores(NS, CLUSTER)).map((r) => [r.name, r.backupName])).toEqual([
      ['back-to-restores', 'restores'],
    ]);
    const record = JSON.parse(await readFile(path.join(dir, 'schedules.json'), 'utf8')) as { name: string };
    expect(record.name).toBe('schedules');
  });

  it('moves the lists of an earlier layout out of the way of backups, and reads a backup record left there', async () => {
    const dir = path.join(root, 'legacy');
    await mkdir(dir, { mode: 0o700 });
    const schedule = {
      name: 'weekly',
      namespace: NS,
      cluster: CLUSTER,
      policyName: `${CLUSTER}-falkordb-backup-policy`,
      method: 'datafile',
      cronExpression: '0 4 * * 0',
      retentionPeriod: '30d',
      enabled: true,
      phase: 'Available',
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    await writeFile(path.join(dir, 'schedules.json'), JSON.stringify([schedule]), { mode: 0o600 });
    // A backup named `restores` that replaced the restores list there: it is a backup, and read as one.
    const stored = {
      ...backup('restores'),
      phase: 'Completed',
      repository: 'local',
      createdAt: '2026-01-02T00:00:00.000Z',
      graphs: [],
    };
    await writeFile(path.join(dir, 'restores.json'), JSON.stringify(stored), { mode: 0o600 });

    const backups = await open(dir);
    expect((await backups.listSchedules(NS, CLUSTER)).map((s) => s.name)).toEqual(['weekly']);
    expect((await backups.listBackups(NS, CLUSTER)).map((b) => b.name)).toEqual(['restores']);
    expect(await backups.listRestores(NS, CLUSTER)).toEqual([]);
    expect((await readdir(dir)).sort()).toEqual(['lists', 'restores.json']);
    expect(await readdir(path.join(dir, 'lists'))).toEqual(['schedules.json']);
  });
});
