import { describe, expect, it } from 'vitest';
import { topologyOf, tokenDatabaseKey } from '../../src/browser/tokens/token-service.js';
import type { CreateTokenBody } from '../../src/browser/tokens/schemas.js';
import { parseAddresses } from '../../src/platform/stores/token-store.js';
import { healthyReplica } from '../../src/platform/falkordb/sentinel-discovery.js';

const body = (extra: Partial<CreateTokenBody>): CreateTokenBody => ({
  username: 'u',
  password: 'p',
  host: 'sentinel-0.db',
  port: 26379,
  tls: false,
  ...extra,
});

const sentinelOf = (tokenBody: CreateTokenBody) => topologyOf(tokenBody).sentinel;

describe('topologyOf', () => {
  it('is nothing for a single node, and refuses Sentinel and cluster fields there', () => {
    expect(topologyOf(body({}))).toEqual({});
    expect(topologyOf(body({ topology: 'single' }))).toEqual({});
    expect(() => sentinelOf(body({ masterName: 'graphs' }))).toThrow(
      'masterName and sentinels apply only to topology sentinel',
    );
    expect(() => topologyOf(body({ seeds: ['a:1'] }))).toThrow('seeds apply only to topology cluster');
    expect(() => topologyOf(body({ topology: 'cluster', masterName: 'graphs' }))).toThrow(
      'masterName and sentinels apply only to topology sentinel',
    );
  });

  it('asks the given cluster node first, then the other seeds, each once', () => {
    expect(topologyOf(body({ topology: 'cluster', seeds: ['node-1.db:6379', 'Sentinel-0.db:26379'] }))).toEqual({
      cluster: {
        seeds: [
          { host: 'sentinel-0.db', port: 26379 },
          { host: 'node-1.db', port: 6379 },
        ],
      },
    });
    expect(() => topologyOf(body({ topology: 'cluster', seeds: ['h:0'] }))).toThrow(
      'seed h:0: the port must be between 1 and 65535',
    );
  });

  it('asks the given sentinel first, then the others, each once', () => {
    expect(
      sentinelOf(
        body({
          topology: 'sentinel',
          masterName: 'graphs',
          sentinels: ['sentinel-1.db:26379', 'SENTINEL-0.db:26379', '[::1]:26380'],
        }),
      ),
    ).toEqual({
      masterName: 'graphs',
      sentinels: [
        { host: 'sentinel-0.db', port: 26379 },
        { host: 'sentinel-1.db', port: 26379 },
        { host: '[::1]', port: 26380 },
      ],
    });
    expect(() => sentinelOf(body({ topology: 'sentinel' }))).toThrow('masterName is required for topology sentinel');
    expect(() => sentinelOf(body({ topology: 'sentinel', masterName: 'g', sentinels: ['h:70000'] }))).toThrow(
      'sentinel h:70000: the port must be between 1 and 65535',
    );
  });
});

describe('tokenDatabaseKey and parseAddresses', () => {
  it('names a Sentinel database by its master and first sentinel, apart from the sentinel as a node', () => {
    const sentinel = { masterName: 'graphs', sentinels: [{ host: 'localhost', port: 26379 }] };
    expect(tokenDatabaseKey('localhost', 26379, { sentinel })).toBe('sentinel:graphs:127.0.0.1:26379');
    expect(tokenDatabaseKey('localhost', 26379, { cluster: { seeds: [] } })).toBe('cluster:127.0.0.1:26379');
    expect(tokenDatabaseKey('localhost', 26379)).toBe('127.0.0.1:26379');
    expect(parseAddresses('a:1,[::1]:2,')).toEqual([
      { host: 'a', port: 1 },
      { host: '[::1]', port: 2 },
    ]);
  });
});

describe('healthyReplica', () => {
  const entry = (ip: string, port: number, flags: string, link = 'ok') => [
    'name',
    `${ip}:${port}`,
    'ip',
    ip,
    'port',
    String(port),
    'flags',
    flags,
    'master-link-status',
    link,
  ];
  it('picks a replica that is up and in sync, or none', () => {
    expect(healthyReplica([entry('10.0.0.2', 6379, 'slave')])).toEqual({ host: '10.0.0.2', port: 6379 });
    expect(
      healthyReplica([
        entry('10.0.0.3', 6379, 'slave,s_down'),
        entry('10.0.0.4', 6379, 'slave,disconnected'),
        entry('10.0.0.5', 6379, 'slave', 'err'),
      ]),
    ).toBeUndefined();
    expect(healthyReplica(null)).toBeUndefined();
    expect(healthyReplica([])).toBeUndefined();
  });
});
