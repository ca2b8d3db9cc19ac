// A real Sentinel deployment on loopback: a FalkorDB primary, one replica and three sentinels (Valkey with the
// FalkorDB module; sentinels are the same binary in sentinel mode), with a short failure detection so a killed
// primary is replaced within seconds.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'redis';
import { findServerBinary } from '../../src/platform/falkordb/server-binary.js';
import { bundledPackageDir, resolveModulePath } from '../../src/platform/falkordb/embedded-falkordb.js';
import { findFreePort } from '../../src/platform/net.js';
import { eventually } from './wait.js';

export const MASTER_NAME = 'graphs';
const HOST = '127.0.0.1';

export interface SentinelNode {
  host: string;
  port: number;
  process: ChildProcess;
}

export interface SentinelGroup {
  masterName: string;
  /** The data nodes, primary first as started (after a failover the roles differ: ask primaryPort()). */
  dataNodes: SentinelNode[];
  sentinels: SentinelNode[];
  /** The data node the sentinels name primary now. */
  primaryPort(): Promise<number>;
  primary(): Promise<SentinelNode>;
  /** SIGKILL of a data node (no shutdown save, no goodbye to the replicas). */
  kill(port: number): void;
  stop(): Promise<void>;
}

async function waitForPing(port: number, timeoutMs = 10_000, host = HOST): Promise<void> {
  await eventually(
    async () => {
      const client = createClient({ socket: { host, port, reconnectStrategy: false } });
      client.on('error', () => undefined);
      try {
        await client.connect();
        return (await client.ping()) === 'PONG';
      } catch {
        return false;
      } finally {
        if (client.isOpen) client.destroy();
      }
    },
    timeoutMs,
    { detail: () => `nothing answers on ${host}:${port}` },
  );
}

/**
 * `sharedPort`: the data nodes listen on one port, each on its own loopback address (127.0.0.2, 127.0.0.3), as the
 * pods of a KubeBlocks deployment all listen on 6379.
 */
export async function startSentinelGroup(
  options: { password?: string; sharedPort?: boolean } = {},
): Promise<SentinelGroup> {
  const binary = await findServerBinary({ explicit: process.env.FALKORDB_SERVER_BIN, bundledDir: bundledPackageDir() });
  const modulePath = resolveModulePath(process.env.FALKORDB_MODULE_PATH);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gdb-sentinel-'));
  const children: ChildProcess[] = [];
  const auth = options.password ? ['--requirepass', options.password, '--masterauth', options.password] : [];
  const start = (args: string[]) => {
    const child = spawn(binary.path, args, { stdio: 'ignore' });
    children.push(child);
    return child;
  };

  const dataNodes: SentinelNode[] = [];
  const sentinels: SentinelNode[] = [];
  const askSentinels = async (): Promise<{ host: string; port: number } | undefined> => {
    for (const sentinel of sentinels) {
      const client = createClient({ socket: { host: HOST, port: sentinel.port, reconnectStrategy: false } });
      client.on('error', () => undefined);
      try {
        await client.connect();
        const reply = await client.sendCommand<string[] | null>(['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME]);
        if (reply) return { host: reply[0]!, port: Number(reply[1]) };
      } catch {
        // this sentinel is not up (yet); ask the next
      } finally {
        if (client.isOpen) client.destroy();
      }
    }
    return undefined;
  };

  try {
    const sharedPort = options.sharedPort ? await findFreePort(HOST) : undefined;
    for (let index = 0; index < 2; index++) {
      const host = sharedPort ? `127.0.0.${2 + index}` : HOST;
      const port = sharedPort ?? (await findFreePort(HOST));
      const nodeDir = path.join(dir, `node-${index}`);
      await mkdir(nodeDir);
      const replicaOf =
        index === 0
          ? []
          : ['--replicaof', dataNodes[0]!.host, String(dataNodes[0]!.port), '--replica-announce-ip', host];
      const child = start([
        '--port',
        String(port),
        '--bind',
        host,
        '--dir',
        nodeDir,
        '--save',
        '',
        '--appendonly',
        'no',
        // Replicas sync at once (the default waits 5 s for more replicas to share a diskless transfer).
        '--repl-diskless-sync-delay',
        '0',
        '--loadmodule',
        modulePath,
        ...auth,
        ...replicaOf,
      ]);
      dataNodes.push({ host, port, process: child });
      await waitForPing(port, 10_000, host);
    }

    for (let index = 0; index < 3; index++) {
      const port = await findFreePort(HOST);
      const file = path.join(dir, `sentinel-${index}.conf`);
      await writeFile(
        file,
        [
          `port ${port}`,
          `bind ${HOST}`,
          `dir ${dir}`,
          `sentinel monitor ${MASTER_NAME} ${dataNodes[0]!.host} ${dataNodes[0]!.port} 2`,
          `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
          `sentinel failover-timeout ${MASTER_NAME} 10000`,
          `sentinel parallel-syncs ${MASTER_NAME} 1`,
          ...(options.password ? [`sentinel auth-pass ${MASTER_NAME} ${options.password}`] : []),
          '',
        ].join('\n'),
      );
      sentinels.push({ host: HOST, port, process: start([file, '--sentinel']) });
      await waitForPing(port);
    }

    // The sentinels know the replica (and each other) before the group is handed out.
    await eventually(
      async () => {
        const client = createClient({ socket: { host: HOST, port: sentinels[0]!.port, reconnectStrategy: false } });
        client.on('error', () => undefined);
        try {
          await client.connect();
          const master = await client.sendCommand<string[]>(['SENTINEL', 'MASTER', MASTER_NAME]);
          const field = (name: string) => master[master.indexOf(name) + 1];
          if (Number(field('num-slaves')) < 1 || Number(field('num-other-sentinels')) < 2) return false;
          // ... and the replica has finished its first sync.
          const replica = createClient({
            socket: { host: dataNodes[1]!.host, port: dataNodes[1]!.port, reconnectStrategy: false },
            ...(options.password ? { password: options.password } : {}),
          });
          replica.on('error', () => undefined);
          try {
            await replica.connect();
            return (await replica.sendCommand<string>(['INFO', 'replication'])).includes('master_link_status:up');
          } finally {
            if (replica.isOpen) replica.destroy();
          }
        } catch {
          return false;
        } finally {
          if (client.isOpen) client.destroy();
        }
      },
      20_000,
      { detail: () => 'the sentinels did not discover the replica and each other in time' },
    );
  } catch (error) {
    // A group that could not start leaves nothing running.
    for (const child of children) child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }

  const primary = async (): Promise<SentinelNode> => {
    const named = await askSentinels();
    const node = dataNodes.find((candidate) => candidate.host === named?.host && candidate.port === named.port);
    if (!node) throw new Error('no sentinel answers');
    return node;
  };

  return {
    masterName: MASTER_NAME,
    dataNodes,
    sentinels,
    async primaryPort() {
      return (await primary()).port;
    },
    primary,
    kill(port) {
      dataNodes.find((node) => node.port === port)?.process.kill('SIGKILL');
    },
    async stop() {
      for (const child of children) child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
