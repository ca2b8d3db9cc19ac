// The embedded FalkorDB's side of a backup and a restore, as commands on its administrator's connection: its data
// files, a fresh RDB snapshot (BGSAVE), the graphs it holds, the keys of a database kept across a restore, and the
// swap of its dump file (and AOF) for a snapshot while it is stopped.
import { copyFile, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../lib/atomic-file.js';

export type ServerCommand = (args: string[]) => Promise<unknown>;

const text = (reply: unknown): string => (Buffer.isBuffer(reply) ? reply.toString('utf8') : String(reply));

function infoField(info: string, key: string): string | undefined {
  return new RegExp(`^${key}:(.*)$`, 'm').exec(info)?.[1]?.trim();
}

async function serverFile(command: ServerCommand, parameter: string): Promise<string> {
  const reply = (await command(['CONFIG', 'GET', parameter])) as unknown[];
  return text(reply[1]);
}

/** The dump file the server writes its snapshots to. */
export async function dumpFile(command: ServerCommand): Promise<string> {
  return path.join(await serverFile(command, 'dir'), await serverFile(command, 'dbfilename'));
}

/** BGSAVE, then waits until a new snapshot has been written (INFO persistence's rdb_saves grows). */
export async function takeSnapshot(command: ServerCommand, timeoutMs: number): Promise<void> {
  const persistence = async () => text(await command(['INFO', 'persistence']));
  const savesBefore = Number(infoField(await persistence(), 'rdb_saves') ?? 0);
  try {
    await command(['BGSAVE']);
  } catch (error) {
    // One already under way does not count: it may have started before the latest writes.
    if (!/in progress/i.test((error as Error).message)) throw error;
    await command(['BGSAVE', 'SCHEDULE']);
  }
  const deadline = Date.now() + timeoutMs;
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

export const graphList = async (command: ServerCommand): Promise<string[]> =>
  ((await command(['GRAPH.LIST'])) as unknown[]).map(text).sort();

/** Until the server answers again after a restart (the connections reconnect on their own). */
export async function untilAnswering(command: ServerCommand): Promise<void> {
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

export type KeptKey = { key: Buffer; ttl: number; payload: Buffer };
export type KeptCommand = (args: (string | Buffer)[]) => Promise<unknown>;

/** Every key of a kept database, serialised (DUMP) with its remaining time to live. */
export async function keepKeys(database: number, command: KeptCommand): Promise<KeptKey[]> {
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
export async function putBack(database: number, command: KeptCommand, kept: KeptKey[]): Promise<void> {
  await untilAnswering(command);
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

/** Where the server keeps its data: the dump file, and the AOF when it is on. */
export interface DataFiles {
  dataDir: string;
  dbfilename: string;
  appendonly: string;
  aofDir: string;
  aofName: string;
}

export async function dataFilesOf(command: ServerCommand): Promise<DataFiles> {
  const [dataDir, dbfilename, appendonly, aofDir, aofName] = await Promise.all(
    ['dir', 'dbfilename', 'appendonly', 'appenddirname', 'appendfilename'].map((name) => serverFile(command, name)),
  );
  return { dataDir: dataDir!, dbfilename: dbfilename!, appendonly: appendonly!, aofDir: aofDir!, aofName: aofName! };
}

/** While the server is stopped: the snapshot becomes its dump file, and the base of a new AOF when the AOF is on. */
export async function replaceDataFiles(files: DataFiles, snapshot: string): Promise<void> {
  const { dataDir, dbfilename, appendonly, aofDir, aofName } = files;
  const target = path.join(dataDir, dbfilename);
  await copyFile(snapshot, `${target}.restoring`);
  await rename(`${target}.restoring`, target);
  // With the AOF on, the server loads only the AOF at start-up, never the dump file: the snapshot becomes
  // the base of a new multi-part AOF (its manifest naming it), replacing the old one.
  if (appendonly === 'yes') {
    const aof = path.join(dataDir, aofDir);
    const staging = `${aof}.restoring`;
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { mode: 0o700 });
    const base = `${aofName}.1.base.rdb`;
    await copyFile(snapshot, path.join(staging, base));
    await writeFileAtomic(path.join(staging, `${aofName}.manifest`), `file ${base} seq 1 type b\n`, 0o600);
    await rm(aof, { recursive: true, force: true });
    await rename(staging, aof);
  }
}
