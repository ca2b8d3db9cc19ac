// CSV_URL_ALLOWLIST: which URLs a prefix admits, and which entries the setting refuses.
import { describe, expect, it } from 'vitest';
import { isInternalHost, isUnderUrlPrefix, parseUrlAllowlist } from '../../src/lib/url-allowlist.js';
import { loadCsvViolation } from '../../src/browser/graphs/load-csv-guard.js';

describe('parseUrlAllowlist', () => {
  it('keeps http(s) prefixes, normalised', () => {
    expect(parseUrlAllowlist(' https://Data.Example.org/csv/ , http://203.0.113.5:8080/exports')).toEqual([
      'https://data.example.org/csv/',
      'http://203.0.113.5:8080/exports',
    ]);
    expect(parseUrlAllowlist('')).toEqual([]);
  });
  it.each([
    'ftp://example.org/',
    'file:///tmp/',
    'https://user:pw@example.org/',
    'https://example.org/?a=1',
    'not a url',
    // Internal places, however spelled: the database would fetch them from inside the cluster.
    'http://127.0.0.1:8080/',
    'http://localhost/',
    'http://api.localhost/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://169.254.169.254/latest/',
    'http://10.1.2.3/',
    'http://172.20.0.1/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://0.0.0.0/',
  ])('refuses %j', (entry) => {
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
    expect(
      loadCsvViolation("LOAD CSV FROM 'https://data.example.org/csv/a.csv' AS row RETURN row", allowlist),
    ).toBeUndefined();
    expect(loadCsvViolation("LOAD CSV FROM 'https://data.example.org/other.csv' AS row RETURN row", allowlist)).toBe(
      'LOAD CSV may only read file:// URLs, or URLs under CSV_URL_ALLOWLIST, given as a string literal',
    );
    expect(loadCsvViolation('LOAD CSV FROM $url AS row RETURN row', allowlist)).toMatch(/CSV_URL_ALLOWLIST/);
  });
});

describe('isInternalHost', () => {
  it('tells public hosts from internal ones', () => {
    expect(['data.example.org', '203.0.113.5', '8.8.8.8', '2001:db8::1'].map(isInternalHost)).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(['LOCALHOST', 'localhost.', '127.1.2.3', '169.254.169.254', '[::1]'].map(isInternalHost)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
  });
});
