// FalkorDB commands over one credential pool: queries decoded from the compact protocol, graph key operations,
// configuration and ACL. Every value travels as its own command argument; nothing is concatenated into a command.
import { isReplyError, type CredentialPool } from './connection-pools.js';
import { columnNames, CompactDecoder, scanSchemaNeeds, splitCompactReply, type GraphSchemaNames, type JsonValue, type ResultSet } from './compact-reply.js';

export interface QueryOptions {
  readOnly?: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface QueryOutcome extends ResultSet {
  statistics: string[];
}

/** A query's result whose rows are decoded on demand, each exactly once, in any order. */
export interface QueryRows {
  metadata: string[];
  statistics: string[];
  /** False for a query that returns no columns at all (only statistics). */
  hasColumns: boolean;
  rowCount: number;
  takeRow(index: number): Record<string, JsonValue>;
}

const noRows = (): never => {
  throw new Error('the query returned no rows');
};

const DELETE_SETTLE_MS = 2000;
const EMPTY_NAMES: GraphSchemaNames = { labels: [], relationshipTypes: [], propertyKeys: [] };

export class GraphDatabase {
  constructor(readonly pool: CredentialPool) {}

  ping(): Promise<unknown> {
    return this.pool.send(['PING']);
  }

  private async procedureNames(graph: string, procedure: string, signal?: AbortSignal): Promise<string[]> {
    const reply = await this.pool.send(['GRAPH.RO_QUERY', graph, `CALL ${procedure}()`, '--compact'], { integersAsStrings: true }, signal);
    const rows = splitCompactReply(reply).rows ?? [];
    return rows.map((row) => String(((row as unknown[])[0] as [unknown, unknown])[1]));
  }

  /**
   * Runs a query; rows are decoded one at a time, as the caller asks for them, and each raw row is released once
   * decoded, so a large result is never held both raw and decoded. Label, type and key names are fetched only
   * when the rows need them.
   */
  async queryRows(graph: string, cypher: string, options: QueryOptions = {}): Promise<QueryRows> {
    const args = [options.readOnly ? 'GRAPH.RO_QUERY' : 'GRAPH.QUERY', graph, cypher, '--compact'];
    if (options.timeoutMs !== undefined) args.push('TIMEOUT', String(options.timeoutMs));
    const reply = options.readOnly ? await this.pool.send(args, { integersAsStrings: true }, options.signal) : await this.writeQuery(graph, args, options.signal);
    const parts = splitCompactReply(reply);
    if (!parts.header) return { metadata: parts.statistics, statistics: parts.statistics, hasColumns: false, rowCount: 0, takeRow: noRows };
    // A taken row is set to undefined (compact replies never hold undefined) so the raw reply can be collected as it goes.
    const rows: unknown[] = parts.rows ?? [];
    const needs = scanSchemaNeeds(rows);
    const [labels, relationshipTypes, propertyKeys] = await Promise.all([
      needs.labels ? this.procedureNames(graph, 'db.labels', options.signal) : EMPTY_NAMES.labels,
      needs.relationshipTypes ? this.procedureNames(graph, 'db.relationshipTypes', options.signal) : EMPTY_NAMES.relationshipTypes,
      needs.propertyKeys ? this.procedureNames(graph, 'db.propertyKeys', options.signal) : EMPTY_NAMES.propertyKeys,
    ]);
    const decoder = new CompactDecoder({ labels, relationshipTypes, propertyKeys });
    const columns = columnNames(parts.header);
    return {
      metadata: parts.statistics,
      statistics: parts.statistics,
      hasColumns: true,
      rowCount: rows.length,
      takeRow(index) {
        const row = rows[index];
        if (row === undefined) throw new Error(`row ${index} was already taken`);
        rows[index] = undefined;
        return decoder.row(columns, row);
      },
    };
  }

  /**
   * GRAPH.QUERY creates the graph's key before it parses the query, so a query that fails on a graph that did not
   * exist would leave an empty graph behind: a write from a request that was refused. Whether the graph existed
   * is asked in the same round trip, and such a leftover is removed.
   */
  private async writeQuery(graph: string, args: string[], signal?: AbortSignal): Promise<unknown> {
    let existed: boolean | undefined;
    try {
      return await this.pool.send(args, { integersAsStrings: true, precededBy: ['EXISTS', graph], onPrecedingReply: (reply) => (existed = Number(reply) === 1) }, signal);
    } catch (error) {
      if (existed === false && isReplyError(error)) await this.dropIfEmpty(graph).catch(() => undefined);
      throw error;
    }
  }

  /** Deletes `graph` only when it holds no node (another client may have filled it meanwhile). */
  private async dropIfEmpty(graph: string): Promise<void> {
    const reply = await this.pool.send(['GRAPH.RO_QUERY', graph, 'MATCH (n) RETURN count(n)', '--compact'], { integersAsStrings: true });
    const count = (splitCompactReply(reply).rows?.[0] as [[unknown, unknown]] | undefined)?.[0]?.[1];
    if (Number(count) === 0) await this.deleteGraph(graph);
  }

  /** Runs a query and decodes its whole result. */
  async query(graph: string, cypher: string, options: QueryOptions = {}): Promise<QueryOutcome> {
    const result = await this.queryRows(graph, cypher, options);
    if (!result.hasColumns) return { metadata: result.metadata, statistics: result.statistics };
    return { metadata: result.metadata, data: Array.from({ length: result.rowCount }, (_, index) => result.takeRow(index)), statistics: result.statistics };
  }

  listGraphs(): Promise<string[]> {
    return this.pool.send<string[]>(['GRAPH.LIST']);
  }

  /** True when `graph` names an existing graph (a missing key or another kind of key is not one). */
  async graphExists(graph: string): Promise<boolean> {
    return (await this.listGraphs()).includes(graph);
  }

  /** GRAPH.DELETE can answer before the key is gone (seen in CI under load): this resolves once listings agree. */
  async deleteGraph(graph: string): Promise<void> {
    await this.pool.send(['GRAPH.DELETE', graph]);
    const deadline = Date.now() + DELETE_SETTLE_MS;
    while ((await this.graphExists(graph)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
  }

  copyGraph(source: string, target: string): Promise<unknown> {
    return this.pool.send(['GRAPH.COPY', source, target]);
  }

  /** RENAMENX: 1 when renamed, 0 when the target exists. */
  renameGraph(source: string, target: string): Promise<number> {
    return this.pool.send<number>(['RENAMENX', source, target]);
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
    return this.pool.send<string[]>(args);
  }

  configGet(name: string): Promise<unknown[]> {
    return this.pool.send<unknown[]>(['GRAPH.CONFIG', 'GET', name]);
  }

  configSet(name: string, value: string): Promise<unknown> {
    return this.pool.send(['GRAPH.CONFIG', 'SET', name, value]);
  }

  aclGetUser(username: string): Promise<unknown[] | null> {
    return this.pool.send<unknown[] | null>(['ACL', 'GETUSER', username]);
  }

  aclUsers(): Promise<string[]> {
    return this.pool.send<string[]>(['ACL', 'USERS']);
  }

  aclSetUser(username: string, rules: string[]): Promise<unknown> {
    return this.pool.send(['ACL', 'SETUSER', username, ...rules]);
  }

  aclDelUsers(usernames: string[]): Promise<number> {
    return this.pool.send<number>(['ACL', 'DELUSER', ...usernames]);
  }

  /** Sends GRAPH.QUERY without arguments; only the kind of error it provokes matters (role detection). */
  probeGraphQuery(): Promise<unknown> {
    return this.pool.send(['GRAPH.QUERY']);
  }
}
