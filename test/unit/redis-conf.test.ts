import { describe, expect, it } from 'vitest';
import { configGetPairs, isCredentialDirective, parseRedisConf } from '../../src/platform/clusters/redis-conf.js';

describe('parseRedisConf', () => {
  it('keeps directives in file order, repeated ones twice, values as written', () => {
    const text = [
      '# comment',
      '',
      '   maxmemory   2gb  ',
      'save 900 1',
      'save 60 10000',
      'rename-command "FLUSHALL" ""',
      'cluster-enabled',
      'loadmodule /opt/falkordb.so THREAD_COUNT 4\r',
    ].join('\n');
    expect(parseRedisConf(text)).toEqual([
      { key: 'maxmemory', value: '2gb' },
      { key: 'save', value: '900 1' },
      { key: 'save', value: '60 10000' },
      { key: 'rename-command', value: '"FLUSHALL" ""' },
      { key: 'cluster-enabled', value: '' },
      { key: 'loadmodule', value: '/opt/falkordb.so THREAD_COUNT 4' },
    ]);
    expect(parseRedisConf('')).toEqual([]);
  });
});

describe('configGetPairs', () => {
  it('reads a RESP2 flat array, a RESP3 map and a plain object, sorted by key', () => {
    const expected = [
      { key: 'appendonly', value: 'yes' },
      { key: 'port', value: '6379' },
    ];
    expect(configGetPairs(['port', '6379', 'appendonly', 'yes'])).toEqual(expected);
    expect(
      configGetPairs(
        new Map([
          ['port', '6379'],
          ['appendonly', 'yes'],
        ]),
      ),
    ).toEqual(expected);
    expect(configGetPairs({ port: 6379, appendonly: 'yes' })).toEqual(expected);
    expect(configGetPairs(null)).toEqual([]);
  });
});

describe('isCredentialDirective', () => {
  it('names the directives that hold credentials, and no others', () => {
    for (const key of [
      'user',
      'requirepass',
      'masterauth',
      'masteruser',
      'MASTERAUTH',
      'tls-key-file-pass',
      'tls-client-key-file-pass',
      'sentinel-pass',
    ])
      expect(isCredentialDirective(key), key).toBe(true);
    for (const key of ['maxmemory', 'save', 'aclfile', 'port', 'loadmodule', 'bypass-cache'])
      expect(isCredentialDirective(key), key).toBe(false);
  });
});
