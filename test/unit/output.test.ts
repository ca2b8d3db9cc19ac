import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { connectionCause } from '../../src/cli/cli-errors.js';
import { toYaml } from '../../src/cli/output.js';
import { parseDuration } from '../../src/cli/parsers.js';
import { parseConfig } from '../../src/cli/session-file.js';

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

describe('durations', () => {
  it('takes units, combinations and bare seconds', () => {
    expect(parseDuration('10m')).toBe(600_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration('45')).toBe(45_000);
  });

  it('refuses anything else', () => {
    for (const bad of ['abc', '10x', '', 'm', '10m abc', '-5s'])
      expect(() => parseDuration(bad), bad).toThrow(/duration/);
  });
});

describe('connection errors', () => {
  it("name the system's cause and address, through fetch's wrapping and happy-eyeballs' AggregateError", () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3000'), {
      code: 'ECONNREFUSED',
      address: '127.0.0.1',
      port: 3000,
    });
    expect(connectionCause(new TypeError('fetch failed', { cause: refused }))).toBe('ECONNREFUSED 127.0.0.1:3000');
    const both = Object.assign(
      new AggregateError([
        refused,
        Object.assign(new Error('x'), { code: 'ECONNREFUSED', address: '::1', port: 3000 }),
      ]),
      {
        code: 'ECONNREFUSED',
      },
    );
    expect(connectionCause(new TypeError('fetch failed', { cause: both }))).toBe(
      'ECONNREFUSED 127.0.0.1:3000, ECONNREFUSED ::1:3000',
    );
    expect(
      connectionCause(
        new TypeError('fetch failed', {
          cause: Object.assign(new Error('x'), { code: 'ENOTFOUND', hostname: 'nowhere.invalid' }),
        }),
      ),
    ).toBe('ENOTFOUND nowhere.invalid');
  });
});

describe('the config file', () => {
  it('reads the single-server format of earlier versions as the context `default`', () => {
    expect(parseConfig(JSON.stringify({ server: 'http://a:3000', cookie: 'token=x' }))).toEqual({
      config: {
        version: 2,
        currentContext: 'default',
        contexts: { default: { server: 'http://a:3000', cookie: 'token=x' } },
      },
      migrated: true,
    });
  });

  it('keeps well-formed contexts and drops malformed ones', () => {
    const { config, migrated } = parseConfig(
      JSON.stringify({
        version: 2,
        currentContext: 'b',
        contexts: { a: { server: 'http://a' }, b: { server: 'http://b', cookie: 'token=y' }, bad: { cookie: 1 } },
      }),
    );
    expect(migrated).toBe(false);
    expect(config).toEqual({
      version: 2,
      currentContext: 'b',
      contexts: { a: { server: 'http://a' }, b: { server: 'http://b', cookie: 'token=y' } },
    });
    expect(() => parseConfig('[]')).toThrow();
  });
});
