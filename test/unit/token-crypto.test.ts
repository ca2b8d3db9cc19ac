// Token hashing remembered per connection: the hash is computed once per token and connection, and a token is only
// ever compared with what the same connection sent before.
import { describe, expect, it } from 'vitest';
import { hashToken, hashTokenPerConnection, sameSecretText } from '../../src/browser/tokens/token-crypto.js';

describe('sameSecretText', () => {
  it('tells equal strings from different ones, whatever their length', () => {
    expect(sameSecretText('abc.def.ghi', 'abc.def.ghi')).toBe(true);
    expect(sameSecretText('', '')).toBe(true);
    expect(sameSecretText('abc.def.ghi', 'abc.def.ghj')).toBe(false);
    expect(sameSecretText('abc.def.ghi', 'xbc.def.ghi')).toBe(false);
    expect(sameSecretText('abc', 'abcd')).toBe(false);
    expect(sameSecretText('abcd', 'abc')).toBe(false);
  });

  it('compares UTF-16 code units, not bytes', () => {
    expect(sameSecretText('\u00e9', 'e\u0301')).toBe(false);
    expect(sameSecretText('\u{1f600}', '\u{1f600}')).toBe(true);
    expect(sameSecretText('\u{1f600}', '\u{1f601}')).toBe(false);
  });
});

describe('hashTokenPerConnection', () => {
  const counting = () => {
    const hashed: string[] = [];
    const hashOf = hashTokenPerConnection((token) => {
      hashed.push(token);
      return hashToken(token);
    });
    return { hashed, hashOf };
  };

  it('hashes a token once per connection that repeats it', () => {
    const { hashed, hashOf } = counting();
    const connection = {};
    for (let i = 0; i < 5; i++) expect(hashOf(connection, 'a.b.c')).toBe(hashToken('a.b.c'));
    expect(hashed).toEqual(['a.b.c']);
  });

  it('hashes a different token on the same connection, and remembers the newest one', () => {
    const { hashed, hashOf } = counting();
    const connection = {};
    expect(hashOf(connection, 'a.b.c')).toBe(hashToken('a.b.c'));
    expect(hashOf(connection, 'x.y.z')).toBe(hashToken('x.y.z'));
    expect(hashOf(connection, 'x.y.z')).toBe(hashToken('x.y.z'));
    expect(hashOf(connection, 'a.b.c')).toBe(hashToken('a.b.c'));
    expect(hashed).toEqual(['a.b.c', 'x.y.z', 'a.b.c']);
  });

  it('keeps connections apart: one connection never answers with what another sent', () => {
    const { hashed, hashOf } = counting();
    const first = {};
    const second = {};
    expect(hashOf(first, 'a.b.c')).toBe(hashToken('a.b.c'));
    expect(hashOf(second, 'a.b.c')).toBe(hashToken('a.b.c'));
    expect(hashOf(second, 'x.y.z')).toBe(hashToken('x.y.z'));
    expect(hashOf(first, 'a.b.c')).toBe(hashToken('a.b.c'));
    expect(hashed).toEqual(['a.b.c', 'a.b.c', 'x.y.z']);
  });
});
