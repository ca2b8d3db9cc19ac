import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { EnvSchema } from '../src/config.js';

describe('README', () => {
  it('documents every environment variable the config schema reads, and no other', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## Architecture'));
    const documented = [...section.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((match) => match[1]);
    expect(documented.sort()).toEqual(Object.keys(EnvSchema.shape).sort());
  });
});
