// Replica confirmation: a node dialled for a role must have it (a failover may have demoted the primary), and a
// write to a primary that has replicas is answered once one of them confirms it (WAIT), so a failover cannot lose it.
import { DatabaseReplyError, DatabaseUnavailableError } from './database-errors.js';
import type { DbCredentials } from './database-pool.js';
import type { QueryCommand, QueryConnection } from './query-connection.js';
import type { RespValue } from './resp-reader.js';

/** A reply error saying the node is a replica (after a failover demoted the primary we were connected to). */
export function isReadOnlyReply(error: unknown): boolean {
  return error instanceof DatabaseReplyError && /^READONLY\b/.test(error.message);
}

/** A reply error saying the user may not run the command (ACL). */
const isNoPermission = (error: unknown) => /^NOPERM\b/.test((error as Error | undefined)?.message ?? '');

export type NodeRole = 'master' | 'slave';

/**
 * The node the sentinels named must have the role they named (a primary that is now a replica, or a sentinel, is
 * not what was asked for): INFO replication's `role:` line, which also counts a primary's connected replicas, or
 * ROLE's first element for a user without INFO. A user allowed neither is trusted to the sentinels' answer. Returns
 * the replica count when INFO told it.
 */
export async function assertRole(
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

/** One pool's replica confirmation: what its primary last said about its replicas, and the command a batch adds. */
export class ReplicaConfirmation {
  /** Whether the primary had a replica when last looked at (a failover leaves the new primary with none for a while). */
  private primaryHasReplicas = true;
  /** When a batch last asked a primary without replicas whether one has come (at most every REPLICA_RECHECK_MS). */
  private replicasCheckedAt = 0;

  constructor(
    private readonly credentials: Pick<DbCredentials, 'sentinel' | 'shardPrimary' | 'host' | 'port'>,
    /** PoolOptions.replicaAckMs (0: writes are answered at once). */
    private readonly waitMs: number,
    /** Logs the message once per pool. */
    private readonly warnOnce: (message: string) => void,
  ) {}

  /**
   * What a new connection saw (the primary may be a new one): a primary without replicas gets INFO, not a WAIT
   * that could only time out — and WAIT blocks its connection, so the batches pipelined behind it would each wait too.
   */
  noteReplicas(replicas: number | undefined): void {
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
  forBatch(commands: QueryCommand[]):
    | {
        command: QueryCommand;
        check: (outcome: PromiseSettledResult<RespValue>, connection: QueryConnection) => Promise<void>;
      }
    | undefined {
    const { waitMs } = this;
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
}
