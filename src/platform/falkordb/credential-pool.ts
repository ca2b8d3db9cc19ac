// One credential set's connections to a user's FalkorDB node (one file because the command clients and the query
// connections share one dial target, one lease with its deadline and abort, and one close): created on first use
// (single flight), reused, with dead connections replaced.
import { isIP } from 'node:net';
import { RESP_TYPES } from '@redis/client';
import { newRedisClient } from '../redis/redis-client.js';
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
import type {
  CommandArgument,
  DbCredentials,
  NodePool,
  PoolOptions,
  SendOptions,
  StreamedArgument,
  TopologyDescription,
} from './database-pool.js';
import { askSentinels, listReplicas } from './sentinel-discovery.js';
import { assertRole, isReadOnlyReply, ReplicaConfirmation, type NodeRole } from './replica-confirmation.js';

type RawClient = ReturnType<typeof newRedisClient>;

/**
 * node-redis's options for a command, one frozen object per combination of SendOptions' reply types, so that a
 * command allocates none (node-redis copies them into its own).
 */
const COMMAND_OPTIONS = [
  { typeMapping: {} },
  { typeMapping: { [RESP_TYPES.NUMBER]: String } },
  { typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer } },
  { typeMapping: { [RESP_TYPES.NUMBER]: String, [RESP_TYPES.BLOB_STRING]: Buffer } },
].map((options) => Object.freeze(options));

function commandOptionsFor({ integersAsStrings, binary }: SendOptions): { typeMapping?: Record<number, unknown> } {
  return COMMAND_OPTIONS[(integersAsStrings ? 1 : 0) + (binary ? 2 : 0)]!;
}

/**
 * Connections for single commands (GRAPH.LIST, PING, ACL, GRAPH.CONFIG…) per pool, within maxConnectionsPerPool;
 * queries have their own connections up to the full bound. Commands queued on fewer sockets go out several per
 * write: measured in one bench run (10 connections, one token), 4 such connections → 2 raised GET /api/status from
 * 25,187 to 30,293 req/s, GET /api/graph from 27,037 to 32,803 and GET /api/user from 24,835 to 30,963. Two, not one,
 * so a slow command (GRAPH.PROFILE, a DUMP) leaves the other free.
 */
const COMMAND_CONNECTIONS = 2;

interface PooledClient {
  client: RawClient;
  busy: number;
  /** A command went to it in this event-loop turn: its write (node-redis's, at setImmediate) has not gone out yet. */
  joinable: boolean;
}

/** Marks `pooled` joinable until this turn's setImmediate phase, in which node-redis writes its commands. */
function joinUntilWritten(pooled: PooledClient): void {
  if (pooled.joinable) return;
  pooled.joinable = true;
  setImmediate(() => {
    pooled.joinable = false;
  });
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

/** Longest wait for one replica's answer to a command sent to every node. */
const REPLICA_COMMAND_MS = 5000;

/** One credential set's connections. `run` picks the least busy connection, opening another when all are busy. */
export class CredentialPool implements NodePool {
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
  private readonly confirmation: ReplicaConfirmation;

  constructor(
    private readonly credentials: DbCredentials,
    private readonly options: PoolOptions,
    private readonly logger: Logger,
  ) {
    this.confirmation = new ReplicaConfirmation(credentials, options.replicaAckMs ?? 0, (message) =>
      this.warnOnce(message),
    );
  }

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

  /** The address to dial for `host`: as given, or as resolved and checked against DATABASE_HOSTS. */
  private async checkedAddress(host: string, port: number): Promise<string> {
    if (!this.options.resolveTarget) return host;
    try {
      return await this.options.resolveTarget(host, port);
    } catch (error) {
      if (error instanceof PortError) throw error;
      throw new DatabaseUnavailableError(`cannot resolve ${host}`, { cause: error });
    }
  }

  /**
   * Where the database is now: the host and port as given, or, for a Sentinel topology, the primary the sentinels
   * name (asked in order, the first answer wins). Both the sentinels and the primary they name pass the same
   * DATABASE_HOSTS check as any address a caller gives: a sentinel must not be able to steer us anywhere else.
   */
  private async dialTarget(): Promise<{ host: string; port: number; address: string; role?: NodeRole }> {
    const { sentinel } = this.credentials;
    if (!sentinel) {
      const { host, port, shardPrimary } = this.credentials;
      return {
        host,
        port,
        address: await this.checkedAddress(host, port),
        ...(shardPrimary ? { role: 'master' } : {}),
      };
    }
    const node = await askSentinels(sentinel, this.credentials, this.options, (host, port) =>
      this.checkedAddress(host, port),
    );
    return { ...node, address: await this.checkedAddress(node.host, node.port) };
  }

  private async open(): Promise<PooledClient> {
    const { username, password, tls, ca } = this.credentials;
    const { host, port, address, role } = await this.dialTarget();
    const client = newRedisClient({
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
    if (role) {
      try {
        const replicas = await assertRole((args) => client.sendCommand(args), `${host}:${port}`, role);
        if (role === 'master') this.confirmation.noteReplicas(replicas);
      } catch (error) {
        discard(client);
        throw error;
      }
    }
    const pooled: PooledClient = { client, busy: 0, joinable: false };
    client.on('end', () => this.remove(pooled));
    this.clients.push(pooled);
    return pooled;
  }

  private remove(pooled: PooledClient): void {
    const index = this.clients.indexOf(pooled);
    if (index !== -1) this.clients.splice(index, 1);
  }

  /**
   * A connection for a command: one that already takes a command in this turn, so both go out in one write (and
   * come back in one read); else an idle one, so a slow command sent earlier holds up nothing; else a new one while
   * under the bound (single flight); else the least busy. Commands of the requests one turn answers shared a write
   * only by chance before: the second took the other, idle, connection. A connection at hand is answered
   * without a promise: a command then costs no extra turn of the event loop.
   */
  private acquire(): PooledClient | Promise<PooledClient> {
    let ready = 0;
    let idle: PooledClient | undefined;
    let leastBusy: PooledClient | undefined;
    for (const pooled of this.clients) {
      if (!pooled.client.isReady) continue;
      if (pooled.joinable) return pooled;
      ready++;
      if (pooled.busy === 0) idle ??= pooled;
      else if (leastBusy === undefined || pooled.busy < leastBusy.busy) leastBusy = pooled;
    }
    if (idle) return idle;
    const bound = Math.min(this.options.maxConnectionsPerPool, COMMAND_CONNECTIONS);
    if (leastBusy === undefined || ready + (this.opening ? 1 : 0) < bound) {
      // Single flight: concurrent first requests share one connection attempt.
      this.opening ??= this.open().finally(() => {
        this.opening = undefined;
      });
      return this.opening;
    }
    return leastBusy;
  }

  /** Sends one command. With `signal`, an abort drops the connection so an abandoned reply is never parsed. */
  send<T = unknown>(args: CommandArgument[], options: SendOptions = {}, signal?: AbortSignal): Promise<T> {
    const commandOptions = commandOptionsFor(options);
    // The reply is typed by the caller, who knows the command sent.
    return this.onConnection((client) => client.sendCommand<T>(args, commandOptions), options, signal);
  }

  /** ASKING and the command pipelined on one connection: a cluster node importing the command's slot serves it then. */
  sendAsking<T = unknown>(args: CommandArgument[], options: SendOptions = {}, signal?: AbortSignal): Promise<T> {
    const commandOptions = commandOptionsFor(options);
    return this.onConnection(
      async (client) => {
        // node-redis writes commands on one client in the order they are sent: ASKING applies to the next one.
        const [, reply] = await Promise.all([client.sendCommand(['ASKING']), client.sendCommand(args, commandOptions)]);
        return reply as T;
      },
      options,
      signal,
    );
  }

  async sendToEveryPrimary<T = unknown>(args: CommandArgument[]): Promise<T[]> {
    return [await this.send<T>(args)];
  }

  sameSlot(): boolean {
    return true;
  }

  describe(): Promise<TopologyDescription> {
    const { sentinel } = this.credentials;
    return Promise.resolve(
      sentinel ? { topology: 'sentinel', masterName: sentinel.masterName } : { topology: 'single' },
    );
  }

  /**
   * Sends a command to the primary and then, for a Sentinel topology, to every replica the sentinels list: what
   * FalkorDB does not replicate (ACL users, GRAPH.CONFIG) must be on the node a failover promotes. The primary's
   * answer is returned; a replica that cannot be reached or refuses fails the call (503, the detail naming each
   * node), after the primary and the other replicas have it — the call may be repeated, these commands are
   * idempotent. A single node: `send`.
   */
  async sendToEveryNode<T = unknown>(args: CommandArgument[]): Promise<T> {
    const sentinel = this.credentials.sentinel;
    const [answer, failures] = await this.onEveryNode<T>(args);
    if (failures.length > 0)
      throw new DatabaseUnavailableError(
        `applied on the primary of ${sentinel!.masterName} but not on every replica (${failures.join('; ')})`,
      );
    return answer[0]!;
  }

  async askEveryNode<T = unknown>(args: CommandArgument[]): Promise<T[]> {
    const [answers, failures] = await this.onEveryNode<T>(args);
    if (failures.length > 0)
      throw new DatabaseUnavailableError(
        `a replica of ${this.credentials.sentinel!.masterName} did not answer (${failures.join('; ')})`,
      );
    return answers;
  }

  /** The primary's answer first, then each replica's the sentinels list (none without Sentinel), and the failures. */
  private async onEveryNode<T>(args: CommandArgument[]): Promise<[T[], string[]]> {
    const answers = [await this.send<T>(args)];
    const sentinel = this.credentials.sentinel;
    if (!sentinel) return [answers, []];
    const replicas = await listReplicas(sentinel, this.credentials, this.options, (host, port) =>
      this.checkedAddress(host, port),
    );
    const failures: string[] = [];
    for (const replica of replicas) {
      const client = newRedisClient({
        socket: {
          host: await this.checkedAddress(replica.host, replica.port),
          port: replica.port,
          connectTimeout: this.options.connectTimeoutMs,
          // A replica that accepts and stays silent (stopped, overloaded) must not hold the call for long.
          socketTimeout: REPLICA_COMMAND_MS,
          reconnectStrategy: false,
          ...(this.credentials.tls
            ? {
                tls: true as const,
                ca: this.credentials.ca,
                ...(isIP(replica.host) ? {} : { servername: replica.host }),
              }
            : {}),
        },
        username: this.credentials.username,
        password: this.credentials.password === '' ? undefined : this.credentials.password,
        disableOfflineQueue: true,
      });
      client.on('error', () => undefined);
      try {
        await client.connect();
        answers.push(await client.sendCommand(args));
      } catch (error) {
        failures.push(`${replica.host}:${replica.port}: ${(error as Error).message}`);
      } finally {
        discard(client);
      }
    }
    return [answers, failures];
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
          // Chosen once the connection is ours: opening it may just have found a primary without replicas. The
          // confirmation rides in the same write as the batch (no extra round trip).
          const confirm = this.confirmation.forBatch(commands);
          const outcomes = await pooled.connection.send(
            confirm ? [...commands, confirm.command] : commands,
            streaming ? touch : undefined,
          );
          if (confirm) await confirm.check(outcomes.pop()!, pooled.connection);
          return outcomes.map((outcome) => {
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
   * A command whose last argument streams from `body` (QueryConnection.sendStreamed), on a connection held alone
   * for it; the deadline is one of silence, started again by every chunk written.
   */
  sendStreamed(
    args: CommandArgument[],
    body: StreamedArgument,
    options: Pick<SendOptions, 'timeoutMs'> = {},
    signal?: AbortSignal,
  ): Promise<RespValue> {
    return this.leased(
      () => this.acquireStreamingConnection(),
      (pooled) => pooled.connection.destroy(),
      async (pooled, touch) => {
        try {
          const outcome = await pooled.connection.sendStreamed(args, await body.open(), body.size, touch);
          if (outcome.status === 'rejected') throw outcome.reason;
          return outcome.value;
        } finally {
          pooled.streaming = false;
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
    const { username, password, tls, ca } = this.credentials;
    const { host, port, address, role } = await this.dialTarget();
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
    if (role) {
      try {
        const replicas = await assertRole(
          async (args) => {
            const [outcome] = await connection.send([{ args }]);
            if (outcome!.status === 'rejected') throw outcome!.reason;
            return outcome!.value;
          },
          `${host}:${port}`,
          role,
        );
        if (role === 'master') this.confirmation.noteReplicas(replicas);
      } catch (error) {
        connection.destroy();
        throw error;
      }
    }
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
  private acquireQueryConnection(): PooledQueryConnection | Promise<PooledQueryConnection> {
    // One taken for a stream is not idle even before its lease counts it busy.
    for (const pooled of this.queryConnections)
      if (pooled.busy === 0 && pooled.connection.open && !pooled.streaming) return pooled;
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

  private onConnection<T>(
    work: (client: RawClient) => Promise<T>,
    options: SendOptions,
    signal?: AbortSignal,
  ): Promise<T> {
    return this.leased(
      () => this.acquire(),
      (pooled) => {
        this.remove(pooled);
        discard(pooled.client);
      },
      (pooled) => {
        joinUntilWritten(pooled);
        return work(pooled.client);
      },
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
    acquire: () => C | Promise<C>,
    drop: (pooled: C) => void,
    work: (pooled: C, touch: () => void) => Promise<T>,
    options: Pick<SendOptions, 'timeoutMs'>,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    // An abort that came first (a query stopped before it was sent) never fires the listener below.
    if (signal?.aborted) throw new DatabaseUnavailableError('request aborted');
    this.lastUsed = Date.now();
    const acquired = acquire();
    // Awaited only when it is a promise: an idle connection is used in this same turn.
    const pooled = acquired instanceof Promise ? await acquired : acquired;
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
      // A primary demoted by a failover answers writes with READONLY: every connection of this pool points at it,
      // so all are dropped and the next ones ask the sentinels again.
      else if (this.credentials.sentinel && isReadOnlyReply(failure)) this.dropAll();
      throw failure;
    } finally {
      clearTimeout(timer);
      pooled.busy--;
      this.lastUsed = Date.now();
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private warned = false;
  private warnOnce(message: string): void {
    if (this.warned) return;
    this.warned = true;
    const { host, port, username } = this.credentials;
    this.logger.warn({ host, port, username }, message);
  }

  /** Drops every connection (they point at a node that is no longer the primary); the pool stays usable. */
  private dropAll(): void {
    for (const pooled of this.queryConnections.splice(0)) pooled.connection.destroy();
    for (const pooled of this.clients.splice(0)) discard(pooled.client);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.connecting) discard(this.connecting);
    for (const pooled of this.queryConnections.splice(0)) pooled.connection.destroy();
    const clients = this.clients.splice(0);
    await Promise.all(clients.map((c) => closeQuietly(c.client)));
  }
}
