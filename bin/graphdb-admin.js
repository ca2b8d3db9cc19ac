#!/usr/bin/env node
// The graphdb-admin command: runs the compiled CLI (npm run build produces dist/). `env node` is whichever Node comes
// first on PATH, which may be older than package.json's engines: say so in one line instead of failing somewhere
// inside a dependency (npm has already warned with EBADENGINE by then; on a supported Node nothing warns).
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `graphdb-admin: needs Node.js 22.19 or later; this is ${process.versions.node} (${process.execPath})\n`,
  );
  process.exit(1);
}
const { run } = await import('../dist/cli/main.js');
process.exitCode = await run(process.argv.slice(2));
