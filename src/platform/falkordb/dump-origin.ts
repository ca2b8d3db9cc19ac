// Which graph a DUMP came from. FalkorDB keeps the graph's name inside its DUMP, and a server that already holds a
// graph of that name crashes when the dump is RESTOREd under another key (docs/decisions/uploaded-cypher-batches.md).
// The name is read by restoring the dump into a throw-away FalkorDB (same module, no persistence, no other data), so
// no knowledge of the dump's internal format is needed and every format that module reads is supported.
// The throw-away server listens on no TCP port, only on a Unix socket in a directory of its own that only this
// process's user may enter (0700): nobody else on the machine can reach it (docs/decisions/restore-bounds.md).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PortError } from '../port-errors.js';
import type { StreamedArgument } from './database-pool.js';
import { bundledPackageDir, resolveModulePath } from './embedded-falkordb.js';
import { QueryConnection } from './query-connection.js';
import { findServerBinary } from './server-binary.js';

export interface ScratchServerOptions {
  /** FALKORDB_SERVER_BIN and FALKORDB_MODULE_PATH, as for the embedded database. */
  serverBin?: string;
  modulePath?: string;
}

export interface ScratchServer {
  /** The server's process id. */
  pid: number;
  /** Its private directory (0700), which holds the socket. */
  directory: string;
  socketPath: string;
  /** A connection to it (no credentials: only this user can reach the socket). */
  connection: QueryConnection;
  /** Kills the server and removes its directory. */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;
const CONNECT_TIMEOUT_MS = 1000;
/** The longest silence while a dump is sent and read. */
const COMMAND_TIMEOUT_MS = 60_000;

/** Starts a throw-away FalkorDB on a Unix socket in a fresh private directory, with no TCP port and no persistence. */
export async function startScratchServer(options: ScratchServerOptions = {}): Promise<ScratchServer> {
  const packageDir = bundledPackageDir();
  const server = await findServerBinary({
    explicit: options.serverBin,
    bundledDir: packageDir && path.join(packageDir, 'bin'),
  });
  // mkdtemp creates the directory with mode 0700.
  const directory = await mkdtemp(path.join(os.tmpdir(), 'graphdb-scratch-'));
  const socketPath = path.join(directory, 'falkordb.sock');
  const child = spawn(
    server.path,
    [
      '--port',
      '0',
      '--unixsocket',
      socketPath,
      '--unixsocketperm',
      '700',
      '--dir',
      directory,
      '--save',
      '',
      '--appendonly',
      'no',
      '--loadmodule',
      resolveModulePath(options.modulePath),
    ],
    { stdio: 'ignore', cwd: directory },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    child.kill('SIGKILL');
    await exited;
    await rm(directory, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      try {
        const connection = await QueryConnection.open({
          address: '',
          port: 0,
          path: socketPath,
          tls: false,
          username: '',
          password: '',
          connectTimeoutMs: CONNECT_TIMEOUT_MS,
          socketTimeoutMs: COMMAND_TIMEOUT_MS,
        });
        return {
          pid: child.pid!,
          directory,
          socketPath,
          connection,
          stop: async () => {
            connection.destroy();
            await stop();
          },
        };
      } catch (error) {
        if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline)
          throw new PortError('unavailable', 'Could not start FalkorDB to read the export', { cause: error });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Answers the name of the graph `dump` was dumped from; PortError `rejected` when it is no graph export. The dump
 * streams from its file to the throw-away server, never held whole in memory.
 */
export async function originGraphName(dump: StreamedArgument, options: ScratchServerOptions = {}): Promise<string> {
  const scratch = await startScratchServer(options);
  try {
    const restored = await scratch.connection
      .sendStreamed(['RESTORE', 'export', '0'], await dump.open(), dump.size)
      .catch((error: unknown) => {
        // The throw-away server stopped or went silent while reading it: the file is what it could not read.
        throw new PortError('rejected', 'The file is not a graph export this server can read', { cause: error });
      });
    if (restored.status === 'rejected')
      throw new PortError(
        'rejected',
        `The file is not a graph export this server can read (${(restored.reason as Error).message})`,
      );
    const [listed] = await scratch.connection.send([{ args: ['GRAPH.LIST'] }]);
    if (listed!.status === 'rejected') throw new PortError('unavailable', 'Could not read the export’s graph name');
    const graphs = listed!.value;
    if (!Array.isArray(graphs) || graphs.length !== 1)
      throw new PortError('rejected', 'The file is not a graph export');
    return String(graphs[0]);
  } finally {
    await scratch.stop();
  }
}
