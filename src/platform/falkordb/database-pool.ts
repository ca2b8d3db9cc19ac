// What a database connection looks like to its callers, whatever its topology: the credentials and topologies a
// pool is built from, the DatabasePool port GraphDatabase and the server commands use, and the one node's pool a
// sharded database's pool is made of. Types only: credential-pool.ts (one node, Sentinel) and sharded-pool.ts (a
// sharded database, Redis Cluster protocol) both implement them, and neither imports the other's types.
import type { QueryCommand } from './query-connection.js';
import type { RespValue } from './resp-reader.js';
import type { SchemaNamesCache } from './schema-names.js';
import type { ResolveTarget } from './target-guard.js';

/** A primary found through Sentinel: the master name and the sentinels to ask (the token's host and port first). */
export interface SentinelTopology {
  masterName: string;
  sentinels: { host: string; port: number }[];
  /** Connect to a healthy replica instead of the primary (Read-Only tokens, when SENTINEL_READ_REPLICAS allows). */
  readFromReplica?: boolean;
}

/** A sharded database (Redis Cluster protocol): the nodes to ask for the slot map, the token's host and port first. */
export interface ShardedTopology {
  seeds: { host: string; port: number }[];
}

export interface DbCredentials {
  /** The database's address; with `sentinel`, the first sentinel's; with `cluster`, the first seed node's. */
  host: string;
  port: number;
  /** Present when the database is a Sentinel-managed primary: every new connection asks the sentinels where it is. */
  sentinel?: SentinelTopology;
  /** Present when the database is a sharded database: each graph is served by the primary of its key's slot. */
  cluster?: ShardedTopology;
  /**
   * Set by ShardedPool for the pool of a shard's primary: the node must be a primary when dialled (a failover may
   * have demoted it), and writes wait for a replica's confirmation as behind Sentinel.
   */
  shardPrimary?: boolean;
  username: string;
  password: string;
  tls: boolean;
  /** PEM certificate authority for TLS; the system's trust store when absent. */
  ca?: string;
}

export type CommandArgument = string | Buffer;
/** Integers arrive as strings so values beyond 2^53 keep every digit; bulk strings as Buffers when asked. */
export interface SendOptions {
  integersAsStrings?: boolean;
  binary?: boolean;
  /** This command's own bound instead of the pool's `commandTimeoutMs` (a query with a longer timeout). */
  timeoutMs?: number;
  /** In a sharded database, a command about no key goes to the node serving this key (INFO of the node holding a graph). */
  routeKey?: string;
}

/** A command's last argument of `size` bytes, read from a stream opened for each attempt (a file on disk). */
export interface StreamedArgument {
  size: number;
  open(): Promise<AsyncIterable<Buffer | string>>;
}

/**
 * What GraphDatabase and the server commands need of a database, whatever its topology: one node (or a Sentinel
 * primary), CredentialPool; a sharded database, ShardedPool (sharded-pool.ts), which routes each command to the node
 * serving its key's slot.
 */
export interface DatabasePool {
  /** Schema names of the graphs queried through this pool, with their schema versions (graph-database.ts). */
  readonly schemaNames: SchemaNamesCache;
  readonly size: number;
  readonly idleSince: number;
  send<T = unknown>(args: CommandArgument[], options?: SendOptions, signal?: AbortSignal): Promise<T>;
  sendQueries(
    commands: QueryCommand[],
    options?: Pick<SendOptions, 'timeoutMs'>,
    signal?: AbortSignal,
  ): Promise<PromiseSettledResult<RespValue>[]>;
  /**
   * One command whose last argument is read from `body` as it is written (a graph's DUMP for RESTORE), on a
   * connection of its own: the value is never held whole in memory.
   */
  sendStreamed(
    args: CommandArgument[],
    body: StreamedArgument,
    options?: Pick<SendOptions, 'timeoutMs'>,
    signal?: AbortSignal,
  ): Promise<RespValue>;
  /** What the database does not replicate (ACL users, GRAPH.CONFIG): on every data node; the first answer returned. */
  sendToEveryNode<T = unknown>(args: CommandArgument[]): Promise<T>;
  /** A command about every graph (GRAPH.LIST, running queries): each primary's answer, one per shard. */
  sendToEveryPrimary<T = unknown>(args: CommandArgument[]): Promise<T[]>;
  /**
   * A read about the node itself on every data node, replicas included (GRAPH.LIST before a RESTORE): each node's
   * answer; a node that cannot answer fails the call (503).
   */
  askEveryNode<T = unknown>(args: CommandArgument[]): Promise<T[]>;
  /** Whether a command naming both keys can run (always on one node; in a cluster, only within one hash slot). */
  sameSlot(first: string, second: string): boolean;
  /** The topology as the connection-info route reports it (a cluster's shards as its slot map names them). */
  describe(): Promise<TopologyDescription>;
  close(): Promise<void>;
}

export type TopologyDescription =
  | { topology: 'single' }
  | { topology: 'sentinel'; masterName: string }
  | { topology: 'cluster'; shards: { primary: string; replicas: string[] }[] };

export interface PoolOptions {
  maxConnectionsPerPool: number;
  idleCloseMs: number;
  connectTimeoutMs: number;
  /**
   * Longest wait for one command's reply, unless the caller gives its own bound; the connection is dropped beyond
   * it, so a server that accepts and stays silent cannot hold a request (or a socket) forever.
   */
  commandTimeoutMs: number;
  /** Resolves and checks the host before every new connection (DATABASE_HOSTS); the address it returns is dialled. */
  resolveTarget?: ResolveTarget;
  /**
   * Behind Sentinel or on a shard's primary, how long a write waits for one replica to confirm it (WAIT)
   * before it is answered; 0 answers at once. Single nodes never wait.
   */
  replicaAckMs?: number;
  /**
   * A socket silent this long is destroyed. The only bound that also covers the handshake (AUTH, HELLO):
   * node-redis cannot abandon a handshake from outside (destroy() during it leaves the socket open).
   */
  socketTimeoutMs?: number;
}

/** One node's pool (CredentialPool), as a sharded database's pool uses it: ASKING before a command after a redirection. */
export interface NodePool extends DatabasePool {
  sendAsking<T = unknown>(args: CommandArgument[], options?: SendOptions, signal?: AbortSignal): Promise<T>;
}
