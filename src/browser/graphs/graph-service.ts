// Graph-level operations with the browser API's messages: list, create, delete, rename, duplicate, read-only
// inspection (explain, info, count, export) that never creates a graph as a side effect.
import { keySlot, sameSlotName } from '../../lib/cluster-slots.js';
import type { GraphDatabase } from '../../platform/falkordb/graph-database.js';
import { onCallersDatabase, type DatabaseFor } from '../context.js';
import { BadRequestError, HttpError, NotFoundError } from '../../http/http-errors.js';

export const INFO_TYPES = ['(function)', '(property key)', '(label)', '(relationship type)'] as const;
export type InfoType = (typeof INFO_TYPES)[number];

const INFO_PROCEDURES: Record<InfoType, { procedure: string; column: string }> = {
  '(function)': { procedure: 'dbms.functions', column: 'name' },
  '(property key)': { procedure: 'db.propertyKeys', column: 'propertyKey' },
  '(label)': { procedure: 'db.labels', column: 'label' },
  '(relationship type)': { procedure: 'db.relationshipTypes', column: 'relationshipType' },
};

export async function requireGraph(database: GraphDatabase, graph: string): Promise<void> {
  if (!(await database.graphExists(graph))) throw new NotFoundError(`Graph ${graph} not found`);
}

export async function createGraph(database: GraphDatabase, graph: string): Promise<string> {
  if (await database.graphExists(graph)) return `Graph ${graph} already exists`;
  // A query on a missing key creates the graph, but only a write is kept in the AOF and sent to replicas: a node
  // created and deleted in one query leaves an empty graph that survives a restart (a bare `RETURN 1` did not).
  await database.query(graph, 'CREATE (n) DELETE n');
  return `Graph ${graph} created`;
}

export async function deleteGraph(database: GraphDatabase, graph: string): Promise<string> {
  await requireGraph(database, graph);
  await database.deleteGraph(graph);
  return `Graph ${graph} deleted`;
}

/**
 * In a sharded cluster FalkorDB can copy or rename a graph only within its hash slot (CROSSSLOT otherwise), and a
 * graph cannot be moved by DUMP and RESTORE either: a dump keeps its graph's name, so it restores only under that
 * key, on that key's shard. The caller is told, with a name that stays in the source's slot.
 */
export function crossSlotMessage(verb: 'renamed' | 'copied' | 'restored', source: string, target: string): string {
  return (
    `${source} cannot be ${verb} to ${target}: in this sharded cluster they hash to different slots ` +
    `(${keySlot(source)} and ${keySlot(target)}) and FalkorDB cannot move a graph between slots. ` +
    `A name with the same hash tag stays in the slot, for example ${sameSlotName(source, target)}`
  );
}

function requireSameSlot(database: GraphDatabase, verb: 'renamed' | 'copied', source: string, target: string): void {
  if (!database.sameSlot(source, target)) throw new BadRequestError(crossSlotMessage(verb, source, target));
}

/** The browser API answers a taken target name with 400 (not 409); its code says why. */
function targetExists(target: string): HttpError {
  return new HttpError(400, `${target} already exists`, {}, undefined, 'conflict');
}

export async function renameGraph(database: GraphDatabase, source: string, target: string): Promise<void> {
  await requireGraph(database, source);
  requireSameSlot(database, 'renamed', source, target);
  if ((await database.renameGraph(source, target)) === 0) throw targetExists(target);
}

export async function duplicateGraph(database: GraphDatabase, source: string, target: string): Promise<void> {
  await requireGraph(database, source);
  requireSameSlot(database, 'copied', source, target);
  try {
    await database.copyGraph(source, target);
  } catch (error) {
    if (error instanceof Error && /already exists/i.test(error.message)) throw targetExists(target);
    throw error;
  }
}

export async function graphInfo(
  database: GraphDatabase,
  graph: string,
  type: InfoType,
): Promise<Record<string, string>[]> {
  await requireGraph(database, graph);
  const { procedure, column } = INFO_PROCEDURES[type];
  const result = await database.query(graph, `CALL ${procedure}() YIELD ${column} RETURN ${column}`, {
    readOnly: true,
  });
  return (result.data ?? []).map((row) => {
    const value = typeof row[column] === 'string' ? row[column] : JSON.stringify(row[column]);
    // Keyed by the requested type, and by `info` as well, the key the FalkorDB Browser's UI reads.
    return { [type]: value, info: value };
  });
}

const COUNT_CYPHER = {
  nodes: 'MATCH (n) RETURN count(n) AS c',
  edges: 'MATCH ()-[e]->() RETURN count(e) AS c',
} as const;

/** How many nodes or relationships an existing graph holds (the caller has checked that it exists). */
export async function countElements(database: GraphDatabase, graph: string, what: 'nodes' | 'edges'): Promise<number> {
  const result = await database.query(graph, COUNT_CYPHER[what], { readOnly: true });
  return Number(result.data?.[0]?.c ?? 0);
}

export async function countGraph(database: GraphDatabase, graph: string): Promise<{ nodes: number; edges: number }> {
  await requireGraph(database, graph);
  const [nodes, edges] = await Promise.all([
    countElements(database, graph, 'nodes'),
    countElements(database, graph, 'edges'),
  ]);
  return { nodes, edges };
}

export async function explainQuery(database: GraphDatabase, graph: string, query: string): Promise<string[]> {
  await requireGraph(database, graph);
  return database.explain(graph, query);
}

export async function exportGraph(database: GraphDatabase, graph: string): Promise<Buffer> {
  await requireGraph(database, graph);
  const dump = await database.dump(graph);
  if (!dump) throw new NotFoundError(`Graph ${graph} not found`);
  return dump;
}

/** `attachment; filename="<ascii>"; filename*=UTF-8''<encoded>`: no quote, CR or LF can reach the header. */
export function attachmentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\w.-]/g, '_');
  // RFC 8187 allows fewer bare characters than encodeURIComponent leaves: ' ( ) * must be encoded too.
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Runs a profile of `query`: it executes the query, so the route lets only writers ask. */
async function profileQuery(database: GraphDatabase, graph: string, query: string): Promise<string[]> {
  await requireGraph(database, graph);
  return database.profile(graph, query);
}

/**
 * The graph operations of graph-routes.ts, each on the caller's database: `databaseFor` gives the database of a
 * token's user (connection pools keyed by its credentials).
 */
export function createGraphService({ databaseFor }: { databaseFor: DatabaseFor }) {
  const onCallers = onCallersDatabase(databaseFor);
  return {
    list: onCallers((database) => database.listGraphs()),
    create: onCallers(createGraph),
    remove: onCallers(deleteGraph),
    rename: onCallers(renameGraph),
    duplicate: onCallers(duplicateGraph),
    explain: onCallers(explainQuery),
    profile: onCallers(profileQuery),
    info: onCallers(graphInfo),
    count: onCallers(countGraph),
    export: onCallers(exportGraph),
  };
}

export type GraphService = ReturnType<typeof createGraphService>;
