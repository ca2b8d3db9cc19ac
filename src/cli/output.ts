// Printing: JSON for scripts, aligned tables for people.
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printTable(headers: string[], rows: (string | number | boolean | null | undefined)[][]): void {
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

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}
