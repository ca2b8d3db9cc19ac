// Graph schema names (labels, relationship types, property keys, by id) remembered per graph with the schema
// version FalkorDB reports for them, so a query need not look them up each time. GRAPH.QUERY accepts
// `version <n>` and, when the graph's schema version differs, answers `[version mismatch error, current version]`
// without running the query. The version is a hash of the ordered schema (tried on the module: the same labels
// created in another order give another version), so a graph deleted and recreated by anyone with other names, or
// with the same names in another order, no longer matches. Ids only ever grow within one schema, so names read
// after a query are a superset of those at the version read before it, and a reply that uses an id beyond the
// names held makes them be read again.
import type { GraphSchemaNames } from './compact-reply.js';

export interface VersionedSchemaNames {
  /** FalkorDB's schema version, as its decimal text. */
  version: string;
  names: GraphSchemaNames;
}

/** Graphs remembered per connection pool; beyond this many the least recently used is forgotten. */
const GRAPHS_REMEMBERED = 1000;

export class SchemaNamesCache {
  private readonly entries = new Map<string, VersionedSchemaNames>();

  constructor(private readonly capacity = GRAPHS_REMEMBERED) {}

  get(graph: string): VersionedSchemaNames | undefined {
    const entry = this.entries.get(graph);
    if (entry) {
      this.entries.delete(graph);
      this.entries.set(graph, entry);
    }
    return entry;
  }

  set(graph: string, entry: VersionedSchemaNames): void {
    this.entries.delete(graph);
    this.entries.set(graph, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  forget(graph: string): void {
    this.entries.delete(graph);
  }
}

/** `[ErrorReply("version mismatch"), version]`: the query did not run; the graph's schema is at `version`. */
export function versionMismatchOf(reply: unknown): string | undefined {
  if (!Array.isArray(reply) || reply.length !== 2) return undefined;
  const [first, version] = reply as [unknown, unknown];
  if (!(first instanceof Error) || !/version mismatch/i.test(first.message)) return undefined;
  return typeof version === 'string' || typeof version === 'number' ? String(version) : undefined;
}
