import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/platform/falkordb/compact-reply.js';
import type { QueryRows } from '../../src/platform/falkordb/graph-database.js';
import { resultNdjsonLines } from '../../src/browser/graphs/result-json.js';

function rowsOf(columns: string[], rows: JsonValue[][]): QueryRows {
  const toObject = (values: JsonValue[]) => {
    const object: Record<string, JsonValue> = {};
    columns.forEach((name, index) => (object[name] = values[index]!));
    return object;
  };
  return {
    metadata: ['Cached execution: 0'],
    statistics: [],
    hasColumns: true,
    columns,
    rowCount: rows.length,
    takeRow: (index) => toObject(rows[index]!),
    takeValues: (index) => rows[index]!,
  };
}

describe('NDJSON lines framed from the values', () => {
  it('gives every row what serializing the row object would give, whatever the values and column names', async () => {
    const columns = ['n', 'text', 'n', '1', 'nested'];
    const rows: JsonValue[][] = [
      [1, 'say "hi"\n', 2, -0, { labels: ['A'], properties: { x: 1.5 } }],
      [null, '', 3.25, 1e21, [true, null, 'é😀']],
      [-7, '\u2028', 0, Number.MAX_SAFE_INTEGER, {}],
    ];
    let text = '';
    for await (const piece of resultNdjsonLines(rowsOf(columns, rows))) text += piece;
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(rows.length + 2);
    const reference = rowsOf(columns, rows);
    rows.forEach((_, index) => {
      const expected: unknown = JSON.parse(JSON.stringify({ type: 'row', data: reference.takeRow(index) }));
      expect(JSON.parse(lines[index + 1]!)).toEqual(expected);
    });
    expect(JSON.parse(lines.at(-1)!)).toEqual({
      type: 'summary',
      metadata: ['Cached execution: 0'],
      rows: 3,
      truncated: false,
    });
  });
});
