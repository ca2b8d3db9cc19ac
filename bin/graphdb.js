#!/usr/bin/env node
// The graphdb command, a Cypher shell for the browser API: runs the compiled shell (npm run build produces dist/).
import { runShell } from '../dist/cli/shell/main.js';

process.exitCode = await runShell(process.argv.slice(2));
