// Who owns the embedded FalkorDB's directory. One server process owns DATA_DIR/falkordb at a time (its pid and
// start time in `owner`), and one database process serves it (Valkey's own pid file). A start that finds the database
// of its directory still running after its owner died (a SIGKILL of the server) shuts it down cleanly and takes its
// port back; a start that finds the owner alive refuses. See docs/decisions/embedded-database-ownership.md.
import { readFile, readlink, realpath, rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';
import { writeFileAtomic } from '../../lib/atomic-file.js';
import type { DatabaseAccount } from './embedded-accounts.js';
import { encodeCommands, RespReader, type RespValue } from './resp-reader.js';

export const OWNER_FILE = 'owner';
/** Written by Valkey itself (`--pidfile`), removed by it on a clean shutdown. */
export const DATABASE_PID_FILE = 'falkordb.pid';

export class DirectoryInUseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DirectoryInUseError';
  }
}

interface ProcessIdentity {
  pid: number;
  /** Field 22 of /proc/<pid>/stat: tells a process from a later one given the same pid. */
  startTime: string;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as someone else's process.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Sends a signal to a process, a process that has already exited (ESRCH) counting as done. */
function signalUnlessGone(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

async function startTimeOf(pid: number | 'self'): Promise<string | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return undefined;
  // The command name (field 2) may hold spaces and parentheses: fields are counted after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19];
}

/** The directory a process runs in: Valkey changes into its `--dir`, so this names the data directory it serves. */
async function workingDirectoryOf(pid: number): Promise<string | undefined> {
  return readlink(`/proc/${pid}/cwd`).catch(() => undefined);
}

async function readPid(file: string): Promise<number | undefined> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const pid = Number.parseInt(text.trim().split(/\s+/)[0] ?? '', 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

async function readOwner(dir: string): Promise<ProcessIdentity | undefined> {
  const text = await readFile(path.join(dir, OWNER_FILE), 'utf8').catch(() => '');
  const [pid, startTime] = text.trim().split(/\s+/);
  const parsed = Number.parseInt(pid ?? '', 10);
  return Number.isInteger(parsed) && parsed > 0 && startTime ? { pid: parsed, startTime } : undefined;
}

async function isRunning(identity: ProcessIdentity): Promise<boolean> {
  return isAlive(identity.pid) && (await startTimeOf(identity.pid)) === identity.startTime;
}

/** Sends commands in one write and resolves with their replies (or rejects on a socket failure or the deadline). */
export function redisCommands(
  host: string,
  port: number,
  commands: readonly (readonly string[])[],
  timeoutMs: number,
): Promise<RespValue[]> {
  return new Promise((resolve, reject) => {
    const replies: RespValue[] = [];
    const socket = net.connect({ host, port });
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    const reader = new RespReader(
      () => ({ maxBytes: 1024 * 1024 }),
      (value) => {
        replies.push(value);
        if (replies.length === commands.length) {
          socket.end();
          resolve(replies);
        }
      },
    );
    socket.setTimeout(timeoutMs, () => fail(new Error(`no reply from ${host}:${port} within ${timeoutMs} ms`)));
    socket.once('error', fail);
    // A SHUTDOWN closes the connection without a reply: what arrived is the answer.
    socket.once('close', () => resolve(replies));
    socket.once('connect', () => socket.write(encodeCommands(commands)));
    socket.on('data', (chunk: Buffer) => {
      try {
        reader.feed(chunk);
      } catch (error) {
        fail(error as Error);
      }
    });
  });
}

/** The pid of the Redis-protocol server answering on `port` with this account, when it answers. */
async function pidAnsweringOn(port: number, account: DatabaseAccount): Promise<number | undefined> {
  const replies = await redisCommands(
    '127.0.0.1',
    port,
    [
      ['AUTH', account.username, account.password],
      ['INFO', 'server'],
    ],
    2000,
  ).catch(() => []);
  const info = replies[1];
  const match = typeof info === 'string' ? /^process_id:(\d+)/m.exec(info) : null;
  return match ? Number(match[1]) : undefined;
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

export interface ClaimOptions {
  /** DATA_DIR/falkordb. */
  dir: string;
  /** The port the directory's database listened on last (the `port` file), where an orphan would still answer. */
  storedPort: number | undefined;
  admin: DatabaseAccount | undefined;
  logger: Logger;
  /** How long a database that was told to stop may take to write its data and exit. */
  shutdownTimeoutMs?: number;
}

/**
 * Makes this process the owner of `dir`: refuses when another live server owns it, and stops a database process
 * still serving it (an orphan of a server that was killed) after asking it to save. Resolves when no process serves
 * the directory and `owner` names this process.
 */
export async function claimDatabaseDirectory(options: ClaimOptions): Promise<void> {
  const { dir, logger } = options;
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? 60_000;
  const realDir = await realpath(dir);
  const owner = await readOwner(dir);
  if (owner && owner.pid !== process.pid && (await isRunning(owner)))
    throw new DirectoryInUseError(
      `${dir} belongs to another graphdb-server (pid ${owner.pid}), which is still running. Two servers cannot share ` +
        'one embedded database: stop that server, or give this one its own DATA_DIR (or a TOKEN_STORE_URL).',
    );

  // The database of this directory: by the pid file it wrote, or by what answers on its port (a server from before
  // the pid file existed); either way, only a process whose working directory is this directory counts.
  const candidates = new Set<number>();
  const fromFile = await readPid(path.join(dir, DATABASE_PID_FILE));
  if (fromFile !== undefined) candidates.add(fromFile);
  if (options.storedPort !== undefined && options.admin) {
    const answering = await pidAnsweringOn(options.storedPort, options.admin);
    if (answering !== undefined) candidates.add(answering);
  }
  for (const pid of candidates) {
    if (pid === process.pid || !isAlive(pid) || (await workingDirectoryOf(pid)) !== realDir) continue;
    logger.warn(
      { pid, dir },
      `an embedded FalkorDB (pid ${pid}) left running by a server that stopped without shutting it down still serves ${dir}; stopping it cleanly before starting`,
    );
    let asked = false;
    if (options.storedPort !== undefined && options.admin) {
      const replies = await redisCommands(
        '127.0.0.1',
        options.storedPort,
        [
          ['AUTH', options.admin.username, options.admin.password],
          ['SHUTDOWN', 'SAVE'],
        ],
        shutdownTimeoutMs,
      ).catch(() => []);
      // Asked and obeyed: the AUTH was accepted and SHUTDOWN closed the connection without an error reply.
      asked = replies.length === 1 && replies[0] === 'OK';
    }
    // SIGTERM makes Valkey write its data as SHUTDOWN does; it reaches a database that no longer answers too.
    // It may also have stopped on its own since it was found (its supervisor saw the server die): nothing to signal.
    if (!asked) signalUnlessGone(pid, 'SIGTERM');
    if (!(await waitForExit(pid, shutdownTimeoutMs)))
      throw new DirectoryInUseError(
        `the embedded FalkorDB left running on ${dir} (pid ${pid}) did not stop within ${shutdownTimeoutMs} ms; ` +
          'stop it, then start the server again.',
      );
    logger.info({ pid }, 'the embedded FalkorDB left running stopped; its data is saved');
  }
  await rm(path.join(dir, DATABASE_PID_FILE), { force: true });
  const startTime = await startTimeOf('self');
  await writeFileAtomic(path.join(dir, OWNER_FILE), `${process.pid} ${startTime ?? 'unknown'}\n`, 0o600);
}

/** Gives the directory up (a clean stop), so the next start need not check for a previous owner. */
export async function releaseDatabaseDirectory(dir: string): Promise<void> {
  const owner = await readOwner(dir);
  if (owner?.pid === process.pid) await rm(path.join(dir, OWNER_FILE), { force: true });
}
