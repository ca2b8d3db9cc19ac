// Launches and stops the embedded FalkorDB: a Valkey/Redis child process with the FalkorDB module loaded.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { writeFileAtomic } from '../atomic-file.js';
import { findFreePort, isPortFree, pingRedisProtocol } from '../net.js';
import { mergeAclFile, type DatabaseAccount, type EmbeddedAccounts } from './embedded-accounts.js';
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
}

export interface EmbeddedFalkorDB {
  readonly host: string;
  readonly port: number;
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
    ? ['--dir', dataDir, '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', SNAPSHOT_POLICY]
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

/** The port of the previous run when it is still free, so existing tokens keep working; otherwise a new one. */
async function choosePort(dataDir: string | undefined, attempt: number): Promise<number> {
  if (dataDir && attempt === 1) {
    const stored = Number.parseInt(await readFile(path.join(dataDir, PORT_FILE), 'utf8').catch(() => ''), 10);
    if (Number.isInteger(stored) && stored > 0 && stored < 65536 && (await isPortFree(HOST, stored))) return stored;
  }
  return findFreePort(HOST);
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
  async function launch(
    port: number,
  ): Promise<{ child: ChildProcess; output: string[] } | { error: Error; clash: boolean }> {
    const output: string[] = [];
    const child = spawn(
      server.path,
      serverArguments(
        port,
        modulePath,
        options.dataDir,
        accounts?.aclFile,
        options.resultSetSize,
        options.importFolder,
      ),
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
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
      return { child, output };
    } catch (error) {
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

  let launched: { child: ChildProcess; output: string[] } | undefined;
  let port = 0;
  let lastError: Error | undefined;
  for (let attempt = 1; attempt <= PORT_ATTEMPTS && !launched; attempt++) {
    port = await choosePort(options.dataDir, attempt);
    const result = await launch(port);
    if ('child' in result) launched = result;
    else {
      lastError = result.error;
      if (!result.clash) throw result.error;
    }
  }
  if (!launched) throw lastError ?? new Error('Embedded FalkorDB failed to start');
  if (options.dataDir) await writeFileAtomic(path.join(options.dataDir, PORT_FILE), `${port}\n`, 0o600);

  let current = launched;
  let stopping = false;
  const killOnExit = () => current.child.kill('SIGKILL');
  process.on('exit', killOnExit);
  const watch = (running: { child: ChildProcess; output: string[] }) => {
    running.child.once('exit', (code, signal) => {
      if (!stopping)
        log.error({ code, signal, output: running.output.slice(-8) }, 'embedded FalkorDB exited unexpectedly');
    });
  };
  watch(current);

  async function terminate(child: ChildProcess): Promise<void> {
    // SIGTERM makes Valkey/Redis flush the AOF and write a final snapshot before it exits.
    child.kill('SIGTERM');
    if (!(await waitForExit(child, 10_000))) {
      log.warn('embedded FalkorDB did not stop within 10 s; killing it');
      child.kill('SIGKILL');
      await waitForExit(child, 2000);
    }
  }

  return {
    host: HOST,
    port,
    url: `redis://${HOST}:${port}`,
    get pid() {
      return current.child.pid ?? -1;
    },
    server,
    startedAt: new Date(),
    admin: accounts?.admin,
    async restart(whileStopped?: () => Promise<void>) {
      if (stopping) throw new Error('the embedded FalkorDB is stopping');
      stopping = true;
      await terminate(current.child);
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
      process.removeListener('exit', killOnExit);
      await terminate(current.child);
    },
  };
}
