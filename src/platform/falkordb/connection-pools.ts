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
import { withSentinel } from '../redis/sentinel-session.js';
import { ClusterPool } from './cluster-pool.js';
import type {
  CommandArgument,
  DatabasePool,
  DbCredentials,
  NodePool,
  PoolOptions,
  SendOptions,
  SentinelTopology,
  StreamedArgument,
  TopologyDescription,
} from './database-pool.js';

type RawClient = ReturnType<typeof createClient>;

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

const DEFAULTS: PoolOptions = {
  maxConnectionsPerPool: 4,
  idleCloseMs: 5 * 60_000,
  connectTimeoutMs: 5000,
  commandTimeoutMs: 60_000,
};

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

/** A reply error saying the node is a replica (after a failover demoted the primary we were connected to). */
function isReadOnlyReply(error: unknown): boolean {
  return error instanceof DatabaseReplyError && /^READONLY\b/.test(error.message);
}

/** A reply error saying the user may not run the command (ACL). */
const isNoPermission = (error: unknown) => /^NOPERM\b/.test((error as Error | undefined)?.message ?? '');

type NodeRole = 'master' | 'slave';

/**
 * The node the sentinels named must have the role they named (a primary that is now a replica, or a sentinel, is
 * not what was asked for): INFO replication's `role:` line, which also counts a primary's connected replicas, or
 * ROLE's first element for a user without INFO. A user allowed neither is trusted to the sentinels' answer. Returns
 * the replica count when INFO told it.
 */
async function assertRole(
  send: (args: string[]) => Promise<unknown>,
  where: string,
  expected: NodeRole,
): Promise<number | undefined> {
  let role: string | undefined;
  let replicas: number | undefined;
  try {
    const info = String(await send(['INFO', 'replication']));
    role = /^role:(\w+)/m.exec(info)?.[1] ?? '';
    const connected = /^connected_slaves:(\d+)/m.exec(info)?.[1];
    replicas = connected === undefined ? undefined : Number(connected);
  } catch (error) {
    if (!isNoPermission(error)) throw error;
    try {
      const reply = await send(['ROLE']);
      role = Array.isArray(reply) ? String(reply[0]) : '';
    } catch (roleError) {
      if (!isNoPermission(roleError)) throw roleError;
    }
  }
  if (role !== undefined && role !== expected)
    throw new DatabaseUnavailableError(`${where} is not a ${expected} (its role is ${role || 'unknown'})`);
  return replicas;
}

/**
 * While a primary has no replica, how often a write batch also asks whether one has come back; writes in between are
 * answered as a single node's (as they would be with no replica at all).
 */
const REPLICA_RECHECK_MS = 1000;

/** Longest wait for one replica's answer to a command sent to every node. */
const REPLICA_COMMAND_MS = 5000;

/** Longest wait for one sentinel's answer: a silent sentinel must not hold a connection attempt for long. */
const SENTINEL_ANSWER_MS = 2000;

/**
 * The primary's address as the first sentinel that knows the master name says (SENTINEL GET-MASTER-ADDR-BY-NAME).
 * A sentinel that asks for authentication gets the database user's credentials (sentinels are often configured with
 * the same password); one that is down, silent or does not know the name is skipped.
 */
async function askSentinels(
  topology: SentinelTopology & { listReplicas?: boolean },
  credentials: Pick<DbCredentials, 'username' | 'password' | 'tls' | 'ca'>,
  options: PoolOptions,
  checkedAddress: (host: string, port: number) => Promise<string>,
): Promise<{ host: string; port: number; role: NodeRole; replicas?: { host: string; port: number }[] }> {
  const failures: string[] = [];
  for (const sentinel of topology.sentinels) {
    const where = `${sentinel.host}:${sentinel.port}`;
    const address = await checkedAddress(sentinel.host, sentinel.port);
    for (const withAuth of [false, true]) {
      try {
        const answer = await withSentinel(
          {
            host: sentinel.host,
            port: sentinel.port,
            address,
            ...(credentials.tls ? { tls: { ca: credentials.ca } } : {}),
            ...(withAuth ? { auth: { username: credentials.username, password: credentials.password } } : {}),
          },
          Math.min(options.connectTimeoutMs, SENTINEL_ANSWER_MS),
          async (send) => {
            const reply = await send<[string, string] | null>([
              'SENTINEL',
              'GET-MASTER-ADDR-BY-NAME',
              topology.masterName,
            ]);
            if (!reply) return `${where} does not know master ${topology.masterName}`;
            const port = Number(reply[1]);
            if (!Number.isInteger(port) || port < 1 || port > 65535) return `${where} named an invalid port`;
            const primary = { host: reply[0], port, role: 'master' as NodeRole };
            if (topology.listReplicas) {
              const listed = replicaEntries(await send<string[][]>(['SENTINEL', 'REPLICAS', topology.masterName]));
              return {
                ...primary,
                replicas: listed.map(({ host, port: replicaPort }) => ({ host, port: replicaPort })),
              };
            }
            if (topology.readFromReplica) {
              const replica = healthyReplica(await send<string[][]>(['SENTINEL', 'REPLICAS', topology.masterName]));
              if (replica) return { ...replica, role: 'slave' as NodeRole };
            }
            // No healthy replica (or none wanted): the primary serves.
            return primary;
          },
        );
        if (typeof answer === 'string') {
          failures.push(answer);
          break;
        }
        return answer;
      } catch (error) {
        const message = (error as Error).message ?? '';
        // Asked to authenticate: once more with the database user's credentials.
        if (!withAuth && /NOAUTH|NOPERM|AUTH/i.test(message)) continue;
        failures.push(`${where}: ${message || 'no answer'}`);
        break;
      }
    }
  }
  throw new DatabaseUnavailableError(`no sentinel named the primary of ${topology.masterName}`, {
    cause: new Error(failures.join('; ')),
  });
}

/** Every replica the first answering sentinel lists (whatever its state: one that is down must be reported). */
async function listReplicas(
  topology: SentinelTopology,
  credentials: Pick<DbCredentials, 'username' | 'password' | 'tls' | 'ca'>,
  options: PoolOptions,
  checkedAddress: (host: string, port: number) => Promise<string>,
): Promise<{ host: string; port: number }[]> {
  const replicas = await askSentinels({ ...topology, listReplicas: true }, credentials, options, checkedAddress);
  return replicas.replicas ?? [];
}

/**
 * A replica SENTINEL REPLICAS lists as up and in sync (no `s_down`, `o_down` or `disconnected` flag, its link to
 * the primary `ok`), picked at random so Read-Only pools spread over the replicas; undefined when there is none.
 */
export function healthyReplica(reply: unknown): { host: string; port: number } | undefined {
  const healthy = replicaEntries(reply)
    .filter(
      (entry) =>
        !entry.flags.some((flag) => ['s_down', 'o_down', 'disconnected'].includes(flag)) && entry.link === 'ok',
    )
    .map(({ host, port }) => ({ host, port }));
  return healthy[Math.floor(Math.random() * healthy.length)];
}

/** SENTINEL REPLICAS' entries (flat field/value lists) with a usable address. */
function replicaEntries(reply: unknown): { host: string; port: number; flags: string[]; link: string }[] {
  if (!Array.isArray(reply)) return [];
  return reply
    .map((entry) => {
      const fields = new Map<string, string>();
      if (Array.isArray(entry))
        for (let at = 0; at + 1 < entry.length; at += 2) fields.set(String(entry[at]), String(entry[at + 1]));
      return {
        host: fields.get('ip') ?? '',
        port: Number(fields.get('port')),
        flags: (fields.get('flags') ?? '').split(','),
        link: fields.get('master-link-status') ?? '',
      };
    })
    .filter((node) => node.host !== '' && Number.isInteger(node.port) && node.port > 0 && node.port < 65536);
}

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
    if (role) {
      try {
        const replicas = await assertRole((args) => client.sendCommand(args), `${host}:${port}`, role);
        if (role === 'master') this.noteReplicas(replicas);
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
      const client = createClient({
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
          const confirm = this.replicaConfirmation(commands);
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

  /** Whether the primary had a replica when last looked at (a failover leaves the new primary with none for a while). */
  private primaryHasReplicas = true;
  /** When a batch last asked a primary without replicas whether one has come (at most every REPLICA_RECHECK_MS). */
  private replicasCheckedAt = 0;

  /**
   * What a new connection saw (the primary may be a new one): a primary without replicas gets INFO, not a WAIT
   * that could only time out — and WAIT blocks its connection, so the batches pipelined behind it would each wait too.
   */
  private noteReplicas(replicas: number | undefined): void {
    if (replicas !== undefined) this.primaryHasReplicas = replicas > 0;
  }

  /**
   * Behind Sentinel a failover promotes a replica, and a write the old primary acknowledged but had not yet sent on
   * is lost. So a batch that may write (GRAPH.QUERY, not RO_QUERY) is answered only once a replica has it: WAIT 1
   * within `replicaAckMs`. When none confirms in time, INFO tells why: a primary with connected replicas that did
   * not confirm answers 503 (the write is applied but a failover could undo it); a primary with no replica at all
   * (just after a failover, before the old primary rejoins) has nothing to wait for, and its writes are answered as
   * a single node's, with INFO instead of WAIT in the batch until a replica is back. A user whose ACL refuses WAIT
   * or INFO gets single-node answers (logged once). Off for single nodes and with `replicaAckMs` 0.
   */
  private replicaConfirmation(commands: QueryCommand[]):
    | {
        command: QueryCommand;
        check: (outcome: PromiseSettledResult<RespValue>, connection: QueryConnection) => Promise<void>;
      }
    | undefined {
    const waitMs = this.options.replicaAckMs ?? 0;
    const { sentinel, shardPrimary, host, port } = this.credentials;
    const primary = sentinel
      ? `The primary of ${sentinel.masterName}`
      : shardPrimary
        ? `Shard primary ${host}:${port}`
        : '';
    if (!primary || waitMs <= 0) return undefined;
    if (!commands.some((command) => String(command.args[0]).toUpperCase() === 'GRAPH.QUERY')) return undefined;
    const refused = (outcome: PromiseSettledResult<RespValue>) => {
      if (outcome.status === 'rejected' && isNoPermission(outcome.reason)) {
        this.warnOnce('the database user may not run WAIT or INFO: writes are answered without a replica confirmation');
        return true;
      }
      return false;
    };
    const connectedReplicas = (outcome: PromiseSettledResult<RespValue>) =>
      outcome.status === 'fulfilled' ? Number(/^connected_slaves:(\d+)/m.exec(String(outcome.value))?.[1] ?? 0) : 0;
    if (!this.primaryHasReplicas) {
      // A cluster shard may run without replicas for good: INFO rides along with a write at most once a second,
      // not with every one.
      const now = Date.now();
      if (now - this.replicasCheckedAt < REPLICA_RECHECK_MS) return undefined;
      this.replicasCheckedAt = now;
      return {
        command: { args: ['INFO', 'replication'] },
        check: (outcome) => {
          if (!refused(outcome)) this.primaryHasReplicas = connectedReplicas(outcome) > 0;
          return Promise.resolve();
        },
      };
    }
    return {
      command: { args: ['WAIT', '1', String(waitMs)] },
      check: async (outcome, connection) => {
        if (refused(outcome)) return;
        if (outcome.status === 'fulfilled' && Number(outcome.value) >= 1) return;
        const [info] = await connection.send([{ args: ['INFO', 'replication'] }]);
        if (refused(info!)) return;
        if (connectedReplicas(info!) === 0) {
          this.primaryHasReplicas = false;
          return;
        }
        throw new DatabaseUnavailableError(
          `${primary} applied the write, but no replica confirmed it within ${waitMs} ms: a failover could lose it`,
        );
      },
    };
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
        if (role === 'master') this.noteReplicas(replicas);
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

/**
 * Connections per node of a cluster: half a single node's bound, at least 2. A request fans out to every primary,
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

  /** One node's (or a Sentinel primary's) pool, or, for a sharded cluster, a pool of such pools, one per node. */
  private create(credentials: DbCredentials, options: PoolOptions): DatabasePool {
    const { cluster } = credentials;
    if (!cluster) return new CredentialPool(credentials, options, this.logger);
    return new ClusterPool(
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
