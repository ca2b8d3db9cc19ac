import { describe, expect, it } from 'vitest';
import { parseStoreUrl } from '../../src/platform/redis/store-url.js';
import { loadConfig } from '../../src/config.js';

describe('parseStoreUrl', () => {
  it('passes one-server URLs through', () => {
    expect(parseStoreUrl('redis://store:6379/1')).toEqual({ kind: 'single', url: 'redis://store:6379/1' });
  });

  it('reads sentinels, master name, credentials, database and TLS', () => {
    expect(parseStoreUrl('rediss+sentinel://app:p%40ss@s1:26379,s2,[::1]:26380/tokens/1')).toEqual({
      kind: 'sentinel',
      masterName: 'tokens',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      username: 'app',
      password: 'p@ss',
      database: 1,
      tls: true,
    });
    expect(parseStoreUrl('redis+sentinel://s1:26379/tokens')).toMatchObject({ database: 0, tls: false });
  });

  it('refuses what it cannot use, saying why', () => {
    expect(() => parseStoreUrl('redis+sentinel://s1:26379')).toThrow(/master name/);
    expect(() => parseStoreUrl('redis+sentinel://s1:99999/tokens')).toThrow(
      'sentinel address s1:99999 is not host:port',
    );
    expect(() => parseStoreUrl('redis+sentinel://s1/bad name')).toThrow();
    expect(() => parseStoreUrl('redis+sentinel://s1/tokens/16')).toThrow('the database must be 0 to 15');
  });

  it('reads cluster seeds (default port 6379), credentials and TLS; a cluster has no database number', () => {
    expect(parseStoreUrl('rediss+cluster://app:p%40ss@n1:7000,n2,[::1]:7001')).toEqual({
      kind: 'cluster',
      seeds: [
        { host: 'n1', port: 7000 },
        { host: 'n2', port: 6379 },
        { host: '::1', port: 7001 },
      ],
      username: 'app',
      password: 'p@ss',
      tls: true,
    });
    expect(parseStoreUrl('redis+cluster://n1:7000/')).toMatchObject({ kind: 'cluster', tls: false });
    expect(() => parseStoreUrl('redis+cluster://n1:7000/1')).toThrow(/no database number/);
    expect(() => parseStoreUrl('redis+cluster://n1:0')).toThrow('cluster node address n1:0 is not host:port');
  });

  it('is accepted by the configuration, beside redis:// and rediss://', () => {
    expect(loadConfig({ TOKEN_STORE_URL: 'redis+cluster://n1:6379,n2:6379' }, '/srv').tokenStoreUrl).toBe(
      'redis+cluster://n1:6379,n2:6379',
    );
    expect(loadConfig({ TOKEN_STORE_URL: 'redis+sentinel://s1:26379,s2:26379/tokens' }, '/srv').tokenStoreUrl).toBe(
      'redis+sentinel://s1:26379,s2:26379/tokens',
    );
    expect(() => loadConfig({ TOKEN_STORE_URL: 'http://store' }, '/srv')).toThrow(/TOKEN_STORE_URL/);
    expect(() => loadConfig({ TOKEN_STORE_URL: 'redis+sentinel://s1' }, '/srv')).toThrow(/TOKEN_STORE_URL/);
  });
});
