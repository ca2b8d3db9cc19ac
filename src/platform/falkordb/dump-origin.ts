// Which graph a DUMP came from. FalkorDB keeps the graph's name inside its DUMP, and a server that already holds a
// graph of that name crashes when the dump is RESTOREd under another key (docs/decisions/uploaded-cypher-batches.md). The name is
// read by restoring the dump into a throw-away FalkorDB on loopback (same module, no persistence, no other data),
// so no knowledge of the dump's internal format is needed and every format that module reads is supported.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createClient } from 'redis';
import { findFreePort } from '../net.js';
import { PortError } from '../port-errors.js';
import { bundledPackageDir, resolveModulePath } from './embedded-falkordb.js';
import { findServerBinary } from './server-binary.js';

export interface ScratchServerOptions {
  /** FALKORDB_SERVER_BIN and FALKORDB_MODULE_PATH, as for the embedded database. */
  serverBin?: string;
  modulePath?: string;
}

const START_TIMEOUT_MS = 10_000;

/** Answers the name of the graph `payload` was dumped from; PortError `rejected` when it is no graph export. */
export async function originGraphName(payload: Buffer, options: ScratchServerOptions = {}): Promise<string> {
  const packageDir = bundledPackageDir();
  const server = await findServerBinary({
    explicit: options.serverBin,
    bundledDir: packageDir && path.join(packageDir, 'bin'),
  });
  const port = await findFreePort();
  const child = spawn(
    server.path,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--loadmodule',
      resolveModulePath(options.modulePath),
    ],
    { stdio: 'ignore', cwd: '/' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const client = createClient({ socket: { host: '127.0.0.1', port, reconnectStrategy: false, connectTimeout: 1000 } });
  client.on('error', () => undefined);
  try {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      try {
        await client.connect();
        break;
      } catch (error) {
        if (child.exitCode !== null || Date.now() > deadline)
          throw new PortError('unavailable', 'Could not start FalkorDB to read the export', { cause: error });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    try {
      await client.sendCommand(['RESTORE', 'export', '0', payload]);
    } catch (error) {
      throw new PortError(
        'rejected',
        `The file is not a graph export this server can read (${(error as Error).message})`,
      );
    }
    const graphs = await client.sendCommand<string[]>(['GRAPH.LIST']);
    if (graphs.length !== 1) throw new PortError('rejected', 'The file is not a graph export');
    return graphs[0]!;
  } finally {
    if (client.isOpen) client.destroy();
    child.kill('SIGKILL');
    await exited;
  }
}
