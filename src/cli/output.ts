// Printing: `-o table|wide` aligned tables for people, `-o json|yaml` for scripts (stdout only; progress goes to
// stderr).
import { stringify } from 'yaml';
import { CliError, EXIT } from './cli-errors.js';

export const OUTPUT_FORMATS = ['table', 'json', 'yaml', 'wide'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

let format: OutputFormat = 'table';

/** Set once per run from the global `-o/--output` and `--json` options (`--json` wins: it is `-o json`). */
export function setOutputFormat(options: { output?: string; json?: boolean }): void {
  if (options.json) {
    format = 'json';
    return;
  }
  const wanted = options.output ?? 'table';
  if (!(OUTPUT_FORMATS as readonly string[]).includes(wanted))
    throw new CliError(EXIT.usage, `-o takes ${OUTPUT_FORMATS.join(', ')}; got ${JSON.stringify(wanted)}`);
  format = wanted as OutputFormat;
}

export function outputFormat(): OutputFormat {
  return format;
}

type Cell = string | number | boolean | null | undefined;

export interface Table {
  headers: string[];
  rows: Cell[][];
  /** Extra columns shown with `-o wide` (one value per row, appended). */
  wide?: { headers: string[]; rows: Cell[][] };
}

/**
 * Prints a command's result: the data itself as JSON or YAML, or for people the table (or text) that `human` gives.
 * Without a `human` form, tables and wide print the data as YAML, which reads well enough.
 */
export function printResult(data: unknown, human?: Table | (() => void)): void {
  if (format === 'json') return printJson(data);
  if (format === 'yaml' || human === undefined) return printYaml(data);
  if (typeof human === 'function') return human();
  if (format === 'wide' && human.wide)
    return printTable(
      [...human.headers, ...human.wide.headers],
      human.rows.map((row, index) => [...row, ...(human.wide!.rows[index] ?? [])]),
    );
  printTable(human.headers, human.rows);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printYaml(value: unknown): void {
  process.stdout.write(toYaml(value));
}

/**
 * YAML for JSON-shaped data (what the API returns), by the yaml package: block style with a list's dashes at its key's
 * indentation, no line folding, and strings that need quotes double-quoted as JSON would write them.
 */
export function toYaml(value: unknown): string {
  return stringify(JSON.parse(JSON.stringify(value ?? null)) as unknown, {
    indentSeq: false,
    lineWidth: 0,
    blockQuote: false,
    doubleQuotedAsJSON: true,
  });
}

export function printTable(headers: string[], rows: Cell[][]): void {
  const cells = [
    headers,
    ...rows.map((row) => row.map((cell) => (cell === null || cell === undefined ? '' : String(cell)))),
  ];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  for (const row of cells)
    process.stdout.write(
      `${row
        .map((cell, column) => (cell ?? '').padEnd(widths[column]!))
        .join('  ')
        .trimEnd()}\n`,
    );
}

export function printLine(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** Progress and notes for people: stderr, so stdout stays the command's result. */
export function printProgress(text: string): void {
  process.stderr.write(`${text}\n`);
}

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

const SIZE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** A size for a table: a byte count becomes 1.5 MiB; a Kubernetes quantity (12Mi) or text is shown as it is. */
export function humanSize(value: string | number | undefined | null): string {
  if (value === undefined || value === null || value === '') return '';
  const text = String(value).trim();
  if (!/^\d+$/.test(text)) return text;
  let size = Number(text);
  let unit = 0;
  while (size >= 1024 && unit < SIZE_UNITS.length - 1) {
    size /= 1024;
    unit++;
  }
  return unit === 0 ? `${size} B` : `${size < 10 ? size.toFixed(1) : Math.round(size)} ${SIZE_UNITS[unit]}`;
}

/** How long ago a time was, as kubectl's AGE column shows it: 45s, 12m, 5h, 3d, 2y; '' for no or a bad time. */
export function age(iso: string | undefined | null, now = Date.now()): string {
  if (!iso) return '';
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  const seconds = Math.max(0, Math.floor((now - then) / 1000));
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 120) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  return days < 730 ? `${days}d` : `${Math.floor(days / 365)}y`;
}
