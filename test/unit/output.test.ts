// The CLI's YAML output (toYaml).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { toYaml } from '../../src/cli/output.js';

// JSON-shaped values: what the API answers.
const json = fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.parse(JSON.stringify(value)) as unknown);

describe('toYaml', () => {
  it('reads back (with a YAML 1.2 parser) as the same data, for any JSON-shaped value', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(parse(toYaml(value))).toEqual(value);
      }),
      // The emitter is the yaml package with our options, so fewer runs than a hand-written one needed.
      { numRuns: 200 },
    );
  });

  it('quotes strings a plain scalar would turn into something else', () => {
    const tricky = [
      'true',
      'no',
      'null',
      '~',
      '123',
      '1e3',
      '0x1f',
      '.inf',
      '',
      ' lead',
      'trail ',
      'a: b',
      '# c',
      '- d',
      'e\nf',
      '@g',
      '"h"',
      "'i'",
      'j:',
      '( #',
      'a #b',
    ];
    const text = toYaml(Object.fromEntries(tricky.map((s, i) => [`k${i}`, s])));
    expect(parse(text)).toEqual(Object.fromEntries(tricky.map((s, i) => [`k${i}`, s])));
    expect(text).toContain('k0: "true"');
  });

  it('writes block style: nested maps indented, lists of maps with the dash on the first key', () => {
    expect(
      toYaml({ users: [{ email: 'a@corp.example', role: 'admin' }], pagination: { page: 1 }, empty: [], none: {} }),
    ).toBe('users:\n- email: a@corp.example\n  role: admin\npagination:\n  page: 1\nempty: []\nnone: {}\n');
    expect(toYaml([[1, 2], []])).toBe('- - 1\n  - 2\n- []\n');
    expect(toYaml('plain')).toBe('plain\n');
    expect(toYaml(null)).toBe('null\n');
  });
});
