// Keeps docs/decisions/README.md listing every decision record: adds a line under "## Other" for each record the index
// does not link yet (title from its first line), and drops lines whose file is gone. Run after adding a record:
//   node scripts/decisions-index.mjs
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = join(import.meta.dirname, '..', 'docs', 'decisions');
const indexPath = join(dir, 'README.md');
const records = readdirSync(dir)
  .filter((name) => name.endsWith('.md') && name !== 'README.md')
  .sort();
const lines = readFileSync(indexPath, 'utf8').split('\n');
const linked = (line) => /\]\(([^)#]+\.md)\)/.exec(line)?.[1];

const kept = lines.filter((line) => {
  const target = line.startsWith('- [') ? linked(line) : undefined;
  return target === undefined || records.includes(target);
});
const listed = new Set(kept.filter((line) => line.startsWith('- [')).map(linked));
const missing = records.filter((name) => !listed.has(name));
const added = missing.map((name) => {
  const title = readFileSync(join(dir, name), 'utf8').split('\n', 1)[0].replace(/^#\s*/, '').trim();
  return `- [${title || name}](${name})`;
});

if (!kept.includes('## Other')) kept.push('## Other', '', 'Records not yet sorted into an area.', '');
while (kept.at(-1) === '') kept.pop();
if (added.length > 0 && !kept.at(-1)?.startsWith('- [')) kept.push('');
const text = `${[...kept, ...added].join('\n')}\n`;
writeFileSync(indexPath, text);
for (const line of added) console.log(`added: ${line}`);
const dropped = lines.filter((line) => line.startsWith('- [')).length - listed.size;
if (added.length === 0) console.log(dropped > 0 ? 'dropped lines of removed records' : 'index up to date');
