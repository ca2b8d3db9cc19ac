// Launches and stops the embedded FalkorDB: a Valkey/Redis child process with the FalkorDB module loaded. (one file because start, stop and restart share one child process and its state)
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { writeFileAtomic } from '../../lib/atomic-file.js';
import { findFreePort, isPortFree, pingRedisProtocol } from '../net.js';
import { mergeAclFile, type DatabaseAccount, type EmbeddedAccounts } from './embedded-accounts.js';
import { claimDatabaseDirectory, DATABASE_PID_FILE, releaseDatabaseDirectory } from './embedded-ownership.js';
import { findServerBinary, type ServerBinary } from './server-binary.js';

export interface EmbeddedFalkorDBOptions {
  /** Where RDB and AOF files live. Without it nothing is persisted (tests). */
  dataDir?: string;
  serverBin?: string;
  modulePath?: string;
  logger: Logger;
  startTimeoutMs?: number;
  /**
   * The accounts of a server that others can reach (main's embedded mode): `default` off, an ACL file. Without it the
   * server has a passwordless `default` user, which only tests use (a stand-in for someone else's database).
   */
  accounts?: EmbeddedAccounts;
  /**
   * FalkorDB's RESULTSET_SIZE: the database itself stops a result at this many rows, so a huge result never reaches
   * (or fills) this server. Main passes QUERY_ROWS_MAX + 1, so an overflow is seen and refused, not cut silently.
   */
  resultSetSize?: number;
  /** FalkorDB's IMPORT_FOLDER, where `LOAD CSV FROM 'file://…'` reads (the benchmark's baseline only). */
  importFolder?: string;
  /** More server arguments, after (and so over) the ones above: tests use them to slow the loading of data down. */
  extraArguments?: readonly string[];
}

export interface EmbeddedFalkorDB {
  readonly host: string;
  readonly port: number;
  /**
   * Ports this directory's database listened on before `port` (when its port was taken by another program while it
   * was stopped): tokens made for the embedded database name one of them and still reach it.
   */
  readonly formerPorts: readonly number[];
  readonly url: string;
  /** Of the current child process (a restart changes it). */
  readonly pid: number;
  readonly server: ServerBinary;
  readonly startedAt: Date;
  /** The administrator account when the server was started with accounts. */
  readonly admin: DatabaseAccount | undefined;
  /**
   * Stops the child (final snapshot) and starts it again on the same port. `whileStopped` runs between the two (a
   * restore replaces the data files there); when it fails, the server is started again anyway and its error thrown.
   */
  restart(whileStopped?: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const OUTPUT_LINES_KEPT = 40;
const PORT_ATTEMPTS = 3;
/** The port is kept here so that tokens, which name host and port, still reach the server after a restart. */
const PORT_FILE = 'port';
const FORMER_PORTS_FILE = 'former-ports';
const FORMER_PORTS_KEPT = 16;
/**
 * The supervisor between this process and the database: it starts the server (argument 1 on), reports its pid on
 * fd 3, and stops it with SIGTERM (which makes Valkey write its data) when its stdin reaches end of file, that is when
 * this process closes the pipe or dies in any way, SIGKILL included, or when it is sent SIGTERM or SIGINT itself. It
 * exits with the server's status. Node cannot ask Linux for a parent-death signal (prctl PR_SET_PDEATHSIG), and
 * Valkey cannot watch its parent: a pipe's end of file is what every death of this process is sure to produce.
 * (docs/decisions/embedded-database-ownership.md)
 */
const SUPERVISOR_SCRIPT = [
  'exec 4<&0 </dev/null',
  '"$@" 3>&- 4<&- &',
  'server=$!',
  'echo "$server" >&3',
  'exec 3>&-',
  '(read -r _ <&4; kill -TERM "$server" 2>/dev/null) &',
  'watcher=$!',
  'exec 4<&-',
  `trap 'kill -TERM "$server" 2>/dev/null' TERM INT`,
  'status=0',
  'wait "$server" || status=$?',
  'while kill -0 "$server" 2>/dev/null; do wait "$server"; status=$?; done',
  'kill "$watcher" 2>/dev/null',
  'exit "$status"',
].join('\n');
/** Snapshot after 1 h with 1 change, 5 min with 100, 1 min with 10 000; AOF covers the time in between. */
const SNAPSHOT_POLICY = '3600 1 300 100 60 10000';

const packageRequire = createRequire(import.meta.url);

export function bundledPackageDir(): string | undefined {
  try {
    return path.dirname(packageRequire.resolve('@falkordblite/linux-x64/package.json'));
  } catch {
    return undefined;
  }
}

export function resolveModulePath(explicit: string | undefined): string {
  if (explicit) return explicit;
  const dir = bundledPackageDir();
  if (!dir) {
    throw new Error(
      'The FalkorDB module was not found: the optional dependency @falkordblite/linux-x64 is missing (it exists for linux-x64 only). ' +
        'Run `npm install`, or set FALKORDB_MODULE_PATH to a falkordb.so, or set TOKEN_STORE_URL to an existing FalkorDB.',
    );
  }
  return path.join(dir, 'bin', 'falkordb.so');
}

function serverArguments(
  port: number,
  modulePath: string,
  dataDir: string | undefined,
  aclFile: string | undefined,
  resultSetSize: number | undefined,
  importFolder?: string,
): string[] {
  const persistence = dataDir
    ? [
        '--dir',
        dataDir,
        '--pidfile',
        path.join(dataDir, DATABASE_PID_FILE),
        '--appendonly',
        'yes',
        '--appendfsync',
        'everysec',
        '--save',
        SNAPSHOT_POLICY,
      ]
    : ['--dir', os.tmpdir(), '--appendonly', 'no', '--save', ''];
  const acl = aclFile ? ['--aclfile', aclFile] : [];
  const moduleArguments = [
    ...(resultSetSize === undefined ? [] : ['RESULTSET_SIZE', String(resultSetSize)]),
    ...(importFolder === undefined ? [] : ['IMPORT_FOLDER', importFolder]),
  ];
  return [
    '--port',
    String(port),
    '--bind',
    HOST,
    '--protected-mode',
    'yes',
    '--daemonize',
    'no',
    '--loadmodule',
    modulePath,
    ...moduleArguments,
    ...acl,
    ...persistence,
  ];
}

function parsePort(text: string): number | undefined {
  const port = Number.parseInt(text.trim(), 10);
  return Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined;
}

async function readStoredPort(dataDir: string | undefined): Promise<number | undefined> {
  if (!dataDir) return undefined;
  return parsePort(await readFile(path.join(dataDir, PORT_FILE), 'utf8').catch(() => ''));
}

async function readFormerPorts(dataDir: string | undefined): Promise<number[]> {
  if (!dataDir) return [];
  const text = await readFile(path.join(dataDir, FORMER_PORTS_FILE), 'utf8').catch(() => '');
  return text
    .split('\n')
    .map(parsePort)
    .filter((port): port is number => port !== undefined);
}

/** The port of the previous run when it is still free, so existing tokens keep working; otherwise a new one. */
async function choosePort(stored: number | undefined, attempt: number): Promise<number> {
  if (stored !== undefined && attempt === 1 && (await isPortFree(HOST, stored))) return stored;
  return findFreePort(HOST);
}

/** The first line the supervisor writes on fd 3: the server's pid. */
function readServerPid(stream: Readable | null | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    if (!stream) return reject(new Error('the supervisor has no pid pipe'));
    let text = '';
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const pid = Number.parseInt(text, 10);
      if (text.includes('\n') && Number.isInteger(pid) && pid > 0) resolve(pid);
    });
    stream.once('end', () => reject(new Error('the supervisor did not report the server pid')));
    stream.once('error', reject);
  });
}

interface Running {
  /** The supervisor (see SUPERVISOR_SCRIPT). */
  child: ChildProcess;
  output: string[];
  /** The database server's own pid. */
  pid: number;
}

function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function waitUntilReady(
  child: ChildProcess,
  port: number,
  timeoutMs: number,
  account: DatabaseAccount | undefined,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastReply = 'no reply';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error('the server process exited during start-up');
    try {
      lastReply = await pingRedisProtocol(HOST, port, 500, account);
      if (lastReply === '+PONG') return;
    } catch (error) {
      lastReply = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the server did not answer PING within ${timeoutMs} ms (last: ${lastReply})`);
}

export async function startEmbeddedFalkorDB(options: EmbeddedFalkorDBOptions): Promise<EmbeddedFalkorDB> {
  const log = options.logger;
  const modulePath = resolveModulePath(options.modulePath);
  const packageDir = bundledPackageDir();
  const server = await findServerBinary({
    explicit: options.serverBin,
    bundledDir: packageDir && path.join(packageDir, 'bin'),
  });
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  const accounts = options.accounts;
  const storedPort = await readStoredPort(options.dataDir);
  // Before anything is written: a directory served by another live server is refused, and a database left running
  // by a server that was killed is stopped cleanly (it writes its data), so its port is free to take back.
  if (options.dataDir)
    await claimDatabaseDirectory({ dir: options.dataDir, storedPort, admin: accounts?.admin, logger: log });
  if (accounts) {
    // Users saved by the browser API are kept; the service accounts are rewritten from the password files.
    await mkdir(path.dirname(accounts.aclFile), { recursive: true, mode: 0o700 });
    const existing = await readFile(accounts.aclFile, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    await writeFileAtomic(accounts.aclFile, mergeAclFile(existing, accounts), 0o600);
  }

  const startTimeoutMs = options.startTimeoutMs ?? 15_000;

  /** Spawns the server on `port` and waits for PING; `clash` is true when the port was taken meanwhile. */
  async function launch(port: number): Promise<Running | { error: Error; clash: boolean }> {
    const output: string[] = [];
    const child = spawn(
      '/bin/sh',
      [
        '-c',
        SUPERVISOR_SCRIPT,
        'falkordb-supervisor',
        server.path,
        ...serverArguments(
          port,
          modulePath,
          options.dataDir,
          accounts?.aclFile,
          options.resultSetSize,
          options.importFolder,
        ),
        ...(options.extraArguments ?? []),
      ],
      { stdio: ['pipe', 'pipe', 'pipe', 'pipe'] },
    );
    // The pipe's end of file is the supervisor's signal to stop the server: it must not keep this process alive.
    child.stdin?.on('error', () => undefined);
    const serverPid = readServerPid(child.stdio[3] as Readable | null);
    serverPid.catch(() => undefined);
    const remember = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.trim()) continue;
        output.push(line);
        if (output.length > OUTPUT_LINES_KEPT) output.shift();
        log.debug({ falkordb: line }, 'embedded FalkorDB output');
      }
    };
    child.stdout?.on('data', remember);
    child.stderr?.on('data', remember);
    const spawnFailure = new Promise<never>((_resolve, reject) => child.once('error', reject));
    spawnFailure.catch(() => undefined);
    try {
      await Promise.race([waitUntilReady(child, port, startTimeoutMs, accounts?.admin), spawnFailure]);
      return { child, output, pid: await serverPid };
    } catch (error) {
      const pid = await Promise.race([
        serverPid,
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 1000)),
      ]).catch(() => undefined);
      if (pid !== undefined) killQuietly(pid, 'SIGKILL');
      child.kill('SIGKILL');
      await waitForExit(child, 2000);
      const tail = output.slice(-8).join('\n    ');
      return {
        error: new Error(
          `Embedded FalkorDB (${server.path}) failed to start: ${(error as Error).message}${tail ? `\n    ${tail}` : ''}`,
        ),
        clash: output.some((line) => /address already in use/i.test(line)),
      };
    }
  }

  let launched: Running | undefined;
  let port = 0;
  let lastError: Error | undefined;
  for (let attempt = 1; attempt <= PORT_ATTEMPTS && !launched; attempt++) {
    port = await choosePort(storedPort, attempt);
    const result = await launch(port);
    if ('child' in result) launched = result;
    else {
      lastError = result.error;
      if (!result.clash) throw result.error;
    }
  }
  if (!launched) throw lastError ?? new Error('Embedded FalkorDB failed to start');
  let formerPorts = (await readFormerPorts(options.dataDir)).filter((former) => former !== port);
  if (options.dataDir) {
    if (storedPort !== undefined && storedPort !== port) {
      // Tokens name the port they were made for: it stays the embedded database's (target-guard.ts).
      formerPorts = [storedPort, ...formerPorts.filter((former) => former !== storedPort)].slice(0, FORMER_PORTS_KEPT);
      log.warn(
        { storedPort, port },
        `the embedded FalkorDB's port ${storedPort} is used by another program; it listens on ${port} now, and tokens made for port ${storedPort} still reach it`,
      );
    }
    await writeFileAtomic(path.join(options.dataDir, FORMER_PORTS_FILE), formerPorts.map((p) => `${p}\n`).join(''));
    await writeFileAtomic(path.join(options.dataDir, PORT_FILE), `${port}\n`, 0o600);
  }

  let current = launched;
  let stopping = false;
  // Belt and braces: when this process exits, the supervisor's pipe closes and it stops the server anyway.
  const stopOnExit = () => killQuietly(current.pid, 'SIGTERM');
  process.on('exit', stopOnExit);
  const watch = (running: Running) => {
    running.child.once('exit', (code, signal) => {
      if (!stopping)
        log.error({ code, signal, output: running.output.slice(-8) }, 'embedded FalkorDB exited unexpectedly');
    });
  };
  watch(current);

  async function terminate(running: Running): Promise<void> {
    // Closing the pipe makes the supervisor send SIGTERM, on which Valkey/Redis flushes the AOF and writes a final
    // snapshot before it exits; the supervisor exits after it.
    running.child.stdin?.end();
    if (!(await waitForExit(running.child, 10_000))) {
      log.warn('embedded FalkorDB did not stop within 10 s; killing it');
      killQuietly(running.pid, 'SIGKILL');
      running.child.kill('SIGKILL');
      await waitForExit(running.child, 2000);
    }
  }

  return {
    host: HOST,
    port,
    formerPorts,
    url: `redis://${HOST}:${port}`,
    get pid() {
      return current.pid;
    },
    server,
    startedAt: new Date(),
    admin: accounts?.admin,
    async restart(whileStopped?: () => Promise<void>) {
      if (stopping) throw new Error('the embedded FalkorDB is stopping');
      stopping = true;
      await terminate(current);
      let failure: Error | undefined;
      if (whileStopped)
        await whileStopped().catch((error: unknown) => {
          failure = error instanceof Error ? error : new Error(String(error));
        });
      stopping = false;
      const result = await launch(port);
      if (!('child' in result)) throw result.error;
      current = result;
      watch(current);
      if (failure) throw failure;
    },
    async stop() {
      if (stopping) return;
      stopping = true;
      process.removeListener('exit', stopOnExit);
      await terminate(current);
      if (options.dataDir) await releaseDatabaseDirectory(options.dataDir);
    },
  };
}
