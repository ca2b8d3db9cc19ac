// The compact-reply decoder over replies recorded from a real FalkorDB (fixtures/record-compact-replies.ts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  columnNames,
  CompactDecoder,
  CompactReplyError,
  splitCompactReply,
  statistic,
  type GraphSchemaNames,
} from '../../src/platform/falkordb/compact-reply.js';

interface Recording {
  names: GraphSchemaNames;
  replies: Record<string, { query: string; reply: unknown }>;
}
const recording = JSON.parse(
  readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'compact-replies.json'), 'utf8'),
) as Recording;
const decoder = new CompactDecoder(recording.names);

function decode(name: string): Record<string, unknown>[] {
  const { header, rows } = splitCompactReply(recording.replies[name]!.reply);
  const columns = columnNames(header ?? []);
  return (rows ?? []).map((row) => decoder.row(columns, row));
}

describe('the compact-reply decoder on recorded replies', () => {
  it('decodes scalars, keeping integers beyond 2^53 exact as text', () => {
    expect(decode('scalars')).toEqual([
      { int: 1, big: '9007199254740993', double: -2.5, string: 'text', yes: true, nothing: null },
    ]);
  });

  it('decodes lists and maps, and a map key named __proto__ survives as a key', () => {
    const [row] = decode('collections');
    expect(row!.list).toEqual([1, 'a', [true]]);
    const map = row!.map as Record<string, unknown>;
    expect(map.k).toBe(1);
    expect(map.nested).toEqual({ deep: 'x' });
    expect(Object.keys(map)).toContain('__proto__');
    expect(JSON.stringify(map)).toContain('"__proto__":"kept"');
  });

  it('keeps a column alias and a property key named __proto__ as own keys, polluting no prototype', () => {
    const names: GraphSchemaNames = { labels: ['L'], relationshipTypes: [], propertyKeys: ['__proto__', 'polluted'] };
    // A node cell (type 8) with properties `__proto__: {polluted: 'yes'}`-like input: key 0 a map (type 10).
    const node = [8, [0, [0], [[0, 10, ['polluted', [2, 'yes']]]]]];
    const row = new CompactDecoder(names).row(['__proto__'], [node]);
    expect(Object.keys(row)).toEqual(['__proto__']);
    const decoded = Object.getOwnPropertyDescriptor(row, '__proto__')!.value as { properties: object };
    expect(Object.keys(decoded.properties)).toEqual(['__proto__']);
    expect(JSON.stringify(row)).toBe(
      '{"__proto__":{"id":0,"labels":["L"],"properties":{"__proto__":{"polluted":"yes"}}}}',
    );
    expect(Object.getPrototypeOf(decoded.properties)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('decodes nodes, relationships and paths with their names', () => {
    const [row] = decode('graph');
    expect(row!.a).toEqual({ id: 0, labels: ['Person'], properties: { name: 'Ada', born: 1815 } });
    expect(row!.r).toEqual({
      id: 0,
      relationshipType: 'KNOWS',
      sourceId: 0,
      destinationId: 1,
      properties: { since: 1833 },
    });
    expect(row!.p).toEqual({
      nodes: [
        { id: 0, labels: ['Person'], properties: { name: 'Ada', born: 1815 } },
        { id: 1, labels: ['Person', 'Author'], properties: { name: 'Charles' } },
      ],
      edges: [{ id: 0, relationshipType: 'KNOWS', sourceId: 0, destinationId: 1, properties: { since: 1833 } }],
    });
  });

  it('decodes points and temporal values as the decisions describe', () => {
    const [row] = decode('spatialTemporal');
    expect(row).toMatchObject({ date: '2024-02-29', at: '2024-02-29T13:45:30', time: '13:45:30', span: 'P1DT2H' });
    // FalkorDB keeps a point's coordinates as 32-bit floats.
    const point = row!.point as { latitude: number; longitude: number };
    expect(point.latitude).toBeCloseTo(52.5, 5);
    expect(point.longitude).toBeCloseTo(13.4, 5);
  });

  it('answers no rows for an empty match and reads counters from a write', () => {
    expect(decode('empty')).toEqual([]);
    const { header, statistics } = splitCompactReply(recording.replies.write!.reply);
    expect(header).toBeUndefined();
    expect(statistic(statistics, 'Nodes created')).toBe(1);
    expect(statistic(statistics, 'Nodes deleted')).toBe(0);
  });

  it('refuses an id it has no name for, instead of inventing one', () => {
    const stale = new CompactDecoder({ labels: [], relationshipTypes: [], propertyKeys: [] });
    const { header, rows } = splitCompactReply(recording.replies.graph!.reply);
    expect(() => stale.row(columnNames(header!), rows![0])).toThrow(CompactReplyError);
  });
});
