// What a query answers: its rows decoded on demand from the compact reply (QueryRows), or read as the reply arrives
// (QueryStream), and a whole result handed out as a stream.
import { columnNames, CompactDecoder, type GraphSchemaNames, type JsonValue, type ResultSet } from './compact-reply.js';

export interface QueryOutcome extends ResultSet {
  statistics: string[];
}

/** A query's result whose rows are decoded on demand, each exactly once, in any order. */
export interface QueryRows {
  metadata: string[];
  statistics: string[];
  /** False for a query that returns no columns at all (only statistics). */
  hasColumns: boolean;
  /** The result's column names, in order (empty without columns). */
  columns: string[];
  rowCount: number;
  /** Set when the caller asked for fewer rows than the result had (`maxRows` on the query route). */
  truncated?: boolean;
  /** The rows are decoded in the typed value format. */
  typed?: boolean;
  takeRow(index: number): Record<string, JsonValue>;
  /** The row's values in column order, without building its object (for writers that frame rows themselves). */
  takeValues(index: number): JsonValue[];
}

/**
 * A query's result whose rows are read from the database's reply as it arrives (GraphDatabase.queryStream): the
 * columns and the row count are known before the first row, the statistics only after the last.
 */
export interface QueryStream {
  hasColumns: boolean;
  columns: string[];
  /** The rows the reply declared. */
  rowCount: number;
  /** The rows are decoded in the typed value format. */
  typed?: boolean;
  /**
   * The rows' values in column order, a batch at a time as they arrive; at most `keep` rows (the rest are read and
   * dropped). Read once. Leaving the loop early, or a failure, drops the connection and the rest of the reply.
   */
  batches(keep?: number): AsyncGenerator<JsonValue[][]>;
  /** The statistics, once batches() has ended. */
  statistics(): string[];
}

const noRows = (): never => {
  throw new Error('the query returned no rows');
};

export function statisticsOnly(parts: { statistics: string[] }, typed = false): QueryRows {
  return {
    ...(typed ? { typed } : {}),
    metadata: parts.statistics,
    statistics: parts.statistics,
    hasColumns: false,
    columns: [],
    rowCount: 0,
    takeRow: noRows,
    takeValues: noRows,
  };
}

/** Rows decoded on demand; a taken row is set to undefined (replies never hold it) so the raw reply can go as it goes. */
export function rowsOf(
  header: unknown[],
  statistics: string[],
  rows: unknown[],
  names: GraphSchemaNames,
  typed = false,
): QueryRows {
  const decoder = new CompactDecoder(names, typed);
  const columns = columnNames(header);
  const take = (index: number) => {
    const row = rows[index];
    if (row === undefined) throw new Error(`row ${index} was already taken`);
    rows[index] = undefined;
    return row;
  };
  return {
    metadata: statistics,
    statistics,
    hasColumns: true,
    columns,
    rowCount: rows.length,
    ...(typed ? { typed } : {}),
    takeRow: (index) => decoder.row(columns, take(index)),
    takeValues: (index) => decoder.values(take(index)),
  };
}

const STREAM_OF_ROWS_BATCH = 500;

/** A result read whole, handed out as a stream (the rows are decoded as they are taken). */
export function streamOfRows(result: QueryRows): QueryStream {
  return {
    hasColumns: result.hasColumns,
    columns: result.columns,
    rowCount: result.rowCount,
    ...(result.typed ? { typed: true } : {}),
    // eslint-disable-next-line @typescript-eslint/require-await -- the interface is an async generator
    async *batches(keep = Number.POSITIVE_INFINITY) {
      const end = Math.min(result.rowCount, keep);
      for (let start = 0; start < end; start += STREAM_OF_ROWS_BATCH) {
        const batch: JsonValue[][] = [];
        for (let index = start; index < Math.min(start + STREAM_OF_ROWS_BATCH, end); index++)
          batch.push(result.takeValues(index));
        yield batch;
      }
    },
    statistics: () => result.statistics,
  };
}
