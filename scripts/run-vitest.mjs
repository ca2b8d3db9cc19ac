// Runs vitest and ends with one plain summary line ("vitest: N passed, N failed") that CI logs can read.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const dir = mkdtempSync(path.join(os.tmpdir(), 'vitest-report-'));
const report = path.join(dir, 'report.json');
const run = spawnSync(
  process.execPath,
  [
    'node_modules/vitest/vitest.mjs',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);
let summary = 'vitest: no report written';
try {
  const result = JSON.parse(readFileSync(report, 'utf8'));
  const skipped = result.numPendingTests + result.numTodoTests;
  summary = `vitest: ${result.numPassedTests} passed, ${result.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`;
} catch {
  // The runner failed before writing a report; its own output says why.
}
rmSync(dir, { recursive: true, force: true });
process.stdout.write(`\n${summary}\n`);
process.exit(run.status ?? 1);
