// A real sharded FalkorDB deployment on loopback: three primaries (Valkey with the FalkorDB module and
// `--cluster-enabled yes`) splitting the 16,384 slots, and one replica of the first, joined with CLUSTER MEET,
// ADDSLOTSRANGE and REPLICATE as `valkey-cli --cluster create` would. Slots can be moved between primaries the
// way a resharding does (SETSLOT IMPORTING/MIGRATING, MIGRATE, SETSLOT NODE), for MOVED and ASK.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'redis';
import { findServerBinary } from '../../src/platform/falkordb/server-binary.js';
import { bundledPackageDir, resolveModulePath } from '../../src/platform/falkordb/embedded-falkordb.js';
import { keySlot } from '../../src/lib/cluster-slots.js';
import { findFreePort } from '../../src/platform/net.js';
import { eventually } from './wait.js';

const HOST = '127.0.0.1';
const RANGES: [number, number][] = [
  [0, 5460],
  [5461, 10922],
  [10923, 16383],
];

export interface ClusterNodeProcess {
  host: string;
  port: number;
  id: string;
  process: ChildProcess;
}

export interface ClusterGroup {
  primaries: ClusterNodeProcess[];
  /** One replica, of the primary `replicaOf` names (the first by default). */
  replica: ClusterNodeProcess;
  /** Every node, primaries first. */
  nodes: ClusterNodeProcess[];
  /** A command on one node, as an operator's client sends it (no redirection followed). */
  on<T = unknown>(port: number, args: string[]): Promise<T>;
  /** The primary serving `key`'s slot now. */
  ownerOf(key: string): Promise<ClusterNodeProcess>;
  /** Starts moving `key`'s slot to `target` and migrates the key: the slot is left MIGRATING/IMPORTING (ASK). */
  beginMigration(key: string, target: ClusterNodeProcess): Promise<void>;
  /** Ends the migration begun for `key`: every node is told the slot's new owner (MOVED from the old one). */
  finishMigration(key: string, target: ClusterNodeProcess): Promise<void>;
  stop(): Promise<void>;
}

async function send<T>(port: number, args: string[]): Promise<T> {
  const client = createClient({ socket: { host: HOST, port, reconnectStrategy: false } });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await client.sendCommand<T>(args);
  } finally {
    client.destroy();
  }
}

async function answers(port: number): Promise<boolean> {
  try {
    return (await send<string>(port, ['PING'])) === 'PONG';
  } catch {
    return false;
  }
}

export async function startClusterGroup(options: { replicaOf?: number } = {}): Promise<ClusterGroup> {
  const binary = await findServerBinary({ explicit: process.env.FALKORDB_SERVER_BIN, bundledDir: bundledPackageDir() });
  const modulePath = resolveModulePath(process.env.FALKORDB_MODULE_PATH);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gdb-cluster-'));
  const children: ChildProcess[] = [];
  const nodes: ClusterNodeProcess[] = [];
  try {
    for (let index = 0; index < 4; index++) {
      const port = await findFreePort(HOST);
      const nodeDir = path.join(dir, `node-${index}`);
      await mkdir(nodeDir);
      const child = spawn(
        binary.path,
        [
          '--port',
          String(port),
          '--bind',
          HOST,
          '--dir',
          nodeDir,
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf',
          // Quick failure detection, as the Sentinel group has.
          '--cluster-node-timeout',
          '2000',
          '--save',
          '',
          '--appendonly',
          'no',
          '--repl-diskless-sync-delay',
          '0',
          '--loadmodule',
          modulePath,
        ],
        { stdio: 'ignore' },
      );
      children.push(child);
      await eventually(() => answers(port), 10_000, { detail: () => `cluster node ${port} did not start` });
      nodes.push({ host: HOST, port, id: await send<string>(port, ['CLUSTER', 'MYID']), process: child });
    }
    const primaries = nodes.slice(0, 3);
    const replica = nodes[3]!;
    for (const [index, [start, end]] of RANGES.entries())
      await send(primaries[index]!.port, ['CLUSTER', 'ADDSLOTSRANGE', String(start), String(end)]);
    for (const node of nodes.slice(1)) await send(nodes[0]!.port, ['CLUSTER', 'MEET', HOST, String(node.port)]);
    // Every node knows every other before the replica is attached and the group handed out.
    await eventually(
      async () => {
        for (const node of nodes) {
          const known = (await send<string>(node.port, ['CLUSTER', 'NODES'])).trim().split('\n');
          if (known.length < nodes.length || known.some((line) => / (handshake|noaddr) /.test(line))) return false;
        }
        return true;
      },
      20_000,
      { detail: () => 'the cluster nodes did not meet in time' },
    );
    const replicated = primaries[options.replicaOf ?? 0]!;
    await send(replica.port, ['CLUSTER', 'REPLICATE', replicated.id]);
    await eventually(async () => {
      for (const node of nodes)
        if (!(await send<string>(node.port, ['CLUSTER', 'INFO'])).includes('cluster_state:ok')) return false;
      const replication = await send<string>(replica.port, ['INFO', 'replication']);
      const slots = await send<unknown[][]>(primaries[1]!.port, ['CLUSTER', 'SLOTS']);
      // Every node's slot map lists the replica, and it has synced.
      return replication.includes('master_link_status:up') && slots.some((range) => range.length > 3);
    }, 30_000);

    const ownerOf = async (key: string) => {
      const slot = keySlot(key);
      const slots = await send<[number, number, [string, number]][]>(primaries[0]!.port, ['CLUSTER', 'SLOTS']);
      const range = slots.find(([start, end]) => slot >= start && slot <= end)!;
      return nodes.find((node) => node.port === Number(range[2][1]))!;
    };
    return {
      primaries,
      replica,
      nodes,
      on: send,
      ownerOf,
      async beginMigration(key, target) {
        const slot = String(keySlot(key));
        const source = await ownerOf(key);
        await send(target.port, ['CLUSTER', 'SETSLOT', slot, 'IMPORTING', source.id]);
        await send(source.port, ['CLUSTER', 'SETSLOT', slot, 'MIGRATING', target.id]);
        await send(source.port, ['MIGRATE', HOST, String(target.port), key, '0', '5000']);
      },
      async finishMigration(key, target) {
        const slot = String(keySlot(key));
        const source = await ownerOf(key);
        for (const node of [target, source, ...primaries.filter((p) => p !== target && p !== source)])
          await send(node.port, ['CLUSTER', 'SETSLOT', slot, 'NODE', target.id]);
        // The replica learns the new owner from the others' gossip.
        await eventually(async () => (await ownerOf(key)).port === target.port, 10_000);
      },
      async stop() {
        for (const child of children) child.kill('SIGKILL');
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    // A group that could not start leaves nothing running.
    for (const child of children) child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
