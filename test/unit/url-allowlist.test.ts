// CSV_URL_ALLOWLIST (issue 15): which URLs a prefix admits, and which entries the setting refuses.
import { describe, expect, it } from 'vitest';
import { isUnderUrlPrefix, parseUrlAllowlist } from '../../src/shared/url-allowlist.js';
import { loadCsvViolation } from '../../src/browser/graphs/load-csv-guard.js';

describe('parseUrlAllowlist', () => {
  it('keeps http(s) prefixes, normalised', () => {
    expect(parseUrlAllowlist(' https://Data.Example.org/csv/ , http://10.0.0.5:8080/exports')).toEqual(['https://data.example.org/csv/', 'http://10.0.0.5:8080/exports']);
    expect(parseUrlAllowlist('')).toEqual([]);
  });
  it.each(['ftp://example.org/', 'file:///tmp/', 'https://user:pw@example.org/', 'https://example.org/?a=1', 'not a url'])('refuses %j', (entry) => {
    expect(() => parseUrlAllowlist(entry)).toThrow(/CSV_URL_ALLOWLIST/);
  });
});

describe('isUnderUrlPrefix', () => {
  const prefix = 'https://data.example.org/csv';
  it.each([
    ['https://data.example.org/csv', true],
    ['https://data.example.org/csv/people.csv', true],
    ['https://DATA.example.org/csv/a/b.csv', true],
    ['https://data.example.org/csvx/people.csv', false],
    ['https://data.example.org/csv/../secret.csv', false],
    ['https://data.example.org/csv/%2e%2e/secret.csv', false],
    ['https://data.example.org.evil.example/csv/a.csv', false],
    ['https://data.example.org@evil.example/csv/a.csv', false],
    ['https://evil@data.example.org/csv/a.csv', false],
    ['http://data.example.org/csv/a.csv', false],
    ['https://data.example.org:8443/csv/a.csv', false],
    ['garbage', false],
  ])('%s → %s', (candidate, admitted) => {
    expect(isUnderUrlPrefix(candidate, prefix)).toBe(admitted);
  });
});

describe('loadCsvViolation with an allow-list', () => {
  const allowlist = ['https://data.example.org/csv/'];
  it('admits a literal under a prefix and refuses the rest with a message naming the setting', () => {
    expect(loadCsvViolation("LOAD CSV FROM 'https://data.example.org/csv/a.csv' AS row RETURN row", allowlist)).toBeUndefined();
    expect(loadCsvViolation("LOAD CSV FROM 'https://data.example.org/other.csv' AS row RETURN row", allowlist)).toBe('LOAD CSV may only read file:// URLs, or URLs under CSV_URL_ALLOWLIST, given as a string literal');
    expect(loadCsvViolation('LOAD CSV FROM $url AS row RETURN row', allowlist)).toMatch(/CSV_URL_ALLOWLIST/);
  });
});
