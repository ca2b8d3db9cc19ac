import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { EnvSchema } from '../src/config.js';

describe('configuration reference', () => {
  it('documents every environment variable the config schema reads, and no other', async () => {
    const reference = await readFile(new URL('../docs/configuration.md', import.meta.url), 'utf8');
    const documented = [...reference.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((match) => match[1]);
    expect(documented.sort()).toEqual(Object.keys(EnvSchema.shape).sort());
  });
});
