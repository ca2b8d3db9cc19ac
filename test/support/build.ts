// Compiles src/ into dist/ for tests that run the compiled server or CLI, only when the sources changed since the
// last build (scripts/build.mjs keeps a hash of them), so a suite that is already built pays nothing.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export async function buildOnce(): Promise<void> {
  await promisify(execFile)(process.execPath, ['scripts/build.mjs', '--quiet'], { cwd: ROOT, timeout: 600_000 });
}
