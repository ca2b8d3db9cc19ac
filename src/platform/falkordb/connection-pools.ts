// Connections to the users' own FalkorDB servers: a small pool per credential set, created on first use
// (single flight), reused, closed when idle, with dead connections replaced.
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { createClient, RESP_TYPES } from 'redis';
import type { PlatformLogger as Logger } from '../logger.js';
import { PortError } from '../port-errors.js';
import { SchemaNamesCache } from './schema-names.js';
import {
  connectionLost,
  DatabaseReplyError,
  DatabaseUnavailableError,
  translateCommandError,
  translateConnectError,
} from './database-errors.js';
import { QueryConnection, type QueryCommand } from './query-connection.js';
import type { RespValue } from './resp-reader.js';
import type { ResolveTarget } from './target-guard.js';

export interface DbCredentials {
  host: string;
  port: number;
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
}

type RawClient = ReturnType<typeof createClient>;

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
   * A socket silent this long is destroyed. The only bound that also covers the handshake (AUTH, HELLO):
   * node-redis cannot abandon a handshake from outside (destroy() during it leaves the socket open).
   */
  socketTimeoutMs?: number;
}

const DEFAULTS: PoolOptions = {
  maxConnectionsPerPool: 4,
  idleCloseMs: 5 * 60_000,
  connectTimeoutMs: 5000,
  commandTimeoutMs: 60_000,
};

interface PooledClient {
  client: RawClient;
  busy: number;
}

interface PooledQueryConnection {
  connection: QueryConnection;
  busy: number;
  /** Held by a streamed reply: no other command is pipelined behind it. */
  streaming?: boolean;
}

/** The flag counts only while the connection is in use (a lease given up before its work began leaves it set). */
const heldByStream = (pooled: PooledQueryConnection): boolean => pooled.streaming === true && pooled.busy > 0;

/** Drops a connection without waiting; destroying an already closed client throws, which is fine here. */
function discard(client: RawClient): void {
  try {
    client.destroy();
  } catch {
    // already closed
  }
}

async function closeQuietly(client: RawClient): Promise<void> {
  if (!client.isReady) return discard(client);
  await client.close().catch(() => discard(client));
}

/** One credential set's connections. `run` picks the least busy connection, opening another when all are busy. */
export class CredentialPool {
  /** Schema names of the graphs queried through this pool, with their schema versions (graph-database.ts). */
  readonly schemaNames = new SchemaNamesCache();
  private readonly clients: PooledClient[] = [];
  /** Connections for queries, whose replies are read within bounds (see sendQueries). */
  private readonly queryConnections: PooledQueryConnection[] = [];
  private readonly queryOpenings: Promise<PooledQueryConnection>[] = [];
  private opening: Promise<PooledClient> | undefined;
  /** The client being connected, so that close() can abandon a handshake a silent server never answers. */
  private connecting: RawClient | undefined;
  private closed = false;
  private lastUsed = Date.now();

  constructor(
    private readonly credentials: DbCredentials,
    private readonly options: PoolOptions,
    private readonly logger: Logger,
  ) {}

  get size(): number {
    return this.clients.length + this.queryConnections.length;
  }

  get idleSince(): number {
    const busy = this.clients.some((c) => c.busy > 0) || this.queryConnections.some((c) => c.busy > 0);
    return busy ? Date.now() : this.lastUsed;
  }

  private socketBounds() {
    const { connectTimeoutMs, socketTimeoutMs } = this.options;
    return {
      connectTimeout: connectTimeoutMs,
      reconnectStrategy: false as const,
      ...(socketTimeoutMs === undefined ? {} : { socketTimeout: socketTimeoutMs }),
    };
  }

  /** The address to dial: the host as given, or as resolved and checked against DATABASE_HOSTS. */
  private async dialAddress(): Promise<string> {
    const { host, port } = this.credentials;
    if (!this.options.resolveTarget) return host;
    try {
      return await this.options.resolveTarget(host, port);
    } catch (error) {
      if (error instanceof PortError) throw error;
      throw new DatabaseUnavailableError(`cannot resolve ${host}`, { cause: error });
    }
  }

  private async open(): Promise<PooledClient> {
    const { host, port, username, password, tls, ca } = this.credentials;
    const address = await this.dialAddress();
    const client = createClient({
      socket: tls
        ? // SNI and the certificate check use the name the caller gave (SNI carries host names only, RFC 6066).
          { host: address, port, tls: true, ca, ...(isIP(host) ? {} : { servername: host }), ...this.socketBounds() }
        : { host: address, port, ...this.socketBounds() },
      username,
      password: password === '' ? undefined : password,
      disableOfflineQueue: true,
    });
    client.on('error', (error: Error) =>
      this.logger.debug({ err: { message: error.message }, host, port }, 'database connection error'),
    );
    if (this.closed) throw new DatabaseUnavailableError('the connection pool is closed');
    this.connecting = client;
    try {
      await client.connect();
    } catch (error) {
      discard(client);
      throw translateConnectError(error, `${host}:${port}`);
    } finally {
      this.connecting = undefined;
    }
    const pooled = { client, busy: 0 };
    client.on('end', () => this.remove(pooled));
    this.clients.push(pooled);
    return pooled;
  }

  private remove(pooled: PooledClient): void {
    const index = this.clients.indexOf(pooled);
    if (index !== -1) this.clients.splice(index, 1);
  }

  private async acquire(): Promise<PooledClient> {
    const ready = this.clients.filter((c) => c.client.isReady);
    const idle = ready.find((c) => c.busy === 0);
    if (idle) return idle;
    if (ready.length + (this.opening ? 1 : 0) < this.options.maxConnectionsPerPool || ready.length === 0) {
      // Single flight: concurrent first requests share one connection attempt.
      this.opening ??= this.open().finally(() => {
        this.opening = undefined;
      });
      return this.opening;
    }
    return ready.reduce((least, c) => (c.busy < least.busy ? c : least));
  }

  /** Sends one command. With `signal`, an abort drops the connection so an abandoned reply is never parsed. */
  async send<T = unknown>(args: CommandArgument[], options: SendOptions = {}, signal?: AbortSignal): Promise<T> {
    // The reply is typed by the caller, who knows the command sent.
    return this.onConnection(
      async (client, typeMapping) => (await client.sendCommand(args, { typeMapping })) as T,
      options,
      signal,
    );
  }

  /**
   * Sends several commands in order on one query connection, in one write (one round trip), and settles each on
   * its own: a reply error stays that command's rejection. Each reply is read within its command's `bounds`; one
   * past them fails the batch with ReplyTooLargeError and its connection is dropped, the rest of the reply unread.
   * A lost connection fails the whole batch. Integers arrive as strings, bulk strings as UTF-8 strings.
   */
  async sendQueries(
    commands: QueryCommand[],
    options: Pick<SendOptions, 'timeoutMs'> = {},
    signal?: AbortSignal,
  ): Promise<PromiseSettledResult<RespValue>[]> {
    // A batch whose rows stream out (ReplyBounds.rows) holds its connection alone while its reader takes them, and
    // its deadline is one of silence: the reply must begin, and then keep coming, within it (a reader that stops
    // taking rows stops the reply too).
    const streaming = commands.some(({ bounds }) => bounds?.rows !== undefined);
    return this.leased(
      () => (streaming ? this.acquireStreamingConnection() : this.acquireQueryConnection()),
      // Destroying it fails what waits on it; its onClose takes it out of the pool.
      (pooled) => pooled.connection.destroy(),
      async (pooled, touch) => {
        try {
          return (await pooled.connection.send(commands, streaming ? touch : undefined)).map((outcome) => {
            if (outcome.status === 'fulfilled') return outcome;
            const reason = translateCommandError(outcome.reason);
            // Anything but the server's answer to this command fails the batch.
            if (!(reason instanceof DatabaseReplyError)) throw reason;
            return { status: 'rejected', reason };
          });
        } finally {
          if (streaming) pooled.streaming = false;
        }
      },
      options,
      signal,
    );
  }

  /**
   * An idle connection, or a new one, for a streamed reply: never one with commands waiting (they would wait for
   * the whole stream). It may go past maxConnectionsPerPool: streams are bounded by the callers' query slots.
   */
  private async acquireStreamingConnection(): Promise<PooledQueryConnection> {
    const idle = this.queryConnections.find((c) => c.busy === 0 && c.connection.open);
    const pooled = idle ?? (await this.openQueryConnection());
    pooled.streaming = true;
    return pooled;
  }

  private async openQueryConnection(): Promise<PooledQueryConnection> {
    const { host, port, username, password, tls, ca } = this.credentials;
    const address = await this.dialAddress();
    if (this.closed) throw new DatabaseUnavailableError('the connection pool is closed');
    let connection: QueryConnection;
    try {
      connection = await QueryConnection.open({
        address,
        port,
        tls,
        ca,
        ...(tls && !isIP(host) ? { servername: host } : {}),
        username,
        password,
        connectTimeoutMs: this.options.connectTimeoutMs,
        socketTimeoutMs: this.options.socketTimeoutMs,
        onClose: () => this.forgetClosedQueryConnections(),
      });
    } catch (error) {
      throw translateConnectError(error, `${host}:${port}`);
    }
    if (this.closed) {
      connection.destroy();
      throw new DatabaseUnavailableError('the connection pool is closed');
    }
    if (!connection.open) throw new DatabaseUnavailableError(`the connection to ${host}:${port} closed`);
    const pooled = { connection, busy: 0 };
    this.queryConnections.push(pooled);
    return pooled;
  }

  private forgetClosedQueryConnections(): void {
    for (let index = this.queryConnections.length - 1; index >= 0; index--)
      if (!this.queryConnections[index]!.connection.open) this.queryConnections.splice(index, 1);
  }

  /**
   * Like acquire(): an idle connection, else a new one while under the bound, else one being opened (so a burst
   * after an outage opens at most the bound), else the least busy.
   */
  private async acquireQueryConnection(): Promise<PooledQueryConnection> {
    // One taken for a stream is not idle even before its lease counts it busy.
    const idle = this.queryConnections.find((c) => c.busy === 0 && c.connection.open && !c.streaming);
    if (idle) return idle;
    const streams = this.queryConnections.filter(heldByStream).length;
    if (this.queryConnections.length - streams + this.queryOpenings.length < this.options.maxConnectionsPerPool) {
      const opening = this.openQueryConnection().finally(() => {
        void this.queryOpenings.splice(this.queryOpenings.indexOf(opening), 1);
      });
      this.queryOpenings.push(opening);
      return opening;
    }
    const ready = this.queryConnections.filter((c) => c.connection.open && !heldByStream(c));
    if (ready.length === 0) return this.queryOpenings[0] ?? this.openQueryConnection();
    return ready.reduce((least, c) => (c.busy < least.busy ? c : least));
  }

  private async onConnection<T>(
    work: (client: RawClient, typeMapping: Record<number, unknown>) => Promise<T>,
    options: SendOptions,
    signal?: AbortSignal,
  ): Promise<T> {
    const typeMapping = {
      ...(options.integersAsStrings ? { [RESP_TYPES.NUMBER]: String } : {}),
      ...(options.binary ? { [RESP_TYPES.BLOB_STRING]: Buffer } : {}),
    };
    return this.leased(
      () => this.acquire(),
      (pooled) => {
        this.remove(pooled);
        discard(pooled.client);
      },
      (pooled) => work(pooled.client, typeMapping),
      options,
      signal,
    );
  }

  /**
   * Runs `work` on a connection from `acquire`, within the command's deadline and its caller's signal: either drops
   * the connection (`drop`), so an abandoned reply is never parsed. Failures leave as port errors; a connection
   * that can no longer be trusted is dropped.
   */
  private async leased<C extends { busy: number }, T>(
    acquire: () => Promise<C>,
    drop: (pooled: C) => void,
    work: (pooled: C, touch: () => void) => Promise<T>,
    options: Pick<SendOptions, 'timeoutMs'>,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    // An abort that came first (a query stopped before it was sent) never fires the listener below.
    if (signal?.aborted) throw new DatabaseUnavailableError('request aborted');
    this.lastUsed = Date.now();
    const pooled = await acquire();
    if (signal?.aborted) throw new DatabaseUnavailableError('request aborted');
    pooled.busy++;
    const onAbort = () => drop(pooled);
    signal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      onAbort();
    }, options.timeoutMs ?? this.options.commandTimeoutMs);
    try {
      // `touch` starts the deadline again (a streamed reply's deadline counts from its last chunk).
      return await work(pooled, () => timer.refresh());
    } catch (error) {
      const failure = translateCommandError(error, { timedOut, aborted: signal?.aborted });
      if (connectionLost(failure)) onAbort();
      throw failure;
    } finally {
      clearTimeout(timer);
      pooled.busy--;
      this.lastUsed = Date.now();
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.connecting) discard(this.connecting);
    for (const pooled of this.queryConnections.splice(0)) pooled.connection.destroy();
    const clients = this.clients.splice(0);
    await Promise.all(clients.map((c) => closeQuietly(c.client)));
  }
}

/** All pools, keyed by a hash of the full credential set (so a changed password gets its own pool). */
export class ConnectionPools {
  private readonly pools = new Map<string, CredentialPool>();
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
        ]),
      )
      .digest('hex');
  }

  /** `key`, when given, must be `keyOf(credentials)` (callers that use the same credentials often keep it). */
  pool(credentials: DbCredentials, key = ConnectionPools.keyOf(credentials)): CredentialPool {
    let pool = this.pools.get(key);
    if (!pool) {
      pool = new CredentialPool(credentials, this.options, this.logger);
      this.pools.set(key, pool);
    }
    return pool;
  }

  /**
   * Opens a throw-away connection to check credentials and closes it afterwards. Past `deadlineMs` the whole check
   * fails with a `timeout` port error and the connection is dropped, whatever stage it had reached.
   */
  async withCheckConnection<T>(
    credentials: DbCredentials,
    work: (pool: CredentialPool) => Promise<T>,
    deadlineMs?: number,
  ): Promise<T> {
    const pool = new CredentialPool(
      credentials,
      {
        ...this.options,
        maxConnectionsPerPool: 1,
        ...(deadlineMs === undefined ? {} : { socketTimeoutMs: deadlineMs }),
      },
      this.logger,
    );
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
