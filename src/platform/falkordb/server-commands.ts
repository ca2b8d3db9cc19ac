// Server-level FalkorDB commands over one credential pool (module version, INFO, GRAPH.INFO, GRAPH.MEMORY,
// GRAPH.UDF), with pure parsers for their replies. Each argument travels as its own command argument.
import type { GraphDatabase } from './graph-database.js';

/** The graph module's version as MODULE LIST reports it (41603 is 4.16.3); undefined when it is not loaded. */
export function graphModuleVersion(reply: unknown): number | undefined {
  for (const entry of Array.isArray(reply) ? reply : []) {
    const fields = pairsToObject(entry);
    if (fields.name === 'graph') return Number(fields.ver);
  }
  return undefined;
}

/** A reply value as text: strings and numbers as they are, anything else (a nested reply) as empty. */
function text(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number'
    ? String(value)
    : Buffer.isBuffer(value)
      ? value.toString('utf8')
      : '';
}

/** `[k1, v1, k2, v2, …]` (RESP2 maps) as an object without a prototype, so no key is special. */
export function pairsToObject(reply: unknown): Record<string, unknown> {
  const result: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  if (!Array.isArray(reply)) return result;
  for (let i = 0; i + 1 < reply.length; i += 2) result[String(reply[i])] = reply[i + 1];
  return result;
}

/** `INFO` text as `{ section: { field: value } }`; numbers stay text (the caller picks what it shows). */
export function parseInfo(text: string): Record<string, Record<string, string>> {
  const sections: Record<string, Record<string, string>> = {};
  let current: Record<string, string> | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (line.startsWith('# ')) {
      current = sections[line.slice(2).trim().toLowerCase()] = {};
    } else if (current && line.includes(':')) {
      const at = line.indexOf(':');
      current[line.slice(0, at)] = line.slice(at + 1);
    }
  }
  return sections;
}

export interface RunningQuery {
  receivedAt: number;
  graph: string;
  query: string;
  durationMs: number;
  replicated: boolean;
}

/**
 * `GRAPH.INFO RunningQueries` / `WaitingQueries`: a header line, then a list with one flat map per query
 * (`Received at` in seconds, `Graph name`, `Query`, `Execution duration` or `Wait duration` in ms,
 * `Replicated command` 0/1).
 */
export function parseQueryList(reply: unknown): RunningQuery[] {
  const entries = (Array.isArray(reply) ? reply.filter(Array.isArray) : []).flat();
  return entries.map((entry) => {
    const fields = pairsToObject(entry);
    return {
      receivedAt: Number(fields['Received at']) * 1000,
      graph: text(fields['Graph name']),
      query: text(fields.Query),
      durationMs: Number(fields['Execution duration'] ?? fields['Wait duration'] ?? 0),
      replicated: String(fields['Replicated command']) === '1',
    };
  });
}

/** The running and waiting queries of a `GRAPH.INFO` reply without a section: `["# Running queries", […], "# Waiting queries", […], …]`. */
export function parseQueryLists(reply: unknown): { running: RunningQuery[]; waiting: RunningQuery[] } {
  const items = Array.isArray(reply) ? reply : [];
  const section = (header: string) => {
    const at = items.indexOf(header);
    return at === -1 ? [] : parseQueryList([header, items[at + 1]]);
  };
  return { running: section('# Running queries'), waiting: section('# Waiting queries') };
}

export interface UdfLibrary {
  name: string;
  functions: string[];
  code?: string;
}

/** `GRAPH.UDF LIST [lib] [WITHCODE]`: one flat map per library. */
export function parseUdfList(reply: unknown): UdfLibrary[] {
  const libraries: UdfLibrary[] = [];
  for (const map of Array.isArray(reply) ? reply : []) {
    const fields = pairsToObject(map);
    if (fields.library_name === undefined) continue;
    libraries.push({
      name: text(fields.library_name),
      functions: Array.isArray(fields.functions) ? fields.functions.map(String) : [],
      ...(fields.library_code === undefined ? {} : { code: text(fields.library_code) }),
    });
  }
  return libraries;
}

/** The numbers of `GRAPH.MEMORY USAGE`, nested per label or type where FalkorDB breaks them down. */
export function parseMemoryUsage(reply: unknown): Record<string, number | Record<string, number>> {
  const result: Record<string, number | Record<string, number>> = Object.create(null) as Record<
    string,
    number | Record<string, number>
  >;
  for (const [key, value] of Object.entries(pairsToObject(reply))) {
    result[key] = Array.isArray(value)
      ? Object.fromEntries(Object.entries(pairsToObject(value)).map(([k, v]) => [k, Number(v)]))
      : Number(value);
  }
  return result;
}

export class ServerCommands {
  constructor(private readonly database: GraphDatabase) {}

  private send<T>(args: string[]): Promise<T> {
    return this.database.pool.send<T>(args);
  }

  moduleList(): Promise<unknown> {
    return this.send(['MODULE', 'LIST']);
  }

  info(section?: string): Promise<string> {
    return this.send<string>(section ? ['INFO', section] : ['INFO']);
  }

  /**
   * `GRAPH.INFO` without a section, from each primary (one for a single node; one per shard of a cluster): both
   * query lists in one command. With a section name FalkorDB declares the name its key, so on a cluster only the
   * node owning that name's slot would answer (the others say MOVED).
   */
  queryLists(): Promise<unknown[]> {
    return this.database.pool.sendToEveryPrimary(['GRAPH.INFO']);
  }

  memoryUsage(graph: string): Promise<unknown> {
    return this.send(['GRAPH.MEMORY', 'USAGE', graph]);
  }

  udfList(library?: string, withCode = false): Promise<unknown> {
    return this.send(['GRAPH.UDF', 'LIST', ...(library ? [library] : []), ...(withCode ? ['WITHCODE'] : [])]);
  }

  // Functions are per node: in a cluster every shard's primary gets them (its replicas by replication), so a
  // query uses them whichever shard holds its graph.
  async udfLoad(library: string, code: string, replace: boolean): Promise<unknown> {
    const [first] = await this.database.pool.sendToEveryPrimary([
      'GRAPH.UDF',
      'LOAD',
      ...(replace ? ['REPLACE'] : []),
      library,
      code,
    ]);
    return first;
  }

  async udfDelete(library: string): Promise<unknown> {
    return (await this.database.pool.sendToEveryPrimary(['GRAPH.UDF', 'DELETE', library]))[0];
  }

  async udfFlush(): Promise<unknown> {
    return (await this.database.pool.sendToEveryPrimary(['GRAPH.UDF', 'FLUSH']))[0];
  }
}
