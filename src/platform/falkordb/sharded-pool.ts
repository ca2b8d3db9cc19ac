// A sharded FalkorDB deployment (Redis Cluster protocol) behind one token: each graph is a key, served by the primary
// of the key's hash slot. The slot map comes from CLUSTER SLOTS, asked of the seed nodes (then of the primaries it
// named) and asked again whenever a node answers MOVED; ASK (a slot being migrated) is followed for the one command.
// Each node gets its own CredentialPool, so every address dialled passes the same DATABASE_HOSTS check as a token's.
import type { PlatformLogger as Logger } from '../logger.js';
import { PortError } from '../port-errors.js';
import {
  keySlot,
  nodeAddress,
  parseClusterSlots,
  redirectionOf,
  routingKey,
  type ClusterMap,
  type ClusterNode,
  type Redirection,
} from '../../lib/cluster-slots.js';
import type {
  ShardedTopology,
  CommandArgument,
  DatabasePool,
  DbCredentials,
  NodePool,
  SendOptions,
  StreamedArgument,
  TopologyDescription,
} from './database-pool.js';
import { DatabaseReplyError, DatabaseUnavailableError } from './database-errors.js';
import type { QueryCommand } from './query-connection.js';
import type { RespValue } from './resp-reader.js';
import { SchemaNamesCache } from './schema-names.js';
import { TargetRefusedError } from './target-guard.js';

/** More redirections than this for one command is a sharded database in flux (or a loop): the caller gets 503. */
const MAX_REDIRECTIONS = 5;
/** Longest wait for one node's answer to CLUSTER SLOTS or to a command sent to every node. */
const NODE_COMMAND_MS = 5000;
/** At most one refresh of the slot map in this interval after a MOVED (a migration sends many). */
const REFRESH_INTERVAL_MS = 1000;

/**
 * A command applied on some nodes of the sharded database and not on others. The message names the nodes that failed and
 * why, so the caller can repeat the request (the commands sent to every node are idempotent).
 */
export class NotOnEveryNodeError extends PortError {
  constructor(message: string) {
    super('unavailable', message);
    this.name = 'NotOnEveryNodeError';
  }
}

/** The cluster user lacks CLUSTER SLOTS: no slot map, so no routing. Says what to grant. */
export class SlotMapRefusedError extends PortError {
  constructor() {
    super(
      'forbidden',
      'The database user may not run CLUSTER SLOTS, which a cluster token needs to find the shards: grant +cluster|slots',
    );
    this.name = 'SlotMapRefusedError';
  }
}

const isNoPermission = (error: unknown) => /^NOPERM\b/.test((error as Error | undefined)?.message ?? '');

/** A node refused ASKING: without it a slot being migrated cannot be served. Says what to grant. */
function askingRefused(error: unknown): never {
  if (isNoPermission(error))
    throw new PortError(
      'forbidden',
      'The graph is being moved between shards, and the database user may not run ASKING to reach it there: grant +asking',
    );
  throw error;
}

function redirectionIn(error: unknown): Redirection | undefined {
  return error instanceof DatabaseReplyError ? redirectionOf(error.message) : undefined;
}

/** Commands sent to every primary that only read, so they may be sent again after a failover. */
const READ_ONLY_FAN_OUT = new Set(['GRAPH.LIST', 'GRAPH.INFO']);

/** A batch command that changes data: it must not run twice when the rest of its batch is redirected. */
const writes = (command: QueryCommand) => String(command.args[0]).toUpperCase() === 'GRAPH.QUERY';

export class ShardedPool implements DatabasePool {
  readonly schemaNames = new SchemaNamesCache();
  private readonly nodes = new Map<string, NodePool>();
  private map: ClusterMap | undefined;
  private loading: Promise<ClusterMap> | undefined;
  private lastRefresh = 0;
  private closed = false;

  constructor(
    private readonly credentials: DbCredentials & { cluster: ShardedTopology },
    private readonly nodePoolFor: (credentials: DbCredentials) => NodePool,
    private readonly logger: Logger,
  ) {}

  get size(): number {
    let size = 0;
    for (const pool of this.nodes.values()) size += pool.size;
    return size;
  }

  get idleSince(): number {
    let latest = 0;
    for (const pool of this.nodes.values()) latest = Math.max(latest, pool.idleSince);
    return latest || Date.now();
  }

  /**
   * The node's pool: the token's credentials at the node's address. A primary's pool checks the node is still one
   * when it connects and waits for a replica to confirm writes (as behind Sentinel: a failover must not undo an
   * answered write); a replica's (reached for users and configuration) does neither. One pool per node and role, so a
   * replica promoted by a failover gets a primary's pool.
   */
  private nodePool(node: ClusterNode, primary = true): NodePool {
    if (this.closed) throw new DatabaseUnavailableError('the connection pool is closed');
    const key = `${nodeAddress(node)} ${primary ? 'primary' : 'replica'}`;
    let pool = this.nodes.get(key);
    if (!pool) {
      const { username, password, tls, ca } = this.credentials;
      pool = this.nodePoolFor({
        host: node.host,
        port: node.port,
        username,
        password,
        tls,
        ca,
        ...(primary ? { shardPrimary: true } : {}),
      });
      this.nodes.set(key, pool);
    }
    return pool;
  }

  /** The slot map, asked for once by concurrent first callers. */
  private async slotMap(): Promise<ClusterMap> {
    if (this.map) return this.map;
    return this.refresh();
  }

  private refresh(): Promise<ClusterMap> {
    this.loading ??= this.discover()
      .then((map) => {
        this.map = map;
        this.lastRefresh = Date.now();
        return map;
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }

  /** After a MOVED: the whole map is read again (a resharding moves many slots), at most once a second. */
  private refreshSoon(): void {
    if (Date.now() - this.lastRefresh < REFRESH_INTERVAL_MS) return;
    this.lastRefresh = Date.now();
    this.refresh().catch((error: unknown) =>
      this.logger.debug({ err: { message: (error as Error).message } }, 'cluster slot map refresh failed'),
    );
  }

  /**
   * CLUSTER SLOTS from the first node that answers: the primaries of the map held (they know the newest layout),
   * then the seeds. A user refused the command cannot use the sharded database at all: that is said, not retried elsewhere.
   */
  private async discover(): Promise<ClusterMap> {
    const candidates = [...(this.map?.primaries ?? []), ...this.credentials.cluster.seeds];
    const asked = new Set<string>();
    const failures: string[] = [];
    for (const node of candidates) {
      const key = nodeAddress(node);
      if (asked.has(key)) continue;
      asked.add(key);
      try {
        // Any node can tell the map, a replica too: no role check here.
        const reply = await this.nodePool(node, false).send(['CLUSTER', 'SLOTS'], { timeoutMs: NODE_COMMAND_MS });
        return parseClusterSlots(reply, node.host);
      } catch (error) {
        if (isNoPermission(error)) throw new SlotMapRefusedError();
        // Wrong credentials are wrong on every node; a node outside DATABASE_HOSTS is refused, not skipped.
        if (error instanceof TargetRefusedError || (error instanceof PortError && error.kind === 'unauthenticated'))
          throw error;
        failures.push(`${key}: ${(error as Error).message}`);
      }
    }
    throw new DatabaseUnavailableError('no node of the cluster answered CLUSTER SLOTS', {
      cause: new Error(failures.join('; ')),
    });
  }

  /** The primary serving `key`'s slot; a command about no key goes to the first primary. */
  private async nodeFor(key: string | Buffer | undefined): Promise<ClusterNode> {
    const map = await this.slotMap();
    if (key === undefined) return map.primaries[0]!;
    const index = map.slots[keySlot(key)]!;
    if (index < 0) throw new DatabaseUnavailableError(`no node of the cluster serves slot ${keySlot(key)}`);
    return map.primaries[index]!;
  }

  /**
   * Runs `attempt` on the node serving `key`, following MOVED (the slot map is read again) and ASK (the next
   * attempt is told to send ASKING first) up to MAX_REDIRECTIONS times. A node that cannot be reached may have
   * failed over: the map is read again for the next request.
   */
  private async routed<T>(
    key: string | Buffer | undefined,
    attempt: (pool: NodePool, asking: boolean) => Promise<T>,
  ): Promise<T> {
    let node = await this.nodeFor(key);
    let asking = false;
    for (let redirections = 0; ; redirections++) {
      try {
        return await attempt(this.nodePool(node), asking);
      } catch (error) {
        const redirection = redirectionIn(error);
        if (!redirection) {
          if (error instanceof PortError && (error.kind === 'unavailable' || error.kind === 'timeout'))
            this.refreshSoon();
          throw error;
        }
        if (redirections >= MAX_REDIRECTIONS)
          throw new DatabaseUnavailableError(`the cluster redirected a command ${MAX_REDIRECTIONS} times`);
        const target = { ...redirection.node, host: redirection.node.host || node.host };
        if (redirection.kind === 'MOVED') this.refreshSoon();
        node = target;
        asking = redirection.kind === 'ASK';
      }
    }
  }

  send<T = unknown>(args: CommandArgument[], options: SendOptions = {}, signal?: AbortSignal): Promise<T> {
    return this.routed(routingKey(args) ?? options.routeKey, (pool, asking) =>
      asking ? pool.sendAsking<T>(args, options, signal).catch(askingRefused) : pool.send<T>(args, options, signal),
    );
  }

  /** On the node serving the command's key; a slot being migrated (ASK) is refused, to be tried again. */
  sendStreamed(
    args: CommandArgument[],
    body: StreamedArgument,
    options: Pick<SendOptions, 'timeoutMs'> = {},
    signal?: AbortSignal,
  ): Promise<RespValue> {
    return this.routed(routingKey(args), (pool, asking) =>
      asking
        ? Promise.reject(new DatabaseUnavailableError('the graph is being moved between shards: try again shortly'))
        : pool.sendStreamed(args, body, options, signal),
    );
  }

  /**
   * A batch (every command about one graph) on the node serving the graph. A redirection of the batch is followed
   * when no write in it ran: a slot can move between two commands of a batch, and a write that ran on the old node
   * must not run again on the new one (503 then: the caller may check and repeat).
   */
  sendQueries(
    commands: QueryCommand[],
    options: Pick<SendOptions, 'timeoutMs'> = {},
    signal?: AbortSignal,
  ): Promise<PromiseSettledResult<RespValue>[]> {
    const key = commands.map((command) => routingKey(command.args)).find((found) => found !== undefined);
    return this.routed(key, async (pool, asking) => {
      const batch = asking ? commands.flatMap((command) => [{ args: ['ASKING'] }, command]) : commands;
      let outcomes = await pool.sendQueries(batch, options, signal);
      if (asking) {
        const refused = outcomes.find((outcome, index) => index % 2 === 0 && outcome.status === 'rejected');
        if (refused) askingRefused((refused as PromiseRejectedResult).reason);
        outcomes = outcomes.filter((_outcome, index) => index % 2 === 1);
      }
      const redirected = (outcome: PromiseSettledResult<RespValue>) =>
        outcome.status === 'rejected' && redirectionIn(outcome.reason) !== undefined;
      const first = outcomes.find(redirected);
      if (!first) return outcomes;
      if (commands.some((command, index) => writes(command) && !redirected(outcomes[index]!)))
        throw new DatabaseUnavailableError('the graph moved to another shard while its query ran');
      throw (first as PromiseRejectedResult).reason;
    });
  }

  /**
   * Every primary and replica of the map, at once. The first primary's answer is returned. When some fail, the
   * others keep the change and the caller is told which did not (NotOnEveryNodeError, 503); when every node refuses
   * with the same reply (NOPERM, no ACL file), that reply is the answer.
   */
  async sendToEveryNode<T = unknown>(args: CommandArgument[]): Promise<T> {
    const map = await this.slotMap();
    const nodes = [...map.primaries, ...map.replicas];
    const outcomes = await Promise.allSettled(
      nodes.map((node, index) =>
        this.nodePool(node, index < map.primaries.length).send<T>(args, { timeoutMs: NODE_COMMAND_MS }),
      ),
    );
    const failed = outcomes.flatMap((outcome, index) =>
      outcome.status === 'rejected' ? [{ node: nodes[index]!, reason: outcome.reason as Error }] : [],
    );
    if (failed.length === 0) return (outcomes[0] as PromiseFulfilledResult<T>).value;
    const [firstFailure] = failed;
    if (
      failed.length === nodes.length &&
      firstFailure!.reason instanceof DatabaseReplyError &&
      failed.every(({ reason }) => reason.message === firstFailure!.reason.message)
    )
      throw firstFailure!.reason;
    const reasons = failed.map(
      ({ node, reason }) =>
        `${nodeAddress(node)} (${reason instanceof DatabaseUnavailableError ? reason.detail : reason.message})`,
    );
    throw new NotOnEveryNodeError(
      `Applied on ${nodes.length - failed.length} of ${nodes.length} cluster nodes; not on ${reasons.join(', ')}. Repeat the request once they are back.`,
    );
  }

  /** Every primary and replica of the slot map; the first node that cannot answer fails the call. */
  async askEveryNode<T = unknown>(args: CommandArgument[]): Promise<T[]> {
    const map = await this.slotMap();
    return Promise.all(
      [...map.primaries, ...map.replicas].map((node, index) =>
        this.nodePool(node, index < map.primaries.length).send<T>(args, { timeoutMs: NODE_COMMAND_MS }),
      ),
    );
  }

  /**
   * Each primary's answer. A primary that cannot be reached may have failed over: the map is read again, and a
   * command that only reads (GRAPH.LIST, GRAPH.INFO) is sent once more to the primaries it names; a write (UDF
   * libraries) is not repeated on the nodes that already have it — the caller hears of the failure.
   */
  async sendToEveryPrimary<T = unknown>(args: CommandArgument[]): Promise<T[]> {
    const onEach = (map: ClusterMap) => Promise.all(map.primaries.map((node) => this.nodePool(node).send<T>(args)));
    try {
      return await onEach(await this.slotMap());
    } catch (error) {
      if (!(error instanceof PortError && (error.kind === 'unavailable' || error.kind === 'timeout'))) throw error;
      const map = await this.refresh();
      if (!READ_ONLY_FAN_OUT.has(String(args[0]).toUpperCase())) throw error;
      return onEach(map);
    }
  }

  sameSlot(first: string, second: string): boolean {
    return keySlot(first) === keySlot(second);
  }

  async describe(): Promise<TopologyDescription> {
    const { primaries, replicasOf } = await this.slotMap();
    return {
      topology: 'cluster',
      shards: primaries.map((primary, index) => ({
        primary: nodeAddress(primary),
        replicas: replicasOf[index]!.map(nodeAddress),
      })),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const pools = [...this.nodes.values()];
    this.nodes.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }
}
