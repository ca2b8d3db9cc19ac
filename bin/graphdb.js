#!/usr/bin/env node
// The graphdb command, a Cypher shell for the browser API: runs the compiled shell (npm run build produces dist/).
// `env node` is whichever Node comes first on PATH: an older one than package.json's engines is named in one line.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `graphdb: needs Node.js 22.19 or later; this is ${process.versions.node} (${process.execPath})\n`,
  );
  process.exit(1);
}
// The shell streams: every row it handles is garbage a moment later. By default V8 grows its young generation (8 MiB,
// then up to 32) and lets its old generation grow well past what is live before it collects, so the shell's peak memory
// rose with the result's length. Kept at its first size, and grown by 10% instead, the heap stays near a small
// result's (bench/shell-memory.ts); both flags are read when the heap grows, so they apply when set here.
const v8 = await import('node:v8');
v8.setFlagsFromString('--semi-space-growth-factor=1');
v8.setFlagsFromString('--heap-growing-percent=10');
const { runShell } = await import('../dist/cli/shell/main.js');
process.exitCode = await runShell(process.argv.slice(2));
