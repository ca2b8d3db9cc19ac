// The registry of connections to the users' own FalkorDB servers: one pool per credential set (a node's, a Sentinel
// primary's, or a sharded database's pool of node pools), created on first use, closed when idle.
import { createHash } from 'node:crypto';
import type { PlatformLogger as Logger } from '../logger.js';
import { PortError } from '../port-errors.js';
import { CredentialPool } from './credential-pool.js';
import { ShardedPool } from './sharded-pool.js';
import type { DatabasePool, DbCredentials, PoolOptions } from './database-pool.js';

const DEFAULTS: PoolOptions = {
  maxConnectionsPerPool: 4,
  idleCloseMs: 5 * 60_000,
  connectTimeoutMs: 5000,
  commandTimeoutMs: 60_000,
};

/**
 * Connections per node of a sharded database: half a single node's bound, at least 2. A request fans out to every primary,
 * and fewer sockets per node pipeline more commands per write: measured with three shards (bench/sharded-cluster.ts),
 * GET /api/graph made 58% of the single node's throughput with 4 per node and 82% with 2 (88% with 1, which would
 * queue a quick query behind a slow one).
 */
const nodeConnections = (options: PoolOptions) => Math.max(2, Math.ceil(options.maxConnectionsPerPool / 2));

/** All pools, keyed by a hash of the full credential set (so a changed password gets its own pool). */
export class ConnectionPools {
  private readonly pools = new Map<string, DatabasePool>();
  private readonly options: PoolOptions;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly logger: Logger,
    options: Partial<PoolOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
    this.sweeper = setInterval(() => void this.closeIdle(), Math.min(this.options.idleCloseMs, 60_000));
    this.sweeper.unref();
  }

  static keyOf(credentials: DbCredentials): string {
    return createHash('sha256')
      .update(
        JSON.stringify([
          credentials.host.toLowerCase(),
          credentials.port,
          credentials.username,
          credentials.password,
          credentials.tls,
          credentials.ca ?? '',
          credentials.sentinel ?? null,
          credentials.cluster ?? null,
          credentials.shardPrimary ?? false,
        ]),
      )
      .digest('hex');
  }

  /** `key`, when given, must be `keyOf(credentials)` (callers that use the same credentials often keep it). */
  pool(credentials: DbCredentials, key = ConnectionPools.keyOf(credentials)): DatabasePool {
    let pool = this.pools.get(key);
    if (!pool) {
      pool = this.create(credentials, this.options);
      this.pools.set(key, pool);
    }
    return pool;
  }

  /** One node's (or a Sentinel primary's) pool, or, for a sharded database, a pool of such pools, one per node. */
  private create(credentials: DbCredentials, options: PoolOptions): DatabasePool {
    const { cluster } = credentials;
    if (!cluster) return new CredentialPool(credentials, options, this.logger);
    return new ShardedPool(
      { ...credentials, cluster },
      (node) => new CredentialPool(node, { ...options, maxConnectionsPerPool: nodeConnections(options) }, this.logger),
      this.logger,
    );
  }

  /**
   * Opens a throw-away connection to check credentials and closes it afterwards. Past `deadlineMs` the whole check
   * fails with a `timeout` port error and the connection is dropped, whatever stage it had reached.
   */
  async withCheckConnection<T>(
    credentials: DbCredentials,
    work: (pool: DatabasePool) => Promise<T>,
    deadlineMs?: number,
  ): Promise<T> {
    const pool = this.create(credentials, {
      ...this.options,
      maxConnectionsPerPool: 1,
      ...(deadlineMs === undefined ? {} : { socketTimeoutMs: deadlineMs }),
    });
    let timer: NodeJS.Timeout | undefined;
    const deadline =
      deadlineMs === undefined
        ? undefined
        : new Promise<never>((_resolve, reject) => {
            timer = setTimeout(
              () => reject(new PortError('timeout', 'The database did not answer the credential check in time')),
              deadlineMs,
            );
          });
    const checked = work(pool);
    try {
      return await (deadline ? Promise.race([checked, deadline]) : checked);
    } finally {
      clearTimeout(timer);
      // Abandoned work fails on its own once its connection is gone; nobody waits for it.
      checked.catch(() => undefined);
      await pool.close();
    }
  }

  stats(): { pools: number; connections: number } {
    let connections = 0;
    for (const pool of this.pools.values()) connections += pool.size;
    return { pools: this.pools.size, connections };
  }

  private async closeIdle(): Promise<void> {
    const cutoff = Date.now() - this.options.idleCloseMs;
    for (const [key, pool] of this.pools) {
      if (pool.idleSince < cutoff) {
        this.pools.delete(key);
        await pool.close();
      }
    }
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }
}
