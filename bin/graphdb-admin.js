#!/usr/bin/env node
// The graphdb-admin command: runs the compiled CLI (npm run build produces dist/).
import { run } from '../dist/cli/main.js';

process.exitCode = await run(process.argv.slice(2));
