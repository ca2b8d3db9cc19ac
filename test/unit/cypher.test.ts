// The CSV load's row literal is built straight from the fields; it must be the very text the general encoder gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cypherLiteral, textRowsLiteral, withParameterText } from '../../src/platform/falkordb/cypher.js';

const field = fc.string({ unit: 'grapheme', maxLength: 12 }).filter((text) => !text.includes('\0'));

describe('textRowsLiteral', () => {
  it('matches cypherLiteral for rows as maps (with keys) and as lists, escapes included', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_ -]{0,8}$/), { minLength: 1, maxLength: 4 }),
        fc.array(fc.array(field, { minLength: 4, maxLength: 4 }), { maxLength: 5 }),
        (keys, rows) => {
          const fitted = rows.map((row) => row.slice(0, keys.length));
          const asMaps = fitted.map((row) => Object.fromEntries(keys.map((key, index) => [key, row[index]!])));
          expect(textRowsLiteral(fitted, keys)).toBe(cypherLiteral(asMaps));
          expect(textRowsLiteral(fitted)).toBe(cypherLiteral(fitted));
        },
      ),
    );
  });

  it('escapes quotes and backslashes, and refuses NUL and backticked keys', () => {
    expect(textRowsLiteral([['a"b', 'c\\d']], ['x', 'y'])).toBe('[{`x`: "a\\"b", `y`: "c\\\\d"}]');
    expect(() => textRowsLiteral([['a\0']])).toThrow(/NUL/);
    expect(() => textRowsLiteral([['a']], ['bad`key'])).toThrow(/backticks/);
  });

  it('prefixes the parameter header, refusing a bad parameter name', () => {
    expect(withParameterText('RETURN $rows', 'rows', '[]')).toBe('CYPHER rows=[] RETURN $rows');
    expect(() => withParameterText('RETURN 1', 'no-dash', '[]')).toThrow(/parameter name/);
  });
});
