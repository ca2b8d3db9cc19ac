// The CLI's config file.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/cli/session-file.js';

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
