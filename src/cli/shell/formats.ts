// Writers of a streamed result: each takes the columns, then one row at a time, and writes as it goes (waiting for
// the output to drain), so a result of any length is never held whole. The table alone looks at its first rows to
// size its columns, then prints the rest at those widths.
import type { Writable } from 'node:stream';

export const FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;
export type Format = (typeof FORMATS)[number];

export interface ResultWriter {
  header(columns: string[]): Promise<void>;
  /** Nothing while the output takes more; a promise of its draining once it is full (the caller waits for it). */
  row(data: Record<string, unknown>): Promise<void> | undefined;
  /**
   * Present when the format prints a row's JSON as the server sent it (NDJSON, JSON): the rows of one network chunk,
   * each the bytes of its `data` object, written at once, never parsed. As `row`: a promise only when the output is
   * full.
   */
  rawRows?(rows: readonly Buffer[]): Promise<void> | undefined;
  end(): Promise<void>;
}

/** The rows' bytes, each after `separator(index)` and before `suffix`, in one buffer (one write per chunk). */
function joinRows(rows: readonly Buffer[], separator: (index: number) => string, suffix: string): Buffer {
  let length = 0;
  for (let i = 0; i < rows.length; i++) length += separator(i).length + rows[i]!.length + suffix.length;
  const out = Buffer.allocUnsafe(length);
  let at = 0;
  for (let i = 0; i < rows.length; i++) {
    // Separators and suffixes are ASCII: one byte per character.
    at += out.write(separator(i), at, 'latin1');
    at += rows[i]!.copy(out, at);
    at += out.write(suffix, at, 'latin1');
  }
  return out;
}

/**
 * Writes; answers nothing while the stream takes more, else a promise of its draining (the server's rows wait
 * meanwhile). No promise per row: a million rows are a million writes, not a million promises.
 */
export function writerTo(out: Writable): (text: string | Buffer) => Promise<void> | undefined {
  return (text) =>
    out.write(text)
      ? undefined
      : new Promise<void>((resolve, reject) => {
          const onDrain = () => {
            out.off('error', onError);
            resolve();
          };
          const onError = (error: Error) => {
            out.off('drain', onDrain);
            reject(error);
          };
          out.once('drain', onDrain);
          out.once('error', onError);
        });
}

/** A value as one cell: strings as they are, everything else (numbers, nodes, lists) as JSON. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return value === null ? 'null' : '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function csvField(value: unknown): string {
  const text = value === null || value === undefined ? '' : cellText(value);
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** How many rows the table reads before it fixes its column widths. */
export const TABLE_SAMPLE_ROWS = 500;

export function resultWriter(format: Format, out: Writable): ResultWriter {
  const write = writerTo(out);
  let columns: string[] = [];
  switch (format) {
    case 'ndjson':
      return {
        header: (names) => {
          columns = names;
          return Promise.resolve();
        },
        row: (data) => write(`${JSON.stringify(data)}\n`),
        rawRows: (rows) => write(joinRows(rows, () => '', '\n')),
        end: () => Promise.resolve(),
      };
    case 'json': {
      let first = true;
      return {
        header: (names) => {
          columns = names;
          return names.length > 0 ? (write('[') ?? Promise.resolve()) : Promise.resolve();
        },
        row: (data) => {
          const text = `${first ? '\n  ' : ',\n  '}${JSON.stringify(data)}`;
          first = false;
          return write(text);
        },
        rawRows: (rows) => {
          const wasFirst = first;
          first = false;
          return write(joinRows(rows, (i) => (i === 0 && wasFirst ? '\n  ' : ',\n  '), ''));
        },
        // A statement without columns (a write without RETURN) prints nothing: its summary says what it did.
        end: async () => {
          if (columns.length > 0) await write(first ? ']\n' : '\n]\n');
        },
      };
    }
    case 'csv':
      return {
        header: (names) => {
          columns = names;
          return names.length > 0
            ? (write(`${names.map(csvField).join(',')}\r\n`) ?? Promise.resolve())
            : Promise.resolve();
        },
        row: (data) => write(`${columns.map((name) => csvField(data[name])).join(',')}\r\n`),
        end: () => Promise.resolve(),
      };
    case 'table': {
      let sample: string[][] | undefined = [];
      let widths: number[] = [];
      const line = (cells: string[]) =>
        `${cells
          .map((cell, i) => cell.padEnd(widths[i] ?? 0))
          .join(' | ')
          .trimEnd()}\n`;
      const flush = async () => {
        if (!sample) return;
        const rows = sample;
        sample = undefined;
        widths = columns.map((name, i) => Math.max(name.length, ...rows.map((row) => row[i]!.length)));
        await write(line(columns));
        await write(`${widths.map((width) => '-'.repeat(width)).join('-+-')}\n`);
        for (const row of rows) await write(line(row));
      };
      return {
        header: (names) => {
          columns = names;
          return Promise.resolve();
        },
        row: (data) => {
          const cells = columns.map((name) => cellText(data[name]).replace(/\r?\n/g, '\\n'));
          if (!sample) return write(line(cells));
          sample.push(cells);
          return sample.length >= TABLE_SAMPLE_ROWS ? flush() : undefined;
        },
        end: async () => {
          if (columns.length > 0) await flush();
        },
      };
    }
  }
}
