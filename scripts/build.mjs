// Compiles src/ into dist/ only when something the output depends on changed since the last build: the sources, the
// TypeScript configuration, or the installed dependencies (package-lock.json). A hash of those files is kept in
// dist/.build-hash; `--force` compiles anyway. tsc itself builds incrementally (tsconfig.build.json), so a change to
// one file recompiles little. Progress goes to stderr, one line before and one after a compile.
//   node scripts/build.mjs [--force] [--quiet]
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const stampFile = path.join(root, 'dist', '.build-hash');
const force = process.argv.includes('--force');
const quiet = process.argv.includes('--quiet');
const say = (line) => process.stderr.write(`[build] ${line}\n`);

function filesUnder(dir) {
  return readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

function inputsHash() {
  const hash = createHash('sha256');
  const inputs = [...filesUnder('src'), 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'].sort();
  for (const file of inputs) {
    hash.update(file).update('\0');
    if (existsSync(path.join(root, file))) hash.update(readFileSync(path.join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

const wanted = inputsHash();
const built = existsSync(stampFile) ? readFileSync(stampFile, 'utf8').trim() : undefined;
if (!force && built === wanted && existsSync(path.join(root, 'dist', 'main.js'))) {
  if (!quiet) say('dist/ is up to date with src/');
  process.exit(0);
}

say(built === undefined ? 'compiling src/ into dist/ (first build, about half a minute)' : 'src/ changed: compiling');
const started = Date.now();
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (result.status !== 0) {
  say('compiling failed (the errors are above)');
  process.exit(result.status ?? 1);
}
writeFileSync(stampFile, `${wanted}\n`);
say(`compiled in ${((Date.now() - started) / 1000).toFixed(1)} s`);
