// Decodes FalkorDB's compact result set (GRAPH.QUERY ... --compact) into JSON-ready values.
// Integers arrive as strings (see SendOptions.integersAsStrings) so values beyond 2^53 stay exact.

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface GraphNode {
  id: number;
  labels: string[];
  properties: Record<string, JsonValue>;
}
export interface GraphRelationship {
  id: number;
  relationshipType: string;
  sourceId: number;
  destinationId: number;
  properties: Record<string, JsonValue>;
}

export interface ResultSet {
  metadata: string[];
  /** Absent when the query returns no columns. */
  data?: Record<string, JsonValue>[];
}

/** Names behind the numeric ids a compact reply uses. */
export interface GraphSchemaNames {
  labels: string[];
  relationshipTypes: string[];
  propertyKeys: string[];
}

type Raw = unknown;

const ValueType = {
  Unknown: 0,
  Null: 1,
  String: 2,
  Integer: 3,
  Boolean: 4,
  Double: 5,
  Array: 6,
  Edge: 7,
  Node: 8,
  Path: 9,
  Map: 10,
  Point: 11,
  VectorF32: 12,
  DateTime: 13,
  Date: 14,
  Time: 15,
  Duration: 16,
} as const;

export class CompactReplyError extends Error {}

/**
 * Sets a key that comes from the database (a column alias, a property key, a map key) on a plain object: a key
 * named `__proto__` is defined as an ordinary own key instead of replacing the object's prototype. Plain objects,
 * not prototype-less ones: `Object.create(null)` objects start as hash tables, each a larger allocation and a
 * slower `JSON.stringify` than objects sharing a shape (a third of the small query's garbage was rows).
 */
function setKey(target: Record<string, JsonValue>, key: string, value: JsonValue): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

export function integerValue(raw: Raw): number | string {
  const text = String(raw);
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : text;
}

function doubleValue(raw: Raw): number | string {
  const value = Number.parseFloat(String(raw));
  // JSON has no Infinity or NaN; keep FalkorDB's spelling rather than lose the value.
  return Number.isFinite(value) ? value : String(raw);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function isoDate(date: Date): string {
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

function isoTime(date: Date): string {
  const ms = date.getUTCMilliseconds();
  return `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}${ms ? `.${pad(ms, 3)}` : ''}`;
}

function isoDuration(totalSeconds: number): string {
  const sign = totalSeconds < 0 ? '-' : '';
  let rest = Math.abs(totalSeconds);
  const days = Math.floor(rest / 86_400);
  rest -= days * 86_400;
  const hours = Math.floor(rest / 3600);
  rest -= hours * 3600;
  const minutes = Math.floor(rest / 60);
  const seconds = rest - minutes * 60;
  const time = `${hours ? `${hours}H` : ''}${minutes ? `${minutes}M` : ''}${seconds ? `${seconds}S` : ''}`;
  if (!days && !time) return 'PT0S';
  return `${sign}P${days ? `${days}D` : ''}${time ? `T${time}` : ''}`;
}

/** The highest label, relationship-type and property-key id a reply uses (-1: none), read before any decoding. */
export interface SchemaIds {
  labels: number;
  relationshipTypes: number;
  propertyKeys: number;
}

export function highestSchemaIds(rows: Raw[]): SchemaIds {
  const highest: SchemaIds = { labels: -1, relationshipTypes: -1, propertyKeys: -1 };
  const properties = (entries: Raw[]) => {
    for (const entry of entries) {
      const [keyId, type, value] = entry as [Raw, Raw, Raw];
      highest.propertyKeys = Math.max(highest.propertyKeys, Number(keyId));
      visitTyped(type, value);
    }
  };
  const node = (raw: Raw) => {
    const [, labelIds, entries] = raw as [Raw, Raw[], Raw[]];
    for (const labelId of labelIds) highest.labels = Math.max(highest.labels, Number(labelId));
    properties(entries);
  };
  const edge = (raw: Raw) => {
    const [, typeId, , , entries] = raw as [Raw, Raw, Raw, Raw, Raw[]];
    highest.relationshipTypes = Math.max(highest.relationshipTypes, Number(typeId));
    properties(entries);
  };
  function visit(cell: Raw): void {
    const [type, value] = cell as [Raw, Raw];
    visitTyped(type, value);
  }
  function visitTyped(type: Raw, value: Raw): void {
    switch (Number(type)) {
      case ValueType.Node:
        node(value);
        break;
      case ValueType.Edge:
        edge(value);
        break;
      case ValueType.Path: {
        const [nodes, edges] = value as [[Raw, Raw[]], [Raw, Raw[]]];
        for (const item of nodes[1]) node((item as [Raw, Raw])[1]);
        for (const item of edges[1]) edge((item as [Raw, Raw])[1]);
        break;
      }
      case ValueType.Array:
        (value as Raw[]).forEach(visit);
        break;
      case ValueType.Map: {
        const entries = value as Raw[];
        for (let i = 1; i < entries.length; i += 2) visit(entries[i]);
        break;
      }
      default:
        break;
    }
  }
  for (const row of rows) (row as Raw[]).forEach(visit);
  return highest;
}

/** Whether `names` name every id up to `highest`. */
export function namesCover(names: GraphSchemaNames, highest: SchemaIds): boolean {
  return (
    highest.labels < names.labels.length &&
    highest.relationshipTypes < names.relationshipTypes.length &&
    highest.propertyKeys < names.propertyKeys.length
  );
}

/**
 * Decodes rows in one of two value formats. Plain: JSON values as the FalkorDB Browser reads them (integers beyond
 * 2^53 and temporal values as strings, points and graph entities as objects). Typed: every value is an object whose
 * `type` names its kind (`{"type": "Integer", "value": "9007199254740993"}`, `{"type": "Node", "id", "labels",
 * "properties"}`), so no two kinds can be mistaken for each other; integers are always decimal strings (exact).
 */
export class CompactDecoder {
  constructor(
    private readonly names: GraphSchemaNames,
    private readonly typed = false,
  ) {}

  private name(list: string[], id: Raw, kind: string): string {
    const name = list[Number(id)];
    if (name === undefined) throw new CompactReplyError(`unknown ${kind} id ${String(id)}`);
    return name;
  }

  private properties(raw: Raw[]): Record<string, JsonValue> {
    const result: Record<string, JsonValue> = {};
    for (const entry of raw) {
      const [keyId, type, value] = entry as [Raw, Raw, Raw];
      setKey(result, this.name(this.names.propertyKeys, keyId, 'property key'), this.typedValue(type, value));
    }
    return result;
  }

  private tag(type: string, fields: Record<string, JsonValue>): JsonValue {
    return { type, ...fields };
  }

  node(raw: Raw): GraphNode {
    const [id, labelIds, properties] = raw as [Raw, Raw[], Raw[]];
    return {
      ...(this.typed ? { type: 'Node' } : {}),
      id: Number(id),
      labels: labelIds.map((labelId) => this.name(this.names.labels, labelId, 'label')),
      properties: this.properties(properties),
    };
  }

  relationship(raw: Raw): GraphRelationship {
    const [id, typeId, sourceId, destinationId, properties] = raw as [Raw, Raw, Raw, Raw, Raw[]];
    return {
      ...(this.typed ? { type: 'Relationship' } : {}),
      id: Number(id),
      relationshipType: this.name(this.names.relationshipTypes, typeId, 'relationship type'),
      sourceId: Number(sourceId),
      destinationId: Number(destinationId),
      properties: this.properties(properties),
    };
  }

  value(cell: Raw): JsonValue {
    const [type, value] = cell as [Raw, Raw];
    return this.typedValue(type, value);
  }

  /** A value from its type and its payload (property entries carry both without a `[type, value]` pair). */
  private typedValue(type: Raw, value: Raw): JsonValue {
    return this.typed ? this.taggedValue(type, value) : this.plainValue(type, value);
  }

  /** The typed format: the plain value wrapped with its kind; entities, paths and points carry `type` beside their keys. */
  private taggedValue(type: Raw, value: Raw): JsonValue {
    switch (Number(type)) {
      case ValueType.Null:
        return this.tag('Null', {});
      case ValueType.String:
        return this.tag('String', { value: String(value) });
      case ValueType.Integer:
        return this.tag('Integer', { value: String(value) });
      case ValueType.Boolean:
        return this.tag('Boolean', { value: value === 'true' || value === true });
      case ValueType.Double:
        return this.tag('Float', { value: doubleValue(value) });
      case ValueType.Array:
        return this.tag('List', { value: (value as Raw[]).map((item) => this.value(item)) });
      case ValueType.Map:
        return this.tag('Map', { value: this.plainValue(type, value) });
      case ValueType.Point: {
        const point = this.plainValue(type, value) as Record<string, JsonValue>;
        return this.tag('Point', point);
      }
      case ValueType.VectorF32:
        return this.tag('Vector', { value: this.plainValue(type, value) });
      case ValueType.DateTime:
        return this.tag('DateTime', { value: this.plainValue(type, value) });
      case ValueType.Date:
        return this.tag('Date', { value: this.plainValue(type, value) });
      case ValueType.Time:
        return this.tag('Time', { value: this.plainValue(type, value) });
      case ValueType.Duration:
        return this.tag('Duration', { value: this.plainValue(type, value) });
      case ValueType.Path: {
        const path = this.plainValue(type, value) as Record<string, JsonValue>;
        return this.tag('Path', path);
      }
      default:
        // Nodes and relationships carry their tag themselves (node(), relationship()).
        return this.plainValue(type, value);
    }
  }

  private plainValue(type: Raw, value: Raw): JsonValue {
    switch (Number(type)) {
      case ValueType.Null:
        return null;
      case ValueType.String:
        return String(value);
      case ValueType.Integer:
        return integerValue(value);
      case ValueType.Boolean:
        return value === 'true' || value === true;
      case ValueType.Double:
        return doubleValue(value);
      case ValueType.Array:
        return (value as Raw[]).map((item) => this.value(item));
      case ValueType.Edge:
        return this.relationship(value) as unknown as JsonValue;
      case ValueType.Node:
        return this.node(value) as unknown as JsonValue;
      case ValueType.Path: {
        const [nodes, edges] = value as [[Raw, Raw[]], [Raw, Raw[]]];
        return {
          nodes: nodes[1].map((node) => this.node((node as [Raw, Raw])[1])),
          edges: edges[1].map((edge) => this.relationship((edge as [Raw, Raw])[1])),
        } as unknown as JsonValue;
      }
      case ValueType.Map: {
        const entries = value as Raw[];
        const map: Record<string, JsonValue> = {};
        for (let i = 0; i + 1 < entries.length; i += 2) setKey(map, String(entries[i]), this.value(entries[i + 1]));
        return map;
      }
      case ValueType.Point: {
        const [latitude, longitude] = value as [Raw, Raw];
        return { latitude: Number.parseFloat(String(latitude)), longitude: Number.parseFloat(String(longitude)) };
      }
      case ValueType.VectorF32:
        return (value as Raw[]).map((item) => Number(item));
      case ValueType.DateTime: {
        const date = new Date(Number(value) * 1000);
        return `${isoDate(date)}T${isoTime(date)}`;
      }
      case ValueType.Date:
        return isoDate(new Date(Number(value) * 1000));
      case ValueType.Time:
        return isoTime(new Date(Number(value) * 1000));
      case ValueType.Duration:
        return isoDuration(Number(value));
      case ValueType.Unknown:
      default:
        throw new CompactReplyError(`unknown value type ${String(type)}`);
    }
  }

  values(row: Raw): JsonValue[] {
    return (row as Raw[]).map((cell) => this.value(cell));
  }

  row(columns: string[], row: Raw): Record<string, JsonValue> {
    const cells = row as Raw[];
    const values: Record<string, JsonValue> = {};
    for (let i = 0; i < columns.length; i++) setKey(values, columns[i]!, this.value(cells[i]));
    return values;
  }
}

export function columnNames(header: Raw[]): string[] {
  return header.map((column) => String((column as [Raw, Raw])[1]));
}

export interface CompactReplyParts {
  header?: Raw[];
  rows?: Raw[];
  statistics: string[];
}

/** Splits a compact reply: `[statistics]` for queries without columns, `[header, rows, statistics]` otherwise. */
export function splitCompactReply(reply: Raw): CompactReplyParts {
  const parts = reply as Raw[];
  if (parts.length === 1) return { statistics: (parts[0] as Raw[]).map(String) };
  return {
    header: parts[0] as Raw[],
    rows: parts[1] as Raw[],
    statistics: (parts[2] as Raw[] | undefined)?.map(String) ?? [],
  };
}

/** Reads a counter such as `Nodes deleted: 1` from the statistics lines (0 when absent). */
export function statistic(statistics: string[], name: string): number {
  const line = statistics.find((entry) => entry.startsWith(`${name}:`));
  return line ? Number.parseFloat(line.slice(name.length + 1)) : 0;
}
