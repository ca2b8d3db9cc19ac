// The one-time codes of the CLI sign-in, on a real FalkorDB (the shared store every replica reads) and in memory:
// a code is handed out once, and not after its time.
import { createHash } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisConnection, type RedisConnection } from '../../src/platform/redis/redis-connection.js';
import { createMemoryOneTimeCodes, createRedisOneTimeCodes } from '../../src/platform/stores/one-time-codes.js';
import { startTestFalkorDB, type TestFalkorDB } from '../support/falkordb.js';
import { sleep } from '../support/wait.js';

const key = (text: string) => createHash('sha256').update(text).digest('hex');

describe('one-time codes in the shared store', () => {
  let falkordb: TestFalkorDB;
  let redis: RedisConnection;
  beforeAll(async () => {
    falkordb = await startTestFalkorDB();
    redis = createRedisConnection(falkordb.url, pino({ level: 'silent' }));
    await redis.connect();
  });
  afterAll(async () => {
    await redis.close();
    await falkordb.stop();
  });

  it('hands a code out once, to whichever replica asks first, and forgets it after its time', async () => {
    const codes = createRedisOneTimeCodes(redis);
    const other = createRedisOneTimeCodes(redis);
    await codes.put(key('a'), 'record-a', 60_000);
    const [first, second] = await Promise.all([codes.take(key('a')), other.take(key('a'))]);
    expect([first, second].sort()).toEqual(['record-a', undefined].sort());
    // A second put of the same key does not replace the first (NX).
    await codes.put(key('b'), 'one', 60_000);
    await codes.put(key('b'), 'two', 60_000);
    expect(await codes.take(key('b'))).toBe('one');
    await codes.put(key('c'), 'short-lived', 50);
    await sleep(150); // the expiry itself is what is tested
    expect(await codes.take(key('c'))).toBeUndefined();
    expect(await redis.keys('graphdb:one-time:*')).toEqual([]);
    await expect(codes.put('not-a-digest', 'x', 1000)).rejects.toThrow();
  });
});

describe('one-time codes in memory', () => {
  it('hands a code out once, and not after its time', async () => {
    let now = 1_000;
    const codes = createMemoryOneTimeCodes(() => now);
    await codes.put(key('a'), 'record', 60_000);
    expect(await codes.take(key('a'))).toBe('record');
    expect(await codes.take(key('a'))).toBeUndefined();
    await codes.put(key('b'), 'record', 60_000);
    now += 60_001;
    expect(await codes.take(key('b'))).toBeUndefined();
  });
});
