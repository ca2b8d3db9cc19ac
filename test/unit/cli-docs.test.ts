// docs/cli-reference.md is what `npm run cli-docs` generates from the command trees today.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { cliReference } from '../../src/cli/reference.js';
import { buildShellProgram } from '../../src/cli/shell/main.js';

describe('docs/cli-reference.md', () => {
  it('is generated from the current command trees (run npm run cli-docs)', async () => {
    const written = await readFile(new URL('../../docs/cli-reference.md', import.meta.url), 'utf8');
    const generated = cliReference(buildProgram(), buildShellProgram());
    expect(written === generated, 'docs/cli-reference.md is stale: run npm run cli-docs').toBe(true);
    expect(generated).toContain('### graphdb-admin backups');
    expect(generated).toContain('graphdb-admin backups restore [options] <deployment> <backup>');
    expect(generated).toContain('#### graphdb profile add');
  });
});
