import { describe, expect, it } from 'vitest';
import { canLoadFalkorDB, findServerBinary, parseServerVersion } from '../../src/platform/falkordb/server-binary.js';

describe('server binary discovery', () => {
  it('parses Valkey and Redis version lines', () => {
    expect(parseServerVersion('Valkey server v=8.0.1 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64')).toMatchObject({
      flavour: 'valkey',
      version: '8.0.1',
    });
    expect(parseServerVersion('Redis server v=7.0.15 sha=00000000:0')).toMatchObject({
      flavour: 'redis',
      major: 7,
      minor: 0,
    });
    expect(parseServerVersion('something else')).toBeUndefined();
  });

  it('accepts Redis 7.2+ and any Valkey, refuses older Redis', () => {
    expect(canLoadFalkorDB(parseServerVersion('Redis server v=7.0.15')!)).toBe(false);
    expect(canLoadFalkorDB(parseServerVersion('Redis server v=7.2.0')!)).toBe(true);
    expect(canLoadFalkorDB(parseServerVersion('Redis server v=8.0.0')!)).toBe(true);
    expect(canLoadFalkorDB(parseServerVersion('Valkey server v=7.2.5')!)).toBe(true);
  });

  it('finds a working server on this machine', async () => {
    const found = await findServerBinary({});
    expect(found.version).toMatch(/^(valkey|redis) \d+\.\d+\.\d+$/);
  });

  it('does not fall back when the explicit setting is broken, and says what to install', async () => {
    await expect(findServerBinary({ explicit: '/nonexistent/valkey-server' })).rejects.toThrow(
      /FALKORDB_SERVER_BIN=\/nonexistent\/valkey-server cannot run FalkorDB: not found[\s\S]*apt-get install -t bookworm-backports valkey-server/,
    );
    await expect(findServerBinary({ explicit: '/bin/true' })).rejects.toThrow(
      /does not report a Redis or Valkey version/,
    );
  });
});
