// The backup port in embedded mode: a backup is the embedded FalkorDB's RDB snapshot, kept with a JSON record in
// DATA_DIR/backups (embedded-backup-files.ts); a restore stops the server, puts the snapshot in place of its data
// files, starts it and checks that the graphs the backup recorded are there (embedded-server-snapshots.ts).
// Schedules run in this process on an injected clock, which also deletes the backups whose retention has run out.
// Backups and restores run one at a time.
import { chmod, copyFile, rename, stat } from 'node:fs/promises';
import { nextRun, parseCron, retentionMs } from '../../lib/cron.js';
import type { EmbeddedFalkorDB } from '../falkordb/embedded-falkordb.js';
import type { PlatformLogger } from '../logger.js';
import { PortError } from '../port-errors.js';
import type {
  BackupPort,
  BackupRecord,
  NewBackup,
  NewSchedule,
  PolicyRecord,
  RestoreRecord,
  ScheduleRecord,
  ScheduleSpec,
} from './backup-port.js';
import { openBackupFiles, type StoredBackup } from './embedded-backup-files.js';
import {
  dataFilesOf,
  dumpFile,
  graphList,
  keepKeys,
  putBack,
  replaceDataFiles,
  takeSnapshot,
  untilAnswering,
  type ServerCommand,
} from './embedded-server-snapshots.js';

export const EMBEDDED_REPOSITORY = 'local';
const NOT_SUPPORTED = 'Not supported in embedded mode';
const METHOD = 'datafile';

export interface EmbeddedBackupsOptions {
  falkordb: EmbeddedFalkorDB;
  /** Where backups are kept (DATA_DIR/backups). */
  dir: string;
  /** The namespace and name the embedded deployment is listed under. */
  namespace: string;
  cluster: string;
  /** A command on the embedded server as its administrator (reconnects after a restart). */
  command: ServerCommand;
  /**
   * Databases a restore leaves as they are (database 1: the token store and the audit log, so a restore neither
   * brings back revoked tokens nor rewrites the audit trail), each through a command on that database that answers
   * bulk strings as Buffers (DUMP payloads are binary). The command's connection is the restore's own: it is
   * SELECTed to the database before use, since a client may come back from the restart on database 0.
   */
  keepDatabases?: { database: number; command: (args: (string | Buffer)[]) => Promise<unknown> }[];
  logger: PlatformLogger;
  now?: () => number;
  /** How often schedules are looked at (ms); 0 leaves it to tick() (tests). */
  tickMs?: number;
  /** How long a snapshot may take before the backup fails. */
  snapshotTimeoutMs?: number;
}

export interface EmbeddedBackups extends BackupPort {
  /** Runs every schedule whose next run has come; resolves when the backups it started have ended. */
  tick(): Promise<void>;
  /** Resolves when the backups and restores under way have ended. */
  idle(): Promise<void>;
}

export async function createEmbeddedBackups(options: EmbeddedBackupsOptions): Promise<EmbeddedBackups> {
  const now = options.now ?? Date.now;
  const { dir, namespace, cluster, logger } = options;
  const iso = (ms = now()) => new Date(ms).toISOString();
  const policyName = `${cluster}-falkordb-backup-policy`;

  const files = await openBackupFiles(dir, logger);
  const { backups, snapshotFile, saveRecord } = files;
  let { schedules, restores } = files;
  const saveSchedules = () => files.saveSchedules(schedules);
  const saveRestores = () => files.saveRestores(restores);

  // One backup or restore at a time: a restore must not replace the files a snapshot is being copied from.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  async function takeBackup(backup: StoredBackup): Promise<void> {
    try {
      backup.phase = 'Running';
      backup.startTime = iso();
      await saveRecord(backup);
      backup.graphs = await graphList(options.command);
      await takeSnapshot(options.command, options.snapshotTimeoutMs ?? 120_000);
      const source = await dumpFile(options.command);
      const partial = `${snapshotFile(backup.name)}.partial`;
      await copyFile(source, partial);
      // The snapshot holds database 1 too (token metadata): readable by this user only.
      await chmod(partial, 0o600);
      await rename(partial, snapshotFile(backup.name));
      backup.totalSize = String((await stat(snapshotFile(backup.name))).size);
      backup.phase = 'Completed';
      backup.completionTime = iso();
      const retention = backup.retentionPeriod ? retentionMs(backup.retentionPeriod) : undefined;
      if (retention !== undefined) backup.expiration = iso(now() + retention);
    } catch (error) {
      logger.error({ err: error, backup: backup.name }, 'embedded backup failed');
      backup.phase = 'Failed';
      backup.failureReason = (error as Error).message;
      backup.completionTime = iso();
    }
    await saveRecord(backup);
  }

  function newBackup(input: NewBackup, scheduleName?: string): StoredBackup {
    if (backups.has(input.name)) throw new PortError('conflict', `Backup ${input.name} already exists`);
    const backup: StoredBackup = {
      name: input.name,
      namespace,
      cluster,
      policyName: input.policyName,
      method: input.method,
      phase: 'New',
      repository: EMBEDDED_REPOSITORY,
      createdAt: iso(),
      deletionPolicy: input.deletionPolicy,
      ...(input.retentionPeriod ? { retentionPeriod: input.retentionPeriod } : {}),
      ...(input.parameters ? { parameters: input.parameters } : {}),
      ...(scheduleName ? { scheduleName } : {}),
      graphs: [],
    };
    backups.set(backup.name, backup);
    return backup;
  }

  const publicBackup = ({ graphs: _graphs, ...record }: StoredBackup): BackupRecord => ({ ...record });

  async function restoreInto(restore: RestoreRecord, backup: StoredBackup): Promise<void> {
    try {
      const files = await dataFilesOf(options.command);
      const keep = options.keepDatabases ?? [];
      const kept = await Promise.all(keep.map(({ database, command }) => keepKeys(database, command)));
      await options.falkordb.restart(() => replaceDataFiles(files, snapshotFile(backup.name)));
      await untilAnswering(options.command);
      for (const [index, database] of keep.entries()) await putBack(database.database, database.command, kept[index]!);
      const graphs = await graphList(options.command);
      const missing = backup.graphs.filter((graph) => !graphs.includes(graph));
      if (missing.length > 0) throw new Error(`after the restore, graphs ${missing.join(', ')} are missing`);
      restore.phase = 'Completed';
      restore.message = `Restored ${backup.graphs.length} graph(s) from backup ${backup.name}${
        keep.length > 0 ? `; database ${keep.map((d) => d.database).join(', ')} kept as it was` : ''
      }`;
    } catch (error) {
      logger.error({ err: error, restore: restore.name }, 'embedded restore failed');
      restore.phase = 'Failed';
      restore.message = (error as Error).message;
    }
    restore.completionTime = iso();
    await saveRestores();
  }

  function scheduleWithTimes(schedule: ScheduleRecord): ScheduleRecord {
    let next: number | undefined;
    try {
      next = schedule.enabled ? nextRun(parseCron(schedule.cronExpression), now()) : undefined;
    } catch {
      next = undefined;
    }
    return { ...schedule, ...(next === undefined ? {} : { nextRun: iso(next) }) };
  }

  /** When each schedule last looked for its next run: a run is due once that next run has come. */
  const lastLooked = new Map<string, number>();
  let scheduledCount = 0;

  async function tick(): Promise<void> {
    const at = now();
    const due: ScheduleRecord[] = [];
    for (const schedule of schedules) {
      if (!schedule.enabled) continue;
      const since = lastLooked.get(schedule.name) ?? Date.parse(schedule.createdAt);
      lastLooked.set(schedule.name, at);
      let next: number | undefined;
      try {
        next = nextRun(parseCron(schedule.cronExpression), since);
      } catch {
        continue;
      }
      if (next !== undefined && next <= at) due.push(schedule);
    }
    const runs = due.map((schedule) => {
      const stamp = new Date(at).toISOString().replace(/[-:T]/g, '').slice(0, 14);
      scheduledCount += 1;
      const backup = newBackup(
        {
          name: `${schedule.name}-${stamp}${scheduledCount > 1 ? `-${scheduledCount}` : ''}`.slice(0, 63),
          namespace,
          cluster,
          policyName: schedule.policyName,
          method: schedule.method,
          retentionPeriod: schedule.retentionPeriod,
          deletionPolicy: 'Delete',
        },
        schedule.name,
      );
      schedule.lastRun = iso(at);
      return serially(() => takeBackup(backup)).then(() => {
        schedule.lastFailed = backup.phase === 'Failed';
        if (!schedule.lastFailed) schedule.lastSucceeded = backup.completionTime;
      });
    });
    await Promise.all(runs);
    if (due.length > 0) await saveSchedules();
    // As KubeBlocks does: a backup whose retention has run out is deleted.
    for (const backup of [...backups.values()])
      if (backup.expiration && Date.parse(backup.expiration) <= at) await removeBackup(backup.name);
  }

  async function removeBackup(name: string): Promise<void> {
    backups.delete(name);
    await files.removeBackupFiles(name);
  }

  const timer =
    options.tickMs === 0
      ? undefined
      : setInterval(
          () => void tick().catch((error: unknown) => logger.error({ err: error }, 'backup schedules failed')),
          options.tickMs ?? 30_000,
        );
  timer?.unref();

  const builtInPolicy = (): PolicyRecord => ({
    name: policyName,
    namespace,
    cluster,
    repository: EMBEDDED_REPOSITORY,
    methods: [{ name: METHOD, snapshotVolumes: false }],
    phase: 'Available',
    createdAt: options.falkordb.startedAt.toISOString(),
  });
  const ours = (ns: string, name: string) => ns === namespace && name === cluster;
  const refuse = (what: string) => Promise.reject(new PortError('rejected', `${NOT_SUPPORTED}: ${what}`));
  const findSchedule = (ns: string, name: string) =>
    ns === namespace ? schedules.find((schedule) => schedule.name === name) : undefined;

  return {
    kind: 'local',
    methods: [METHOD],
    pointInTimeMethods: [],
    defaultPolicyName: () => policyName,

    // Backups go to one fixed place here (DATA_DIR/backups), not to a repository one can manage.
    listRepositories: () => Promise.resolve([]),
    getRepository: () => Promise.resolve(undefined),

    listBackups: (ns, name) =>
      Promise.resolve(
        ours(ns, name)
          ? [...backups.values()]
              .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.name.localeCompare(a.name))
              .map(publicBackup)
          : [],
      ),
    listBackupsIn: (scope) =>
      Promise.resolve(
        'allNamespaces' in scope || scope.namespace === namespace ? [...backups.values()].map(publicBackup) : [],
      ),
    getBackup(ns, name) {
      const found = ns === namespace ? backups.get(name) : undefined;
      return Promise.resolve(found && publicBackup(found));
    },
    createBackup(input) {
      if (input.method !== METHOD) return refuse(`only the ${METHOD} method (an RDB snapshot) is available`);
      const backup = newBackup(input);
      void serially(() => takeBackup(backup));
      return Promise.resolve(publicBackup(backup));
    },
    async deleteBackup(ns, name) {
      const found = ns === namespace ? backups.get(name) : undefined;
      if (!found) return false;
      await removeBackup(name);
      return true;
    },

    // One built-in policy: the datafile method into DATA_DIR/backups.
    listPolicies: (ns, name) => Promise.resolve(ours(ns, name) ? [builtInPolicy()] : []),
    getPolicy: (ns, name) => Promise.resolve(ns === namespace && name === policyName ? builtInPolicy() : undefined),

    listSchedules: (ns, name) => Promise.resolve(ours(ns, name) ? schedules.map(scheduleWithTimes) : []),
    getSchedule(ns, name) {
      const found = findSchedule(ns, name);
      return Promise.resolve(found && scheduleWithTimes(found));
    },
    async createSchedule(input: NewSchedule) {
      if (input.method !== METHOD) return refuse(`only the ${METHOD} method (an RDB snapshot) is available`);
      if (schedules.some((schedule) => schedule.name === input.name))
        throw new PortError('conflict', `Backup schedule ${input.name} already exists`);
      const schedule: ScheduleRecord = {
        name: input.name,
        namespace,
        cluster,
        policyName: input.policyName,
        method: input.method,
        cronExpression: input.cronExpression,
        retentionPeriod: input.retentionPeriod,
        enabled: input.enabled,
        ...(input.startingDeadlineMinutes === undefined
          ? {}
          : { startingDeadlineMinutes: input.startingDeadlineMinutes }),
        phase: 'Available',
        createdAt: iso(),
      };
      schedules.push(schedule);
      await saveSchedules();
      return scheduleWithTimes(schedule);
    },
    async updateSchedule(ns, name, spec: ScheduleSpec) {
      const found = findSchedule(ns, name);
      if (!found) throw new PortError('not-found', `Backup schedule ${name} not found`);
      if (spec.method !== METHOD) return refuse(`only the ${METHOD} method (an RDB snapshot) is available`);
      Object.assign(found, spec);
      // A changed expression counts from now, not from the last time the old one was looked at.
      lastLooked.set(name, now());
      await saveSchedules();
      return scheduleWithTimes(found);
    },
    async deleteSchedule(ns, name) {
      const found = findSchedule(ns, name);
      if (!found) return false;
      schedules = schedules.filter((schedule) => schedule !== found);
      lastLooked.delete(name);
      await saveSchedules();
      return true;
    },

    listRestores: (ns, name) =>
      Promise.resolve(
        ours(ns, name)
          ? [...restores].sort((a, b) => b.createdAt.localeCompare(a.createdAt)).map((r) => ({ ...r }))
          : [],
      ),
    getRestore(ns, name) {
      const found = ns === namespace ? restores.find((restore) => restore.name === name) : undefined;
      return Promise.resolve(found && { ...found });
    },
    async createRestore(input) {
      if (input.restoreTime) return refuse('a point-in-time restore needs a continuous (aof) backup');
      if (restores.some((restore) => restore.name === input.name))
        throw new PortError('conflict', `Restore ${input.name} already exists`);
      const backup = input.backup.namespace === namespace ? backups.get(input.backup.name) : undefined;
      if (!backup) throw new PortError('not-found', `Backup ${input.backup.name} not found`);
      const restore: RestoreRecord = {
        name: input.name,
        namespace,
        cluster,
        backupName: backup.name,
        backupNamespace: namespace,
        phase: 'Running',
        createdAt: iso(),
        startTime: iso(),
      };
      restores.push(restore);
      await saveRestores();
      void serially(() => restoreInto(restore, backup));
      return { ...restore };
    },
    async deleteRestore(ns, name) {
      const found = ns === namespace ? restores.find((restore) => restore.name === name) : undefined;
      if (!found) return false;
      restores = restores.filter((restore) => restore !== found);
      await saveRestores();
      return true;
    },

    tick,
    idle: () => serially(() => Promise.resolve()),
    async close() {
      clearInterval(timer);
      await serially(() => Promise.resolve());
    },
  };
}
