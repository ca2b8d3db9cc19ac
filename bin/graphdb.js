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
const { runShell } = await import('../dist/cli/shell/main.js');
process.exitCode = await runShell(process.argv.slice(2));
