// Short-lived single-use records (the CLI sign-in's codes), shared by every replica when the server has a shared
// store (the token store), or in this process's memory in embedded mode (one replica). `take` is atomic: a code is
// handed out once.
import { storeKeyPrefix, type RedisConnection } from '../redis/redis-connection.js';

export interface OneTimeCodes {
  put(key: string, value: string, ttlMs: number): Promise<void>;
  /** The value, removed in the same step; undefined when absent or expired. */
  take(key: string): Promise<string | undefined>;
}

const KEY = /^[0-9a-f]{64}$/;

export function createRedisOneTimeCodes(redis: RedisConnection): OneTimeCodes {
  const prefix = `${storeKeyPrefix(redis)}one-time:`;
  const keyOf = (key: string) => {
    if (!KEY.test(key)) throw new Error('one-time code keys are SHA-256 hex digests');
    return `${prefix}${key}`;
  };
  return {
    async put(key, value, ttlMs) {
      await redis.set(keyOf(key), value, { expiration: { type: 'PX', value: ttlMs }, condition: 'NX' });
    },
    async take(key) {
      const value = await redis.getDel(keyOf(key));
      return value ?? undefined;
    },
  };
}

export function createMemoryOneTimeCodes(now: () => number = Date.now): OneTimeCodes {
  const entries = new Map<string, { value: string; expiresAt: number }>();
  return {
    put(key, value, ttlMs) {
      for (const [stored, entry] of entries) if (entry.expiresAt <= now()) entries.delete(stored);
      entries.set(key, { value, expiresAt: now() + ttlMs });
      return Promise.resolve();
    },
    take(key) {
      const entry = entries.get(key);
      entries.delete(key);
      return Promise.resolve(entry && entry.expiresAt > now() ? entry.value : undefined);
    },
  };
}
