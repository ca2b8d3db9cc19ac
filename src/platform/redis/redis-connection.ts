// A node-redis client for a Redis-protocol server (the token store): created here, connected by the caller. The
// store may also be a sharded cluster (node-redis' cluster client): every store key then carries one hash tag, so
// the multi-key transactions and scripts the stores run stay in one slot.
import { createCluster, RESP_TYPES, type RedisClusterType } from '@redis/client';
import { newRedisClient } from './redis-client.js';
import type { Logger } from 'pino';
import { routingKey } from '../../lib/cluster-slots.js';
import type { StoreTarget } from './store-url.js';

export function createRedisConnection(url: string, logger: Logger) {
  const client = newRedisClient({
    url,
    socket: { connectTimeout: 5000, reconnectStrategy: storeReconnectStrategy },
    // While disconnected, commands fail at once instead of queueing: a request must not hang on a dead store.
    disableOfflineQueue: true,
  });
  logStoreErrors(client, logger);
  return client;
}

/** Reconnect attempts of the token store: quickly at first, then every half second. */
export const storeReconnectStrategy = (retries: number) => Math.min(50 * 2 ** retries, 500);

/**
 * node-redis emits an error per failed reconnect, and without a listener it would crash the process; one line per
 * 10 seconds says the store is away without flooding the log.
 */
export function logStoreErrors(
  client: { on(event: 'error', listener: (error: Error) => void): unknown },
  logger: Logger,
): void {
  let lastLogged = 0;
  client.on('error', (error: Error) => {
    const now = Date.now();
    if (now - lastLogged < 10_000) return;
    lastLogged = now;
    logger.warn({ err: { message: error.message } }, 'token store connection error');
  });
}

export type RedisClientConnection = ReturnType<typeof createRedisConnection>;
export type RedisClusterConnection = ReturnType<typeof createClusterStoreConnection>;
export type RedisConnection = RedisClientConnection | RedisClusterConnection;

type ClusterTarget = Extract<StoreTarget, { kind: 'cluster' }>;

/** The cluster clients this module made (node-redis exports no class to test against). */
const clusterConnections = new WeakSet<object>();

export function isClusterConnection(connection: RedisConnection): connection is RedisClusterConnection {
  return clusterConnections.has(connection);
}

/**
 * The store on a sharded cluster: node-redis' cluster client reads the slot map from the seeds, follows MOVED and
 * ASK, re-reads the map after a failover, and keeps subscriptions on a live node. Addresses the map names are
 * dialled as named. Its `duplicate()` (the subscribers) is a cluster client too.
 */
export function createClusterStoreConnection(target: ClusterTarget, logger: Logger) {
  const tls = target.tls ? { tls: true as const } : {};
  const cluster = createCluster({
    rootNodes: target.seeds.map(({ host, port }) => ({ socket: { host, port, ...tls } })),
    defaults: {
      socket: { connectTimeout: 5000, reconnectStrategy: storeReconnectStrategy, ...tls },
      ...(target.username ? { username: target.username } : {}),
      ...(target.password !== undefined ? { password: target.password } : {}),
      disableOfflineQueue: true,
    },
  });
  clusterConnections.add(cluster);
  logStoreErrors(cluster, logger);
  followFailovers(cluster);
  return cluster;
}

/** Longest a cluster client keeps dialling an unreachable node before it asks for the slot map again. */
const REDISCOVER_INTERVAL_MS = 1000;

/**
 * node-redis reads the slot map again on MOVED and ASK, but not when a node stops answering: it would redial a dead
 * primary forever while its replica has taken over. So each failure to reach a node (at most once a second) asks
 * for the map again, from a node it knows or else from the seeds; a node the new map no longer names is dropped.
 */
function followFailovers(cluster: RedisClusterType): void {
  let last = 0;
  cluster.on('node-error', () => {
    const now = Date.now();
    if (now - last < REDISCOVER_INTERVAL_MS) return;
    last = now;
    const known = [...cluster.nodeByAddress.values()].find((node) => node.client !== undefined)?.client;
    if (known) cluster._slots.rediscover(known).catch(() => undefined);
  });
}

/** Another connection to the same store (a subscriber): for a cluster, a cluster client that follows failovers too. */
export function duplicateStoreConnection(connection: RedisConnection): RedisConnection {
  if (!isClusterConnection(connection)) return connection.duplicate();
  const duplicate = connection.duplicate();
  clusterConnections.add(duplicate);
  followFailovers(duplicate);
  return duplicate;
}

/**
 * The prefix of every store key. On a cluster it is a hash tag, `{graphdb}:`, so all the keys share one slot: the
 * stores' transactions and scripts touch several keys at once, which a cluster runs only within a slot. A single
 * server or Sentinel keeps `graphdb:` (existing keys stay where they are).
 */
export function storeKeyPrefix(connection: RedisConnection): string {
  return isClusterConnection(connection) ? '{graphdb}:' : 'graphdb:';
}

/** Whether the store can take commands now (a cluster client: its slot map is read and its connections open). */
export function storeReady(connection: RedisConnection): boolean {
  return isClusterConnection(connection) ? connection.isOpen : connection.isReady;
}

type CommandArguments = (string | Buffer)[];
type StoreCommandOptions = Parameters<RedisClientConnection['sendCommand']>[1];

/** The key a store command is routed by on a cluster: a script's first key, or the command's own. */
function storeRoutingKey(args: CommandArguments): string | Buffer | undefined {
  const name = String(args[0] ?? '').toUpperCase();
  if (name === 'EVAL' || name === 'EVALSHA') return Number(args[2]) > 0 ? args[3] : undefined;
  return (
    routingKey(args) ?? (args.length > 1 && !['INFO', 'PING', 'CONFIG', 'ACL'].includes(name) ? args[1] : undefined)
  );
}

/** A raw command on the store, routed by its key on a cluster. */
export function storeCommand<T = unknown>(
  connection: RedisConnection,
  args: CommandArguments,
  options?: StoreCommandOptions,
): Promise<T> {
  if (isClusterConnection(connection)) return connection.sendCommand<T>(storeRoutingKey(args), false, args, options);
  return connection.sendCommand<T>(args, options);
}

/** Raw commands in one MULTI/EXEC (on a cluster, routed by the first command's key: all must share its slot). */
export function storeTransaction(connection: RedisConnection, commands: CommandArguments[]): Promise<unknown[]> {
  if (isClusterConnection(connection)) {
    const key = commands.map(storeRoutingKey).find((found) => found !== undefined);
    const multi = connection.multi(key);
    for (const command of commands) multi.addCommand(storeRoutingKey(command), false, command);
    return multi.exec();
  }
  const multi = connection.multi();
  for (const command of commands) multi.addCommand(command);
  return multi.exec();
}

/** QUIT when connected; otherwise (reconnecting to a server that is gone) drop the socket instead of waiting. */
export async function closeRedisConnection(client: RedisConnection): Promise<void> {
  if (storeReady(client)) {
    await client.close().catch(() => undefined);
    return;
  }
  try {
    client.destroy();
  } catch {
    // already closed
  }
}

/** Commands whose bulk-string replies arrive as Buffers (DUMP payloads and keys are binary). */
export function binaryCommands(client: RedisConnection) {
  return (args: (string | Buffer)[]): Promise<unknown> =>
    storeCommand(client, args, { typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer } });
}
