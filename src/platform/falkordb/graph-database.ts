// FalkorDB commands over one credential pool (one file because its callers hold the one GraphDatabase; what a query
// answers is in query-results.ts): queries decoded from the compact protocol, graph key operations,
// configuration and ACL. Every value travels as its own command argument; nothing is concatenated into a command.
import type { DatabasePool, StreamedArgument } from './database-pool.js';
import { GraphNotFoundError, isEmptyKeyReply, ResultTooLargeError } from './database-errors.js';
import { DEFAULT_REPLY_BOUNDS, type QueryCommand } from './query-connection.js';
import { ReplyTooLargeError, type ReplyBounds } from './resp-reader.js';
import {
  columnNames,
  CompactDecoder,
  highestSchemaIds,
  namesCover,
  splitCompactReply,
  type GraphSchemaNames,
} from './compact-reply.js';
import {
  rowsOf,
  statisticsOnly,
  streamOfRows,
  type QueryOutcome,
  type QueryRows,
  type QueryStream,
} from './query-results.js';
import { versionMismatchOf, type VersionedSchemaNames } from './schema-names.js';
import { RowStream } from './row-stream.js';

export { ResultTooLargeError };
export type { QueryOutcome, QueryRows, QueryStream } from './query-results.js';

export interface QueryOptions {
  readOnly?: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Bounds of the result (QUERY_ROWS_MAX, and QUERY_RESULT_BYTES_MAX as bytes of the database's reply): beyond them
   * ResultTooLargeError, no rows, and the reply is not read further.
   */
  maxRows?: number;
  maxBytes?: number;
  /**
   * The query route's rule that reads never create graphs: a query on a graph that did not exist and that changed
   * nothing answers GraphNotFoundError (404), and the empty graph FalkorDB made for it is removed. A write creates
   * the graph as before. Costs nothing on an existing graph: the EXISTS a write-capable query carries is reused,
   * and GRAPH.RO_QUERY answers an error on a missing key by itself.
   */
  missingGraph?: 'not-found';
  /** Rows decoded in the typed value format (every value tagged with its kind; compact-reply.ts). */
  typedValues?: boolean;
}

/** FalkorDB's statistics lines other than these report a change (nodes created, properties set, indices...). */
const UNCHANGED_STATISTICS = /^(Cached execution|Query internal execution time)/;

function changedSomething(statistics: readonly string[]): boolean {
  return statistics.some((line) => !UNCHANGED_STATISTICS.test(line));
}

/** The message names the bound that was enforced (the caller's, or the default of a reply without one). */
function tooLarge({ bound, limit }: ReplyTooLargeError): ResultTooLargeError {
  return new ResultTooLargeError(
    bound === 'rows'
      ? `The result has more than the ${limit} rows allowed: add LIMIT to the query`
      : `The result is larger than the ${limit} bytes allowed: return fewer rows or properties`,
  );
}

/**
 * The query's reply is read within these: its rows by their count in the reply's header, before any row arrives;
 * its bytes as they arrive. Past either the connection is dropped and the rest of the reply never read.
 */
function receiveBounds(options: QueryOptions): ReplyBounds {
  const maxBytes = options.maxBytes ?? DEFAULT_REPLY_BOUNDS.maxBytes;
  return options.maxRows === undefined ? { maxBytes } : { maxBytes, maxRows: options.maxRows };
}

/** Whether the graph existed before the batch: a read cannot create it, and a write's batch starts with EXISTS. */
function existedBefore(settled: PromiseSettledResult<unknown>[], options: QueryOptions): boolean {
  return options.readOnly === true || (settled[0]!.status === 'fulfilled' && Number(settled[0]!.value) === 1);
}

const DELETE_SETTLE_MS = 2000;
/** FalkorDB answers a query past its TIMEOUT with an error; the connection is given this long beyond it to say so. */
const QUERY_REPLY_GRACE_MS = 5000;

/** The pool's wait for a query with a TIMEOUT: that timeout and a grace period (0 is no FalkorDB limit). */
function replyBound(timeoutMs: number | undefined): { timeoutMs?: number } {
  return timeoutMs ? { timeoutMs: timeoutMs + QUERY_REPLY_GRACE_MS } : {};
}
/** GRAPH.QUERY (GRAPH.RO_QUERY when read-only) in the compact protocol, with its TIMEOUT, read within its bounds. */
function queryCommand(graph: string, cypher: string, options: QueryOptions, schemaVersion?: string): QueryCommand {
  const args = [options.readOnly ? 'GRAPH.RO_QUERY' : 'GRAPH.QUERY', graph, cypher, '--compact'];
  if (options.timeoutMs !== undefined) args.push('TIMEOUT', String(options.timeoutMs));
  if (schemaVersion !== undefined) args.push('version', schemaVersion);
  return { args, bounds: receiveBounds(options) };
}

/** In the order GraphSchemaNames lists them: labels, relationship types, property keys. */
const NAME_PROCEDURES = ['db.labels', 'db.relationshipTypes', 'db.propertyKeys'] as const;

/** `CALL db.labels()` and its kind, read-only (it never creates the graph). */
function nameLookup(graph: string, procedure: string): string[] {
  return ['GRAPH.RO_QUERY', graph, `CALL ${procedure}()`, '--compact'];
}

/** The names in a compact reply of a nameLookup, in id order. */
function procedureNamesOf(reply: unknown): string[] {
  const rows = splitCompactReply(reply).rows ?? [];
  return rows.map((row) => String(((row as unknown[])[0] as [unknown, unknown])[1]));
}

export class GraphDatabase {
  constructor(readonly pool: DatabasePool) {}

  ping(): Promise<unknown> {
    return this.pool.send(['PING']);
  }

  private async procedureNames(graph: string, procedure: string, signal?: AbortSignal): Promise<string[]> {
    return procedureNamesOf(await this.pool.send(nameLookup(graph, procedure), { integersAsStrings: true }, signal));
  }

  /**
   * Runs a query; rows are decoded one at a time, as the caller asks for them, and each raw row is released once
   * decoded, so a large result is never held both raw and decoded.
   *
   * The names behind the reply's ids come from the pool's schema-names cache when FalkorDB confirms, in the same
   * command, that the graph's schema is still the version they were read at (schema-names.ts): one command, no
   * lookups. Otherwise (first query on a graph, a changed schema) the query goes with the schema version probe
   * before it and the label, relationship-type and property-key lookups behind it on the same connection (names as
   * of just after the query, so labels it created are there), and the cache is filled. Before a GRAPH.QUERY goes
   * EXISTS: GRAPH.QUERY creates the graph's key before it parses the query, so a query that fails on a graph that
   * did not exist would leave an empty graph behind, a write from a request that was refused; such a leftover is
   * removed.
   */
  async queryRows(graph: string, cypher: string, options: QueryOptions = {}): Promise<QueryRows> {
    const cached = this.pool.schemaNames.get(graph);
    if (cached) {
      const answered = await this.queryAtVersion(graph, cypher, options, cached);
      if (answered) return answered;
    }
    return this.queryWithLookups(graph, cypher, options);
  }

  /** The query at the remembered schema version; undefined when the version no longer matched (it did not run). */
  private async queryAtVersion(
    graph: string,
    cypher: string,
    options: QueryOptions,
    cached: VersionedSchemaNames,
  ): Promise<QueryRows | undefined> {
    const query = queryCommand(graph, cypher, options, cached.version);
    const settled = await this.sendQueries(options.readOnly ? [query] : [{ args: ['EXISTS', graph] }, query], options);
    const existed = existedBefore(settled, options);
    const reply = await this.replyOf(graph, options, settled.at(-1)!, existed);
    if (versionMismatchOf(reply) !== undefined) {
      this.pool.schemaNames.forget(graph);
      // A write to a graph someone else deleted meanwhile may have created its key before the version check.
      if (!existed) await this.dropIfEmpty(graph).catch(() => undefined);
      return undefined;
    }
    const parts = splitCompactReply(reply);
    if (!existed) await this.refuseReadOfMissingGraph(graph, options, parts.statistics);
    if (!parts.header) return statisticsOnly(parts, options.typedValues);
    const rows: unknown[] = parts.rows ?? [];
    let names = cached.names;
    // Ids beyond those remembered were created by this very query (ids only grow): read the names again.
    if (!namesCover(names, highestSchemaIds(rows))) {
      names = await this.allNames(graph, options.signal);
      this.pool.schemaNames.set(graph, { version: cached.version, names });
    }
    return rowsOf(parts.header, parts.statistics, rows, names, options.typedValues);
  }

  private async queryWithLookups(graph: string, cypher: string, options: QueryOptions): Promise<QueryRows> {
    const lookups = NAME_PROCEDURES.map((procedure) => ({ args: nameLookup(graph, procedure) }));
    const versionProbe = { args: ['GRAPH.RO_QUERY', graph, 'RETURN 0', '--compact', 'version', '0'] };
    const query = queryCommand(graph, cypher, options);
    const head = options.readOnly ? [versionProbe] : [{ args: ['EXISTS', graph] }, versionProbe];
    const settled = await this.sendQueries([...head, query, ...lookups], options);
    const [probeOutcome, queryOutcome, ...lookupOutcomes] = settled.slice(head.length - 1);
    const existed = existedBefore(settled, options);
    const reply = await this.replyOf(graph, options, queryOutcome!, existed);
    if (!existed) await this.refuseReadOfMissingGraph(graph, options, splitCompactReply(reply).statistics);
    // The version before the query; a query that changed the schema makes the next one miss and read names again.
    if (probeOutcome!.status === 'fulfilled' && lookupOutcomes.every((outcome) => outcome.status === 'fulfilled')) {
      const [labels, relationshipTypes, propertyKeys] = lookupOutcomes.map((outcome) =>
        procedureNamesOf(outcome.value),
      );
      this.pool.schemaNames.set(graph, {
        version: versionMismatchOf(probeOutcome!.value) ?? '0',
        names: { labels: labels!, relationshipTypes: relationshipTypes!, propertyKeys: propertyKeys! },
      });
    }

    const parts = splitCompactReply(reply);
    if (!parts.header) return statisticsOnly(parts, options.typedValues);
    const rows: unknown[] = parts.rows ?? [];
    // Only the kinds of names the rows use are needed; a lookup that failed is asked again only then.
    const highest = highestSchemaIds(rows);
    const namesOf = async (index: number, needed: boolean): Promise<string[]> => {
      if (!needed) return [];
      const outcome = lookupOutcomes[index]!;
      // A lookup that failed in the batch is asked again on its own, so its error (if any) is the one reported.
      return outcome.status === 'fulfilled'
        ? procedureNamesOf(outcome.value)
        : this.procedureNames(graph, NAME_PROCEDURES[index]!, options.signal);
    };
    const [labels, relationshipTypes, propertyKeys] = await Promise.all([
      namesOf(0, highest.labels >= 0),
      namesOf(1, highest.relationshipTypes >= 0),
      namesOf(2, highest.propertyKeys >= 0),
    ]);
    return rowsOf(
      parts.header,
      parts.statistics,
      rows,
      { labels, relationshipTypes, propertyKeys },
      options.typedValues,
    );
  }

  /**
   * Runs a query whose rows are decoded as the reply arrives: the reply is never held whole, only a window of it
   * (row-stream.ts); a caller that stops taking rows stops the connection reading. The names behind the rows' ids
   * are known before the query is sent (the cache, or the lookups and version probe in a round trip of their own
   * first, since in one batch they would answer after the rows); ids the query itself created are looked up on
   * another connection when a row uses them. Failures before the first row reject; later ones fail batches().
   */
  async queryStream(graph: string, cypher: string, options: QueryOptions = {}): Promise<QueryStream> {
    let cached = this.pool.schemaNames.get(graph) ?? (await this.readSchemaNames(graph, options));
    // A graph whose names could not be read is usually missing: whether the query may create it is known only from
    // its statistics, after its rows, so it runs whole (within the same bounds) and is then handed out as a stream.
    if (cached === undefined && options.missingGraph) return streamOfRows(await this.queryRows(graph, cypher, options));
    const first = await this.startStream(graph, cypher, options, cached, cached?.version);
    if (first !== 'version mismatch') return first;
    this.pool.schemaNames.forget(graph);
    cached = await this.readSchemaNames(graph, options);
    // No version this time: a second change in between must not make it miss again; new ids are looked up.
    const second = await this.startStream(graph, cypher, options, cached, undefined);
    if (second === 'version mismatch') throw new Error('the query was refused for a schema version it did not name');
    return second;
  }

  /** The graph's names with its schema version, in one round trip (remembered); undefined when there is no graph. */
  private async readSchemaNames(graph: string, options: QueryOptions): Promise<VersionedSchemaNames | undefined> {
    const versionProbe = { args: ['GRAPH.RO_QUERY', graph, 'RETURN 0', '--compact', 'version', '0'] };
    const lookups = NAME_PROCEDURES.map((procedure) => ({ args: nameLookup(graph, procedure) }));
    const [probe, ...names] = await this.sendQueries([versionProbe, ...lookups], options);
    if (probe!.status !== 'fulfilled' || names.some((outcome) => outcome.status !== 'fulfilled')) return undefined;
    const [labels, relationshipTypes, propertyKeys] = names.map((outcome) =>
      procedureNamesOf((outcome as PromiseFulfilledResult<unknown>).value),
    );
    const entry = {
      version: versionMismatchOf(probe!.value) ?? '0',
      names: { labels: labels!, relationshipTypes: relationshipTypes!, propertyKeys: propertyKeys! },
    };
    this.pool.schemaNames.set(graph, entry);
    return entry;
  }

  private async startStream(
    graph: string,
    cypher: string,
    options: QueryOptions,
    known: VersionedSchemaNames | undefined,
    version: string | undefined,
  ): Promise<QueryStream | 'version mismatch'> {
    const rows = new RowStream();
    // The caller's signal, or leaving batches() early, drops the connection.
    const abandon = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, abandon.signal]) : abandon.signal;
    const command = queryCommand(graph, cypher, options, version);
    command.bounds = { ...command.bounds!, rows };
    const batch = options.readOnly ? [command] : [{ args: ['EXISTS', graph] }, command];
    const sent = this.sendQueries(batch, { ...options, signal });
    let statistics: string[] = [];
    // Settles at the end of the reply: the rows' end, or the failure the reader of the rows hears.
    sent.then(
      (settled) => {
        const outcome = settled.at(-1)!;
        if (outcome.status === 'fulfilled') statistics = splitCompactReply(outcome.value).statistics;
        rows.end();
      },
      (error: unknown) => rows.fail(error),
    );
    const begun = await Promise.race([rows.started.then(() => true), sent.then(() => false)]);
    if (!begun) {
      const settled = await sent;
      const existed = existedBefore(settled, options);
      const reply = await this.replyOf(graph, options, settled.at(-1)!, existed);
      if (versionMismatchOf(reply) !== undefined) {
        if (!existed) await this.dropIfEmpty(graph).catch(() => undefined);
        return 'version mismatch';
      }
      // A statement without columns (`[statistics]`), or a result set without rows.
      const parts = splitCompactReply(reply);
      if (!existed) await this.refuseReadOfMissingGraph(graph, options, parts.statistics);
      return {
        hasColumns: parts.header !== undefined,
        columns: parts.header ? columnNames(parts.header) : [],
        rowCount: 0,
        ...(options.typedValues ? { typed: true } : {}),
        batches: async function* () {},
        statistics: () => parts.statistics,
      };
    }
    let names: GraphSchemaNames = known?.names ?? { labels: [], relationshipTypes: [], propertyKeys: [] };
    const readNames = () => this.allNames(graph, options.signal);
    return {
      hasColumns: true,
      columns: columnNames(rows.header),
      rowCount: rows.count,
      ...(options.typedValues ? { typed: true } : {}),
      async *batches(keep = Number.POSITIVE_INFINITY) {
        // Rows that arrived before this call may be past `keep` already: those are cut here.
        rows.keep = keep;
        let left = keep;
        let decoder = new CompactDecoder(names, options.typedValues);
        try {
          for (;;) {
            let raw = await rows.take();
            if (raw === undefined) return;
            if (raw.length > left) raw = raw.slice(0, left);
            left -= raw.length;
            if (raw.length === 0) continue;
            // Ids beyond the names held were created by this very query (ids only grow): read the names again.
            if (!namesCover(names, highestSchemaIds(raw))) {
              names = await readNames();
              decoder = new CompactDecoder(names, options.typedValues);
            }
            yield raw.map((row) => decoder.values(row));
          }
        } finally {
          if (!rows.done) abandon.abort();
        }
      },
      statistics: () => statistics,
    };
  }

  /** Every name of the graph's schema, in one round trip. */
  private async allNames(graph: string, signal?: AbortSignal): Promise<GraphSchemaNames> {
    const [labels, relationshipTypes, propertyKeys] = await Promise.all(
      NAME_PROCEDURES.map((procedure) => this.procedureNames(graph, procedure, signal)),
    );
    return { labels: labels!, relationshipTypes: relationshipTypes!, propertyKeys: propertyKeys! };
  }

  /**
   * Runs a statement whose rows nobody reads (a batch's): no name lookups, the reply still read within the bounds.
   * Answers the statistics. Like queryRows, a failure on a graph that did not exist leaves no empty graph behind.
   */
  async execute(graph: string, cypher: string, options: QueryOptions = {}): Promise<string[]> {
    const [existence, outcome] = await this.sendQueries(
      [{ args: ['EXISTS', graph] }, queryCommand(graph, cypher, options)],
      options,
    );
    if (outcome!.status === 'rejected') {
      if (!(existence!.status === 'fulfilled' && Number(existence!.value) === 1))
        await this.dropIfEmpty(graph).catch(() => undefined);
      throw outcome!.reason;
    }
    return splitCompactReply(outcome!.value).statistics;
  }

  /** Sends a batch on a query connection within the query's deadline and signal; a reply past its bounds is refused. */
  private async sendQueries(batch: QueryCommand[], options: QueryOptions): Promise<PromiseSettledResult<unknown>[]> {
    try {
      return await this.pool.sendQueries(batch, replyBound(options.timeoutMs), options.signal);
    } catch (error) {
      if (error instanceof ReplyTooLargeError) throw tooLarge(error);
      throw error;
    }
  }

  /** GRAPH.RO_QUERY's error on a missing key, as GraphNotFoundError when the caller asked for it; else the error. */
  private missingGraphError(graph: string, options: QueryOptions, error: unknown): unknown {
    return options.missingGraph && isEmptyKeyReply(error) ? new GraphNotFoundError(graph) : error;
  }

  /**
   * The query's reply; a refused query throws the graph's error, after dropping the empty graph a failed write to a
   * graph that did not exist left behind.
   */
  private async replyOf(
    graph: string,
    options: QueryOptions,
    outcome: PromiseSettledResult<unknown>,
    existed: boolean,
  ): Promise<unknown> {
    if (outcome.status === 'fulfilled') return outcome.value;
    if (!existed) await this.dropIfEmpty(graph).catch(() => undefined);
    throw this.missingGraphError(graph, options, outcome.reason);
  }

  /** A query that changed nothing on a graph that did not exist: the graph FalkorDB made for it goes, and 404. */
  private async refuseReadOfMissingGraph(graph: string, options: QueryOptions, statistics: string[]): Promise<void> {
    if (!options.missingGraph || changedSomething(statistics)) return;
    this.pool.schemaNames.forget(graph);
    await this.dropIfEmpty(graph).catch(() => undefined);
    throw new GraphNotFoundError(graph);
  }

  /** Deletes `graph` only when it holds no node (another client may have filled it meanwhile). */
  private async dropIfEmpty(graph: string): Promise<void> {
    const reply = await this.pool.send(['GRAPH.RO_QUERY', graph, 'MATCH (n) RETURN count(n)', '--compact'], {
      integersAsStrings: true,
    });
    const count = (splitCompactReply(reply).rows?.[0] as [[unknown, unknown]] | undefined)?.[0]?.[1];
    if (Number(count) === 0) await this.deleteGraph(graph);
  }

  /** Runs a query and decodes its whole result. */
  async query(graph: string, cypher: string, options: QueryOptions = {}): Promise<QueryOutcome> {
    const result = await this.queryRows(graph, cypher, options);
    if (!result.hasColumns) return { metadata: result.metadata, statistics: result.statistics };
    return {
      metadata: result.metadata,
      data: Array.from({ length: result.rowCount }, (_, index) => result.takeRow(index)),
      statistics: result.statistics,
    };
  }

  /** Every graph; in a sharded cluster, each primary's, in shard order (a graph lives on one shard only). */
  async listGraphs(): Promise<string[]> {
    const lists = await this.pool.sendToEveryPrimary<string[]>(['GRAPH.LIST']);
    return lists.length === 1 ? lists[0]! : [...new Set(lists.flat())];
  }

  /** Whether the two graphs can be copied or renamed into each other (in a cluster, only within one hash slot). */
  sameSlot(first: string, second: string): boolean {
    return this.pool.sameSlot(first, second);
  }

  /** True when `graph` names an existing graph (a missing key or another kind of key is not one). */
  async graphExists(graph: string): Promise<boolean> {
    return (await this.listGraphs()).includes(graph);
  }

  /** GRAPH.DELETE can answer before the key is gone (seen in CI under load): this resolves once listings agree. */
  async deleteGraph(graph: string): Promise<void> {
    await this.pool.send(['GRAPH.DELETE', graph]);
    const deadline = Date.now() + DELETE_SETTLE_MS;
    while ((await this.graphExists(graph)) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 25));
  }

  /**
   * Whether `graph` names a key of the keyspace (of any type); GRAPH.LIST also names graphs whose key is already
   * gone and which FalkorDB has not yet let go of (restoreTarget).
   */
  async keyExists(graph: string): Promise<boolean> {
    return Number(await this.pool.send(['EXISTS', graph])) === 1;
  }

  /**
   * Whether a dump whose origin is `graph` can be restored now (docs/decisions/restore-after-async-delete.md).
   * FalkorDB decodes a dump into the graph its registry holds under the dump's origin name, and a graph deleted just
   * before stays in that registry, its key already gone, until a background thread lets go of it: a RESTORE then
   * crashes the server. So a restore may go ahead only when no data node (replicas too: they replay the delete and
   * the restore in turn) lists the name in GRAPH.LIST, which reads that registry. 'free': no node lists it and no
   * key holds it; 'exists': a key holds it; 'freeing': its key is gone but a node still listed it at `deadlineMs`.
   * Load only delays the answer: the check is of the registry itself, not of a time or a memory figure.
   */
  async restoreTarget(graph: string, deadlineMs: number, intervalMs = 25): Promise<'free' | 'exists' | 'freeing'> {
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      if (await this.keyExists(graph)) return 'exists';
      const lists = await this.pool.askEveryNode<string[]>(['GRAPH.LIST']);
      if (!lists.some((names) => names.includes(graph))) return 'free';
      if (Date.now() >= deadline) return 'freeing';
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }

  copyGraph(source: string, target: string): Promise<unknown> {
    return this.pool.send(['GRAPH.COPY', source, target]);
  }

  /** RENAMENX: 1 when renamed, 0 when the target exists. */
  renameGraph(source: string, target: string): Promise<number> {
    return this.pool.send<number>(['RENAMENX', source, target]);
  }

  /**
   * RESTORE of a DUMP into a new key (fails with BUSYKEY when the key exists). The dump streams from `dump` to the
   * socket as it is read, never held whole.
   */
  restore(graph: string, dump: StreamedArgument): Promise<unknown> {
    return this.pool.sendStreamed(['RESTORE', graph, '0'], dump);
  }

  dump(graph: string): Promise<Buffer | null> {
    return this.pool.send<Buffer | null>(['DUMP', graph], { binary: true });
  }

  explain(graph: string, cypher: string): Promise<string[]> {
    return this.pool.send<string[]>(['GRAPH.EXPLAIN', graph, cypher]);
  }

  profile(graph: string, cypher: string, timeoutMs?: number): Promise<string[]> {
    const args = ['GRAPH.PROFILE', graph, cypher];
    if (timeoutMs !== undefined) args.push('TIMEOUT', String(timeoutMs));
    return this.pool.send<string[]>(args, replyBound(timeoutMs));
  }

  configGet(name: string): Promise<unknown[]> {
    return this.pool.send<unknown[]>(['GRAPH.CONFIG', 'GET', name]);
  }

  /** On every data node of a Sentinel or cluster deployment (a replica promoted later must run with the same settings). */
  configSet(name: string, value: string): Promise<unknown> {
    return this.pool.sendToEveryNode(['GRAPH.CONFIG', 'SET', name, value]);
  }

  aclGetUser(username: string): Promise<unknown[] | null> {
    return this.pool.send<unknown[] | null>(['ACL', 'GETUSER', username]);
  }

  /** `ACL LIST`: one line per user, `user <name> <flags and rules…>`. */
  aclList(): Promise<string[]> {
    return this.pool.send<string[]>(['ACL', 'LIST']);
  }

  aclUsers(): Promise<string[]> {
    return this.pool.send<string[]>(['ACL', 'USERS']);
  }

  /** ACL is not replicated: on every data node of a Sentinel or cluster deployment, so a failover keeps the user. */
  aclSetUser(username: string, rules: string[]): Promise<unknown> {
    return this.pool.sendToEveryNode(['ACL', 'SETUSER', username, ...rules]);
  }

  aclDelUsers(usernames: string[]): Promise<number> {
    return this.pool.sendToEveryNode<number>(['ACL', 'DELUSER', ...usernames]);
  }

  /**
   * Writes the users to the server's ACL file, so they survive its restart. A server started without an ACL file
   * (most external ones: their users come from their own configuration) has nothing to save to: `no-acl-file`.
   */
  async aclSave(): Promise<'saved' | 'no-acl-file'> {
    try {
      await this.pool.sendToEveryNode(['ACL', 'SAVE']);
      return 'saved';
    } catch (error) {
      if (/not configured to use an ACL file/i.test((error as Error).message)) return 'no-acl-file';
      throw error;
    }
  }

  /** Sends GRAPH.QUERY without arguments; only the kind of error it provokes matters (role detection). */
  probeGraphQuery(): Promise<unknown> {
    return this.pool.send(['GRAPH.QUERY']);
  }
}
