// Where audit entries are kept: the Redis-protocol store every replica shares (the token store), or, without one,
// this process's memory. Redis layout (docs/decisions.md, "Audit log"):
//   <p>entry:<id>          string: the entry as JSON
//   <p>all                 sorted set of every id, scored by time (ms)
//   <p>by:<family>:<value> sorted set of the ids with that user, action, type, name, result or cluster, by time
// A page with one filter is one index read by rank or score (O(log N + page)); with several, the indexes are
// intersected into a short-lived key inside the same transaction and then read the same way. Values are separate
// command arguments, never parsed out of keys.
import { randomBytes } from 'node:crypto';
import type { RedisConnection } from '../../platform/redis/redis-connection.js';
import { indexesOf, matches, type AuditEntry, type AuditPlan, type IndexFilter } from './audit-query.js';

export interface AuditPageResult {
  entries: AuditEntry[];
  total: number;
}

export interface AuditStore {
  append(entries: readonly AuditEntry[]): Promise<void>;
  query(plan: AuditPlan): Promise<AuditPageResult>;
  /** Deletes up to `batch` entries older than `cutoff` (ms) and their index entries; returns how many. */
  purgeBefore(cutoff: number, batch: number): Promise<number>;
  /** True when every replica sees the same entries. */
  readonly shared: boolean;
}

export const AUDIT_PREFIX = 'graphdb:audit:';

let sequence = 0;
/** Unique across replicas, and in time order within one millisecond of one replica. */
export function newEntryId(time: number): string {
  sequence = (sequence + 1) % 36 ** 3;
  return `${time.toString(36)}${sequence.toString(36).padStart(3, '0')}${randomBytes(4).toString('hex')}`;
}

export function auditKeys(prefix = AUDIT_PREFIX) {
  return {
    entry: (id: string) => `${prefix}entry:${id}`,
    all: `${prefix}all`,
    index: (index: IndexFilter) => `${prefix}by:${index.family}:${index.value}`,
    temporary: () => `${prefix}tmp:${randomBytes(8).toString('hex')}`,
  };
}

const scoreArg = (value: number) =>
  value === Number.NEGATIVE_INFINITY ? '-inf' : value === Number.POSITIVE_INFINITY ? '+inf' : String(value);

/** The store commands of one page over one sorted set `key`: [count, ids]. Shared with the bench's baseline. */
export function pageCommands(key: string, plan: AuditPlan): string[][] {
  const unbounded = plan.min === Number.NEGATIVE_INFINITY && plan.max === Number.POSITIVE_INFINITY;
  if (unbounded)
    // By rank: O(log N + page) whatever the offset.
    return [
      ['ZCARD', key],
      ['ZRANGE', key, String(plan.offset), String(plan.offset + plan.limit - 1), 'REV'],
    ];
  return [
    ['ZCOUNT', key, scoreArg(plan.min), scoreArg(plan.max)],
    [
      'ZRANGE',
      key,
      scoreArg(plan.max),
      scoreArg(plan.min),
      'BYSCORE',
      'REV',
      'LIMIT',
      String(plan.offset),
      String(plan.limit),
    ],
  ];
}

function toStored(entry: AuditEntry): string {
  return JSON.stringify(entry);
}

function fromStored(text: string | null): AuditEntry | undefined {
  if (!text) return undefined;
  try {
    const entry = JSON.parse(text) as AuditEntry;
    return typeof entry.id === 'string' && typeof entry.time === 'number' ? entry : undefined;
  } catch {
    return undefined;
  }
}

export function createRedisAuditStore(redis: RedisConnection, prefix = AUDIT_PREFIX): AuditStore {
  const keys = auditKeys(prefix);

  async function read(ids: string[]): Promise<AuditEntry[]> {
    if (ids.length === 0) return [];
    const texts = await redis.mGet(ids.map(keys.entry));
    return texts.map(fromStored).filter((entry): entry is AuditEntry => entry !== undefined);
  }

  return {
    shared: true,

    async append(entries) {
      if (entries.length === 0) return;
      const multi = redis.multi();
      for (const entry of entries) {
        const member = { score: entry.time, value: entry.id };
        multi.set(keys.entry(entry.id), toStored(entry)).zAdd(keys.all, member);
        for (const index of indexesOf(entry)) multi.zAdd(keys.index(index), member);
      }
      await multi.execAsPipeline();
    },

    async query(plan) {
      if (plan.empty) return { entries: [], total: 0 };
      const multi = redis.multi();
      let key: string;
      let temporary: string | undefined;
      if (plan.indexes.length === 0) key = keys.all;
      else if (plan.indexes.length === 1) key = keys.index(plan.indexes[0]!);
      else {
        // Scores are the same time in every index, so MAX keeps it. The store starts from the smallest set.
        temporary = keys.temporary();
        key = temporary;
        multi.addCommand([
          'ZINTERSTORE',
          temporary,
          String(plan.indexes.length),
          ...plan.indexes.map(keys.index),
          'AGGREGATE',
          'MAX',
        ]);
      }
      for (const command of pageCommands(key, plan)) multi.addCommand(command);
      if (temporary) multi.addCommand(['DEL', temporary]);
      const replies = (await multi.exec()) as unknown[];
      const offset = temporary ? 1 : 0;
      const total = Number(replies[offset]);
      const ids = replies[offset + 1] as string[];
      return { entries: await read(ids), total };
    },

    async purgeBefore(cutoff, batch) {
      const ids = await redis.zRange(keys.all, '-inf', `(${cutoff}`, {
        BY: 'SCORE',
        LIMIT: { offset: 0, count: batch },
      });
      if (ids.length === 0) return 0;
      const entries = await read(ids);
      const multi = redis.multi();
      for (const entry of entries) for (const index of indexesOf(entry)) multi.zRem(keys.index(index), entry.id);
      multi.del(ids.map(keys.entry)).zRem(keys.all, ids);
      await multi.exec();
      return ids.length;
    },
  };
}

/** Per process: what a server without a shared store keeps (tests, a single replica). Bounded; oldest dropped. */
export function createMemoryAuditStore(capacity = 100_000): AuditStore {
  /** Oldest first. */
  let entries: AuditEntry[] = [];
  return {
    shared: false,
    append(added) {
      for (const entry of added) {
        let at = entries.length;
        while (at > 0 && entries[at - 1]!.time > entry.time) at--;
        entries.splice(at, 0, entry);
      }
      if (entries.length > capacity) entries = entries.slice(entries.length - capacity);
      return Promise.resolve();
    },
    query(plan) {
      if (plan.empty) return Promise.resolve({ entries: [], total: 0 });
      const found = entries.filter((entry) => matches(entry, plan)).reverse();
      return Promise.resolve({ entries: found.slice(plan.offset, plan.offset + plan.limit), total: found.length });
    },
    purgeBefore(cutoff, batch) {
      let count = 0;
      while (count < batch && count < entries.length && entries[count]!.time < cutoff) count++;
      entries = entries.slice(count);
      return Promise.resolve(count);
    },
  };
}
