// What every file of the project owes its readers: README.md stays a front page, no file narrates how the work went
// (numbered sessions or runs, issue numbers, private names for the specifications), and every link stays inside the
// repository and points at something that exists.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const README_BUDGET = 150;

/** Tracked text files (and new ones not yet committed), as git lists them. */
function projectFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return [...new Set(listed.split('\n'))].filter(
    (file) =>
      /\.(ts|mjs|js|sh|md|ya?ml|json|tpl|txt)$|(^|\/)Dockerfile$/.test(file) &&
      !file.endsWith('package-lock.json') &&
      existsSync(path.join(ROOT, file)),
  );
}

const ORDINALS =
  'first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth';

/** Private vocabulary: each pattern names work history or documents outside the repository. */
const FORBIDDEN: { pattern: RegExp; why: string }[] = [
  { pattern: /\bissues? #?\d+\b/i, why: 'cites an issue number' },
  { pattern: new RegExp(`\\b(${ORDINALS}) session\\b`, 'i'), why: 'narrates a numbered work session' },
  {
    pattern: /\b(?:run|session) #?\d+(?![\d.])(?!\s?(?:ms|s|seconds|minutes|times|%)\b)/i,
    why: 'narrates a numbered run',
  },
  {
    pattern: /\b(?:the|both) seeds?(?:'s)? (?:says?|names?|lists?|puts?|rules?|renames?)\b/i,
    why: 'calls a specification "the seed"',
  },
  {
    pattern: /REAL-PRODUCT-FACTS|\bshared\/(?:reference|docs|seeds)\//,
    why: 'points at a file outside the repository',
  },
  { pattern: /\/work\/(?:main|shared|wt-)/, why: 'points at a path outside the repository' },
];

describe('project files', () => {
  const files = projectFiles();

  it(`README.md stays within ${README_BUDGET} lines`, () => {
    const lines = readFileSync(path.join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines, 'README.md is the front page: move detail into docs/').toBeLessThanOrEqual(README_BUDGET);
  });

  it('narrate no work history and name no document outside the repository', () => {
    const findings: string[] = [];
    for (const file of files) {
      if (file === 'test/docs/hygiene.test.ts') continue;
      const lines = readFileSync(path.join(ROOT, file), 'utf8').split('\n');
      lines.forEach((line, index) => {
        for (const { pattern, why } of FORBIDDEN) {
          const match = pattern.exec(line);
          if (match) findings.push(`${file}:${index + 1} ${why}: "${match[0]}"`);
        }
      });
    }
    expect(findings).toEqual([]);
  });

  it('link only to files inside the repository that exist', () => {
    const broken: string[] = [];
    for (const file of files.filter((name) => name.endsWith('.md'))) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1]!.split('#')[0]!;
        if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // an anchor, or a URL with a scheme
        const resolved = path.resolve(ROOT, path.dirname(file), target);
        if (!resolved.startsWith(ROOT + path.sep)) broken.push(`${file}: ${target} is outside the repository`);
        else if (!existsSync(resolved)) broken.push(`${file}: ${target} does not exist`);
      }
      for (const match of text.matchAll(/`(\.\.\/[^`\s]+)`/g)) {
        const resolved = path.resolve(ROOT, path.dirname(file), match[1]!);
        if (!resolved.startsWith(ROOT + path.sep)) broken.push(`${file}: ${match[1]} is outside the repository`);
      }
    }
    expect(broken).toEqual([]);
  });
});
