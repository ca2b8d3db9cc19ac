// A source file over 400 lines says in its first line why it is one file ("… one file because …"): a long file is
// either split along its seams or carries its reason where a reader opening it sees it first.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const LIMIT = 400;

describe('source files over 400 lines', () => {
  it('state in their first line why they are one file', async () => {
    const { stdout } = await promisify(execFile)('git', ['ls-files', 'src/**.ts'], { cwd: ROOT });
    const unexplained: string[] = [];
    for (const file of stdout.split('\n').filter(Boolean)) {
      const text = await readFile(path.join(ROOT, file), 'utf8');
      const lines = text.split('\n');
      const count = text.endsWith('\n') ? lines.length - 1 : lines.length;
      if (count > LIMIT && !/^\/\/ .*\bone file because\b/.test(lines[0] ?? '')) unexplained.push(`${file} (${count})`);
    }
    expect(unexplained).toEqual([]);
  });
});
