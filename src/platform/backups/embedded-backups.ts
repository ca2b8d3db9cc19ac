// The backup port in embedded mode: a backup is the embedded FalkorDB's RDB snapshot (BGSAVE, then a copy of its dump (one file because backups and restores share the one embedded server's snapshot and its stop and start)
// file) kept as DATA_DIR/backups/<name>.rdb with a JSON record beside it; a restore stops the server, replaces its
// dump file (and its AOF, which would otherwise win at start-up, by one based on the snapshot), starts it and checks
// that the graphs the backup recorded are there. Schedules and restores are kept in lists/schedules.json and
// lists/restores.json, apart from the backups' own files (docs/decisions/embedded-backup-files.md), and schedules run
// in this process on an injected clock, which also deletes the backups whose retention has run out. Backups and
// restores run one at a time.
import { chmod, copyFile, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../lib/atomic-file.js';
import type { EmbeddedFalkorDB } from '../falkordb/embedded-falkordb.js';
import type { PlatformLogger } from '../logger.js';
import { PortError } from '../port-errors.js';
import { nextRun, parseCron, retentionMs } from '../../lib/cron.js';
import { KUBERNETES_NAME } from '../../lib/kubernetes-names.js';
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

export const EMBEDDED_REPOSITORY = 'local';
const NOT_SUPPORTED = 'Not supported in embedded mode';
const METHOD = 'datafile';
const BACKUP_NAME = KUBERNETES_NAME;

interface StoredBackup extends BackupRecord {
  /** The graphs (GRAPH.LIST) when the snapshot was taken: what a restore must bring back. */
  graphs: string[];
}

export interface EmbeddedBackupsOptions {
  falkordb: EmbeddedFalkorDB;
  /** Where backups are kept (DATA_DIR/backups). */
  dir: string;
  /** The namespace and name the embedded deployment is listed under. */
  namespace: string;
  cluster: string;
  /** A command on the embedded server as its administrator (reconnects after a restart). */
  command: (args: string[]) => Promise<unknown>;
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

const text = (reply: unknown): string => (Buffer.isBuffer(reply) ? reply.toString('utf8') : String(reply));

function infoField(info: string, key: string): string | undefined {
  return new RegExp(`^${key}:(.*)$`, 'm').exec(info)?.[1]?.trim();
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

export async function createEmbeddedBackups(options: EmbeddedBackupsOptions): Promise<EmbeddedBackups> {
  const now = options.now ?? Date.now;
  const { dir, namespace, cluster, logger } = options;
  const iso = (ms = now()) => new Date(ms).toISOString();
  const policyName = `${cluster}-falkordb-backup-policy`;
  await mkdir(dir, { recursive: true, mode: 0o700 });

  const backups = new Map<string, StoredBackup>();
  let schedules: ScheduleRecord[] = [];
  let restores: RestoreRecord[] = [];
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
  schedules = await readList<ScheduleRecord>(schedulesFile);
  restores = (await readList<RestoreRecord>(restoresFile)).map((restore) =>
    restore.phase === 'Running'
      ? { ...restore, phase: 'Failed', message: 'The server stopped during the restore' }
      : restore,
  );

  const saveRecord = (backup: StoredBackup) => writeFileAtomic(recordFile(backup.name), JSON.stringify(backup), 0o600);
  const saveSchedules = () => writeFileAtomic(schedulesFile, JSON.stringify(schedules), 0o600);
  const saveRestores = () => writeFileAtomic(restoresFile, JSON.stringify(restores), 0o600);

  // One backup or restore at a time: a restore must not replace the files a snapshot is being copied from.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  async function serverFile(parameter: string): Promise<string> {
    const reply = (await options.command(['CONFIG', 'GET', parameter])) as unknown[];
    return text(reply[1]);
  }

  /** BGSAVE, then waits until a new snapshot has been written (INFO persistence's rdb_saves grows). */
  async function snapshot(): Promise<void> {
    const persistence = async () => text(await options.command(['INFO', 'persistence']));
    const savesBefore = Number(infoField(await persistence(), 'rdb_saves') ?? 0);
    try {
      await options.command(['BGSAVE']);
    } catch (error) {
      // One already under way does not count: it may have started before the latest writes.
      if (!/in progress/i.test((error as Error).message)) throw error;
      await options.command(['BGSAVE', 'SCHEDULE']);
    }
    const deadline = Date.now() + (options.snapshotTimeoutMs ?? 120_000);
    while (Date.now() < deadline) {
      const info = await persistence();
      const saves = Number(infoField(info, 'rdb_saves') ?? 0);
      if (infoField(info, 'rdb_bgsave_in_progress') === '0' && saves > savesBefore) {
        if (infoField(info, 'rdb_last_bgsave_status') !== 'ok') throw new Error('the snapshot (BGSAVE) failed');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the snapshot (BGSAVE) did not finish in time');
  }

  const graphList = async () => ((await options.command(['GRAPH.LIST'])) as unknown[]).map(text).sort();

  async function takeBackup(backup: StoredBackup): Promise<void> {
    try {
      backup.phase = 'Running';
      backup.startTime = iso();
      await saveRecord(backup);
      backup.graphs = await graphList();
      await snapshot();
      const source = path.join(await serverFile('dir'), await serverFile('dbfilename'));
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

  /** Until the server answers again after a restart (the connections reconnect on their own). */
  async function answering(command: (args: string[]) => Promise<unknown>): Promise<void> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        await command(['PING']);
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  type KeptKey = { key: Buffer; ttl: number; payload: Buffer };
  type KeptCommand = (args: (string | Buffer)[]) => Promise<unknown>;

  /** Every key of a kept database, serialised (DUMP) with its remaining time to live. */
  async function keepKeys(database: number, command: KeptCommand): Promise<KeptKey[]> {
    await command(['SELECT', String(database)]);
    const kept: KeptKey[] = [];
    let cursor = '0';
    do {
      const [next, keys] = (await command(['SCAN', cursor, 'COUNT', '1000'])) as [Buffer | string, Buffer[]];
      cursor = next.toString();
      for (const key of keys) {
        const [ttl, payload] = await Promise.all([command(['PTTL', key]), command(['DUMP', key])]);
        if (Buffer.isBuffer(payload)) kept.push({ key, ttl: Number(ttl), payload });
      }
    } while (cursor !== '0');
    return kept;
  }

  /** The database as it was kept: keys the backup brought back are deleted, the kept ones restored. */
  async function putBack(database: number, command: KeptCommand, kept: KeptKey[]): Promise<void> {
    await answering(command);
    await command(['SELECT', String(database)]);
    // Key by key, not FLUSHDB: the graph module drops every graph it knows of, in every database, on a flush.
    const keep = new Set(kept.map(({ key }) => key.toString('base64')));
    let cursor = '0';
    do {
      const [next, keys] = (await command(['SCAN', cursor, 'COUNT', '1000'])) as [Buffer | string, Buffer[]];
      cursor = next.toString();
      for (const key of keys) if (!keep.has(key.toString('base64'))) await command(['UNLINK', key]);
    } while (cursor !== '0');
    for (const { key, ttl, payload } of kept)
      if (ttl !== -2) await command(['RESTORE', key, String(ttl > 0 ? ttl : 0), payload, 'REPLACE']);
  }

  async function restoreInto(restore: RestoreRecord, backup: StoredBackup): Promise<void> {
    try {
      const [dataDir, dbfilename, appendonly, aofDir, aofName] = await Promise.all([
        serverFile('dir'),
        serverFile('dbfilename'),
        serverFile('appendonly'),
        serverFile('appenddirname'),
        serverFile('appendfilename'),
      ]);
      const keep = options.keepDatabases ?? [];
      const kept = await Promise.all(keep.map(({ database, command }) => keepKeys(database, command)));
      await options.falkordb.restart(async () => {
        const target = path.join(dataDir, dbfilename);
        await copyFile(snapshotFile(backup.name), `${target}.restoring`);
        await rename(`${target}.restoring`, target);
        // With the AOF on, the server loads only the AOF at start-up, never the dump file: the snapshot becomes
        // the base of a new multi-part AOF (its manifest naming it), replacing the old one.
        if (appendonly === 'yes') {
          const aof = path.join(dataDir, aofDir);
          const staging = `${aof}.restoring`;
          await rm(staging, { recursive: true, force: true });
          await mkdir(staging, { mode: 0o700 });
          const base = `${aofName}.1.base.rdb`;
          await copyFile(snapshotFile(backup.name), path.join(staging, base));
          await writeFileAtomic(path.join(staging, `${aofName}.manifest`), `file ${base} seq 1 type b\n`, 0o600);
          await rm(aof, { recursive: true, force: true });
          await rename(staging, aof);
        }
      });
      await answering(options.command);
      for (const [index, database] of keep.entries()) await putBack(database.database, database.command, kept[index]!);
      const graphs = await graphList();
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
    await rm(snapshotFile(name), { force: true });
    await rm(recordFile(name), { force: true });
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
