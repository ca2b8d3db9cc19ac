// Where embedded mode keeps its backups on disk (docs/decisions/embedded-backup-files.md): DATA_DIR/backups/<name>.rdb
// with a JSON record beside it, and the schedules and restores in lists/schedules.json and lists/restores.json.
// Reading them back after a restart marks what was under way then as failed.
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../lib/atomic-file.js';
import { KUBERNETES_NAME } from '../../lib/kubernetes-names.js';
import type { PlatformLogger } from '../logger.js';
import type { BackupRecord, RestoreRecord, ScheduleRecord } from './backup-port.js';

const BACKUP_NAME = KUBERNETES_NAME;

export interface StoredBackup extends BackupRecord {
  /** The graphs (GRAPH.LIST) when the snapshot was taken: what a restore must bring back. */
  graphs: string[];
}

/**
 * Earlier versions kept the lists as schedules.json and restores.json beside the backups' records, where a backup
 * of that name replaced one with the other. A list found there (a JSON array) moves into lists/, unless lists/
 * already has one; a backup record found there (an object) stays, and is read as the backup it is.
 */
async function moveLegacyLists(dir: string, moves: Record<string, string>, logger: PlatformLogger): Promise<void> {
  for (const [name, target] of Object.entries(moves)) {
    const legacy = path.join(dir, name);
    let content: string;
    try {
      content = await readFile(legacy, 'utf8');
    } catch {
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(content);
    } catch (error) {
      logger.warn({ err: error, file: legacy }, 'leaving a backup file that does not parse where it is');
      continue;
    }
    if (!Array.isArray(parsed)) continue;
    const moved = await readFile(target, 'utf8').then(
      () => false,
      async () => {
        await writeFileAtomic(target, content, 0o600);
        return true;
      },
    );
    if (!moved) logger.warn({ file: legacy, kept: target }, 'an older copy of a backup list was found and removed');
    await rm(legacy, { force: true });
  }
}

/** The backups, schedules and restores a previous run left in `dir`, and where each is written. */
export async function openBackupFiles(dir: string, logger: PlatformLogger) {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const backups = new Map<string, StoredBackup>();
  // The lists live in a folder of their own: a backup's files are <name>.json and <name>.rdb beside it, and a backup
  // may be named `schedules` or `restores`.
  const listsDir = path.join(dir, 'lists');
  await mkdir(listsDir, { recursive: true, mode: 0o700 });
  const schedulesFile = path.join(listsDir, 'schedules.json');
  const restoresFile = path.join(listsDir, 'restores.json');
  const recordFile = (name: string) => path.join(dir, `${name}.json`);
  const snapshotFile = (name: string) => path.join(dir, `${name}.rdb`);
  await moveLegacyLists(dir, { 'schedules.json': schedulesFile, 'restores.json': restoresFile }, logger);

  // What a previous run left: backup records (one that was under way then has failed), schedules, restores.
  for (const file of await readdir(dir)) {
    if (!file.endsWith('.json')) continue;
    try {
      const stored = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as StoredBackup;
      if (!BACKUP_NAME.test(stored.name)) continue;
      if (stored.phase !== 'Completed' && stored.phase !== 'Failed') {
        stored.phase = 'Failed';
        stored.failureReason = 'The server stopped while the backup was being taken';
      }
      backups.set(stored.name, stored);
    } catch (error) {
      logger.warn({ err: error, file }, 'skipping a backup record that does not parse');
    }
  }
  const readList = async <T>(file: string): Promise<T[]> =>
    JSON.parse(await readFile(file, 'utf8').catch(() => '[]')) as T[];
  const schedules = await readList<ScheduleRecord>(schedulesFile);
  const restores = (await readList<RestoreRecord>(restoresFile)).map((restore) =>
    restore.phase === 'Running'
      ? { ...restore, phase: 'Failed', message: 'The server stopped during the restore' }
      : restore,
  );

  return {
    backups,
    schedules,
    restores,
    snapshotFile,
    saveRecord: (backup: StoredBackup) => writeFileAtomic(recordFile(backup.name), JSON.stringify(backup), 0o600),
    saveSchedules: (list: ScheduleRecord[]) => writeFileAtomic(schedulesFile, JSON.stringify(list), 0o600),
    saveRestores: (list: RestoreRecord[]) => writeFileAtomic(restoresFile, JSON.stringify(list), 0o600),
    async removeBackupFiles(name: string): Promise<void> {
      await rm(snapshotFile(name), { force: true });
      await rm(recordFile(name), { force: true });
    },
  };
}
