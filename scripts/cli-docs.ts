// Writes docs/cli-reference.md from the command trees of graphdb-admin and graphdb (src/cli/reference.ts).
import { writeFile } from 'node:fs/promises';
import { buildProgram } from '../src/cli/main.js';
import { cliReference } from '../src/cli/reference.js';
import { buildShellProgram } from '../src/cli/shell/main.js';

await writeFile(
  new URL('../docs/cli-reference.md', import.meta.url),
  cliReference(buildProgram(), buildShellProgram()),
);
