// DATABASE_HOSTS and the ranges no token may reach.
import { describe, expect, it } from 'vitest';
import {
  canonicalDatabaseHost,
  createTargetGuard,
  isTargetAllowed,
  parseAllowedTargets,
  TargetRefusedError,
} from '../../src/platform/falkordb/target-guard.js';

describe('DATABASE_HOSTS', () => {
  it('parses host names, addresses and CIDR ranges, each with an optional port', () => {
    expect(parseAllowedTargets(' db.internal:6379, 10.0.0.0/8 ,192.168.1.5,[fd00::1]:6380,[fd00::/8], ')).toEqual([
      { host: 'db.internal', port: 6379 },
      { host: '10.0.0.0/8' },
      { host: '192.168.1.5' },
      { host: 'fd00::1', port: 6380 },
      { host: 'fd00::/8' },
    ]);
    expect(parseAllowedTargets('')).toEqual([]);
  });

  it.each(['10.0.0.0/33', 'db:99999', 'bad host', 'x/8', '[fd00::/200]'])('refuses %s', (entry) => {
    expect(() => parseAllowedTargets(entry)).toThrow(/^/);
  });
});

describe('which targets are allowed', () => {
  const none = { allowed: [] };
  it('always refuses link-local (cloud metadata), unspecified and multicast addresses, even when listed', () => {
    const listed = { allowed: parseAllowedTargets('169.254.0.0/16,0.0.0.0/8,fe80::/10') };
    for (const address of ['169.254.169.254', '0.0.0.0', '::', 'fe80::1', '224.0.0.1', '::ffff:169.254.169.254']) {
      expect(isTargetAllowed(none, address, address, 6379), address).toBe(false);
      expect(isTargetAllowed(listed, address, address, 6379), address).toBe(false);
    }
  });

  it('refuses loopback without a list, allows it when listed, and allows the embedded server on its port only', () => {
    expect(isTargetAllowed(none, '127.0.0.1', '127.0.0.1', 6379)).toBe(false);
    expect(isTargetAllowed(none, 'localhost', '::1', 6379)).toBe(false);
    expect(isTargetAllowed(none, '127.0.0.2', '::ffff:127.0.0.2', 6379)).toBe(false);
    expect(isTargetAllowed(none, 'db.example', '203.0.113.7', 6379)).toBe(true);
    expect(isTargetAllowed({ allowed: parseAllowedTargets('127.0.0.1') }, '127.0.0.1', '127.0.0.1', 6379)).toBe(true);
    const embedded = { allowed: [], embedded: { port: 40123 } };
    expect(isTargetAllowed(embedded, '127.0.0.1', '127.0.0.1', 40123)).toBe(true);
    expect(isTargetAllowed(embedded, '127.0.0.1', '127.0.0.1', 6379)).toBe(false);
  });

  it('with a list, allows only what it names: by name, address, range and port', () => {
    const policy = { allowed: parseAllowedTargets('db.internal:6379,10.1.0.0/16,[fd00::/8]') };
    expect(isTargetAllowed(policy, 'DB.internal', '10.9.9.9', 6379)).toBe(true);
    expect(isTargetAllowed(policy, 'db.internal', '10.9.9.9', 6380)).toBe(false);
    expect(isTargetAllowed(policy, 'other', '10.1.2.3', 1234)).toBe(true);
    expect(isTargetAllowed(policy, 'other', '10.2.0.1', 6379)).toBe(false);
    expect(isTargetAllowed(policy, 'fd00::5', 'fd00::5', 6379)).toBe(true);
    expect(isTargetAllowed(policy, 'db.example', '203.0.113.7', 6379)).toBe(false);
  });

  it('resolves a name once and checks the address it resolved to, so a name cannot smuggle in loopback', async () => {
    const guard = createTargetGuard({ allowed: [] }, () => Promise.resolve('127.0.0.1'));
    await expect(guard('innocent.example', 6379)).rejects.toBeInstanceOf(TargetRefusedError);
    const outside = createTargetGuard({ allowed: [] }, () => Promise.resolve('203.0.113.9'));
    await expect(outside('db.example', 6379)).resolves.toBe('203.0.113.9');
  });
});

describe('canonicalDatabaseHost', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['localhost', '127.0.0.1'],
    ['LOCALHOST', '127.0.0.1'],
    ['::1', '127.0.0.1'],
    ['[::1]', '127.0.0.1'],
    ['127.0.0.8', '127.0.0.1'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::ffff:10.0.0.5', '10.0.0.5'],
    ['FD00:0:0::1', 'fd00::1'],
    ['[fd00::1]', 'fd00::1'],
    ['FalkorDB.Graph.svc', 'falkordb.graph.svc'],
    ['10.0.0.5', '10.0.0.5'],
  ])('%s → %s', (host, canonical) => {
    expect(canonicalDatabaseHost(host)).toBe(canonical);
  });
});
