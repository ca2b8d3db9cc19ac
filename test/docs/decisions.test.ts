import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const dir = new URL('../../docs/decisions/', import.meta.url);
const records = readdirSync(dir)
  .filter((name) => name.endsWith('.md') && name !== 'README.md')
  .sort();
const index = readFileSync(new URL('README.md', dir), 'utf8');
const indexLinks = [...index.matchAll(/\]\(([^)#]+\.md)(?:#[^)]*)?\)/g)].map((match) => match[1] ?? '');

describe('decision records', () => {
  it('are each listed in docs/decisions/README.md (run `node scripts/decisions-index.mjs` to add them)', () => {
    const unlisted = records.filter((name) => !indexLinks.includes(name));
    expect(unlisted, `not in docs/decisions/README.md: ${unlisted.join(', ')}`).toEqual([]);
  });

  it('are linked from the index only when the file exists', () => {
    const dangling = indexLinks.filter((name) => !name.includes('/') && !records.includes(name));
    expect(dangling).toEqual([]);
  });

  it.each(records)('%s has a title, a status and the sections Context, Decision and Consequences', (name) => {
    const text = readFileSync(new URL(name, dir), 'utf8');
    expect(text, 'first line "# <title>"').toMatch(/^# \S/);
    const status = /^Status: (accepted|superseded|rejected|proposed|deprecated)\b/m.exec(text)?.[1];
    expect(status, 'a "Status: accepted|superseded|rejected|proposed|deprecated" line').toBeDefined();
    for (const section of ['Context', 'Decision', 'Consequences'])
      expect(text).toMatch(new RegExp(`^## ${section}$`, 'm'));
    if (status === 'superseded') {
      const successor = /^Superseded-by: \[[^\]]*\]\(([^)]+\.md)\)/m.exec(text)?.[1];
      expect(successor, 'a "Superseded-by: [title](file.md)" line').toBeDefined();
      expect(records).toContain(successor);
    }
  });
});
