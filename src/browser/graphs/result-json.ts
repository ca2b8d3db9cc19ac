// The query result body `{metadata, data}` as JSON text. A small result is one string; a large one is produced
// in chunks of rows, each decoded just before it is serialized, so neither the decoded rows nor the whole text
// of a large result exist at once. Both give the same bytes.
import type { JsonValue } from '../../platform/falkordb/compact-reply.js';
import type { QueryRows } from '../../platform/falkordb/graph-database.js';

/** Above this many rows the body is streamed in chunks. */
export const STREAMED_ABOVE_ROWS = 1000;
const ROWS_PER_CHUNK = 500;

/** `"truncated"` appears only when the caller asked for a row cap (`maxRows`), so the specified body stays as it is. */
function closing(result: QueryRows): string {
  return result.truncated === undefined ? '}' : `,"truncated":${result.truncated}}`;
}

/** `data` is always there: `[]` when the query returned no rows, so clients read one shape. */
function opening(result: QueryRows): string {
  const metadata = `{${result.typed ? '"format":"typed",' : ''}"metadata":${JSON.stringify(result.metadata)}`;
  return result.rowCount > 0 ? `${metadata},"data":[` : `${metadata},"data":[]${closing(result)}`;
}

export function* resultJsonChunks(result: QueryRows): Generator<string> {
  yield opening(result);
  if (result.rowCount === 0) return;
  for (let start = 0; start < result.rowCount; start += ROWS_PER_CHUNK) {
    const rows = [];
    for (let index = start; index < Math.min(start + ROWS_PER_CHUNK, result.rowCount); index++)
      rows.push(result.takeRow(index));
    // One stringify per chunk (cheaper than one per row); its brackets are dropped to splice it into the array.
    const text = JSON.stringify(rows);
    yield `${start === 0 ? '' : ','}${text.slice(1, -1)}`;
  }
  yield `]${closing(result)}`;
}

/** The first `maxRows` rows of a result, marked as truncated when it had more. */
export function limitRows(result: QueryRows, maxRows: number | undefined): QueryRows {
  if (maxRows === undefined) return result;
  return { ...result, rowCount: Math.min(result.rowCount, maxRows), truncated: result.rowCount > maxRows };
}

/** What an NDJSON answer is written from: the columns first, rows in batches of values, the summary last. */
export interface NdjsonSource {
  columns: string[];
  batches: Iterable<JsonValue[][]> | AsyncIterable<JsonValue[][]>;
  /** Asked after the last batch. */
  summary(): { metadata: string[]; rows: number; truncated: boolean };
  /** The rows are in the typed value format: the header line says so. */
  typed?: boolean;
}

/**
 * The result as NDJSON (`Accept: application/x-ndjson`): a header line with the columns, one line per row, and a
 * summary line with the statistics, the row count and whether it was truncated. Every line says what it is, so a
 * column named like a header field cannot be mistaken for one. One piece of text per batch of rows.
 */
export async function* ndjsonLines(source: NdjsonSource): AsyncGenerator<string> {
  yield `${JSON.stringify({ type: 'header', columns: source.columns, ...(source.typed ? { format: 'typed' } : {}) })}\n`;
  // Each line is framed from the column names serialized once, and only the values per row: no object per row.
  // A repeated column name keeps the last value, as the row object (and JSON.parse) would.
  const { columns } = source;
  const kept = columns.map((name, index) => columns.lastIndexOf(name) === index);
  const keys = columns.map((name, index) => `${index === kept.indexOf(true) ? '' : ','}${JSON.stringify(name)}:`);
  for await (const batch of source.batches) {
    // Pieces joined once per batch: a flat string, not a rope of thousands of pieces held until it is written.
    const pieces: string[] = [];
    for (const values of batch) {
      pieces.push('{"type":"row","data":{');
      for (let column = 0; column < values.length; column++)
        if (kept[column]) pieces.push(keys[column]!, jsonOf(values[column]!));
      pieces.push('}}\n');
    }
    if (pieces.length > 0) yield pieces.join('');
  }
  yield `${JSON.stringify({ type: 'summary', ...source.summary() })}\n`;
}

/** A result read whole (QueryRows) as NDJSON, decoded a chunk of rows at a time. */
export function resultNdjsonLines(result: QueryRows): AsyncGenerator<string> {
  return ndjsonLines({
    columns: result.columns,
    batches: (function* () {
      for (let start = 0; start < result.rowCount; start += ROWS_PER_CHUNK) {
        const batch: JsonValue[][] = [];
        for (let index = start; index < Math.min(start + ROWS_PER_CHUNK, result.rowCount); index++)
          batch.push(result.takeValues(index));
        yield batch;
      }
    })(),
    summary: () => ({ metadata: result.metadata, rows: result.rowCount, truncated: !!result.truncated }),
    typed: result.typed,
  });
}

/** JSON text of a value; a finite number (the commonest cell) without a call into JSON.stringify. */
function jsonOf(value: JsonValue): string {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : JSON.stringify(value);
}

export function resultJson(result: QueryRows): string {
  let text = '';
  for (const chunk of resultJsonChunks(result)) text += chunk;
  return text;
}
