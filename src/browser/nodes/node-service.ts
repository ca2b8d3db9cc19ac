// Nodes and relationships by id: read, delete, labels and properties. Ids are validated integers and travel
// as parameters; labels and property keys are quoted identifiers or refused.
import type { GraphNode, GraphRelationship, JsonValue } from '../../platform/falkordb/compact-reply.js';
import { quoteIdentifier, withParameters, type CypherValue } from '../../platform/falkordb/cypher.js';
import type { GraphDatabase } from '../../platform/falkordb/graph-database.js';
import { statistic } from '../../platform/falkordb/compact-reply.js';
import { NotFoundError } from '../../http/http-errors.js';
import { requireGraph } from '../graphs/graph-service.js';
import { onCallersDatabase, type DatabaseFor } from '../context.js';

/** The node and its relationships, in the same shapes as query rows (Node and Relationship in the API document). */
export interface NodeView {
  node: GraphNode;
  relationships: GraphRelationship[];
}

/** `true` addresses a node, `false` a relationship (the specified body field `type`). */
export type EntityKind = boolean;

function matchEntity(kind: EntityKind): string {
  return kind ? 'MATCH (e) WHERE ID(e) = $id' : 'MATCH ()-[e]->() WHERE ID(e) = $id';
}

function entityName(kind: EntityKind, id: number): string {
  return `${kind ? 'Node' : 'Relationship'} ${id}`;
}

async function writeOne(
  database: GraphDatabase,
  graph: string,
  kind: EntityKind,
  id: number,
  clause: string,
  parameters: Record<string, CypherValue> = {},
): Promise<void> {
  await requireGraph(database, graph);
  const result = await database.query(
    graph,
    withParameters(`${matchEntity(kind)} ${clause} RETURN count(e) AS matched`, { id, ...parameters }),
  );
  if (Number(result.data?.[0]?.matched ?? 0) === 0) throw new NotFoundError(`${entityName(kind, id)} not found`);
}

async function readNode(database: GraphDatabase, graph: string, id: number): Promise<NodeView> {
  await requireGraph(database, graph);
  const result = await database.query(
    graph,
    withParameters('MATCH (n) WHERE ID(n) = $id OPTIONAL MATCH (n)-[r]-() RETURN n, collect(r) AS relationships', {
      id,
    }),
    { readOnly: true },
  );
  const row = result.data?.[0];
  if (!row || row.n === null || row.n === undefined) throw new NotFoundError(`Node ${id} not found`);
  const node = row.n as unknown as GraphNode;
  const relationships = (row.relationships as unknown as GraphRelationship[]).map((r) => ({
    id: r.id,
    relationshipType: r.relationshipType,
    sourceId: r.sourceId,
    destinationId: r.destinationId,
    properties: r.properties,
  }));
  return { node: { id: node.id, labels: node.labels, properties: node.properties }, relationships };
}

async function deleteEntity(database: GraphDatabase, graph: string, kind: EntityKind, id: number): Promise<string> {
  await requireGraph(database, graph);
  const clause = kind ? 'MATCH (e) WHERE ID(e) = $id DETACH DELETE e' : 'MATCH ()-[e]->() WHERE ID(e) = $id DELETE e';
  const result = await database.query(graph, withParameters(clause, { id }));
  const deleted = statistic(result.statistics, kind ? 'Nodes deleted' : 'Relationships deleted');
  if (deleted === 0) throw new NotFoundError(`${entityName(kind, id)} not found`);
  return `${entityName(kind, id)} deleted`;
}

async function addLabel(database: GraphDatabase, graph: string, id: number, label: string): Promise<void> {
  await writeOne(database, graph, true, id, `SET e:${quoteIdentifier(label, 'label')}`);
}

async function removeLabel(database: GraphDatabase, graph: string, id: number, label: string): Promise<void> {
  await writeOne(database, graph, true, id, `REMOVE e:${quoteIdentifier(label, 'label')}`);
}

async function setProperty(
  database: GraphDatabase,
  graph: string,
  kind: EntityKind,
  id: number,
  key: string,
  value: CypherValue,
): Promise<void> {
  await writeOne(database, graph, kind, id, `SET e.${quoteIdentifier(key, 'property key')} = $value`, { value });
}

async function removeProperty(
  database: GraphDatabase,
  graph: string,
  kind: EntityKind,
  id: number,
  key: string,
): Promise<void> {
  await writeOne(database, graph, kind, id, `SET e.${quoteIdentifier(key, 'property key')} = NULL`);
}

export interface NewEntity {
  /** true: a node; false: a relationship. */
  type: EntityKind;
  /** A node's labels, or the relationship's one type. */
  labels: string[];
  properties: Record<string, CypherValue>;
  /** A relationship's source and target node ids. */
  endpoints?: [number, number];
}

/**
 * Creates one node or one relationship (`POST /api/graph/{graph}/{element}`). Names are quoted or refused, values
 * travel as one map parameter; a relationship between nodes that do not exist is a 404, and nothing is created.
 */
async function createEntity(
  database: GraphDatabase,
  graph: string,
  entity: NewEntity,
): Promise<Record<string, JsonValue>> {
  await requireGraph(database, graph);
  const properties = { properties: entity.properties };
  if (entity.type) {
    const labels = entity.labels.map((label) => `:${quoteIdentifier(label, 'label')}`).join('');
    const result = await database.query(
      graph,
      withParameters(`CREATE (n${labels}) SET n = $properties RETURN n`, properties),
    );
    return result.data![0]!;
  }
  const [source, target] = entity.endpoints!;
  const type = quoteIdentifier(entity.labels[0]!, 'relationship type');
  const result = await database.query(
    graph,
    withParameters(
      `MATCH (a), (b) WHERE ID(a) = $source AND ID(b) = $target CREATE (a)-[e:${type}]->(b) SET e = $properties RETURN e`,
      { source, target, ...properties },
    ),
  );
  const row = result.data?.[0];
  if (!row) throw new NotFoundError(`Node ${source} or ${target} not found`);
  return row;
}

/**
 * The node and relationship operations of node-routes.ts, each on the caller's database: `databaseFor` gives the
 * database of a token's user.
 */
export function createNodeService({ databaseFor }: { databaseFor: DatabaseFor }) {
  const onCallers = onCallersDatabase(databaseFor);
  return {
    read: onCallers(readNode),
    create: onCallers(createEntity),
    remove: onCallers(deleteEntity),
    addLabel: onCallers(addLabel),
    removeLabel: onCallers(removeLabel),
    setProperty: onCallers(setProperty),
    removeProperty: onCallers(removeProperty),
  };
}

export type NodeService = ReturnType<typeof createNodeService>;
