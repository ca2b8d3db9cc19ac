// Where audit entries are kept: the Redis-protocol store every replica shares (the token store), or, without one,
// this process's memory. Redis layout (docs/decisions/audit-log.md):
//   <p>entry:<id>          string: the entry as JSON
//   <p>all                 sorted set of every id, scored by time (ms)
//   <p>by:<family>:<value> sorted set of the ids with that user, action, type, name, result or cluster, by time
// A page with one filter is one index read by rank or score (O(log N + page)); with several, a server-side script
// walks the smallest index newest first and keeps the ids every other index holds (ZMSCORE), stopping once the page
// is full; the total is ZINTERCARD (or, with a date range, the walk's own count). Values are separate command
// arguments, never parsed out of keys.
import { createHash, randomBytes } from 'node:crypto';
import { storeCommand, storeKeyPrefix, storeTransaction, type RedisConnection } from '../redis/redis-connection.js';
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
  };
}

/**
 * The page of an intersection of sorted sets, newest first. KEYS: the index keys (two or more). ARGV: min, max
 * (scores, `-inf`/`+inf` for none), offset, limit. Returns {total, ids}. The smallest index within the range drives;
 * it is read by rank in chunks, each filtered through the other indexes with one ZMSCORE. Without a range the
 * total is ZINTERCARD and the walk stops at the end of the page; with one the walk counts to the end.
 */
export const INTERSECTION_SCRIPT = `
local min, max = ARGV[1], ARGV[2]
local offset, limit = tonumber(ARGV[3]), tonumber(ARGV[4])
local driver, size = 1, nil
for i = 1, #KEYS do
  local n = redis.call('ZCOUNT', KEYS[i], min, max)
  if size == nil or n < size then driver, size = i, n end
end
if size == 0 then return {0, {}} end
local others = {}
for i = 1, #KEYS do if i ~= driver then others[#others + 1] = KEYS[i] end end
local first = 0
if max ~= '+inf' then first = redis.call('ZCOUNT', KEYS[driver], '(' .. max, '+inf') end
local total = nil
if min == '-inf' and max == '+inf' then total = redis.call('ZINTERCARD', #KEYS, unpack(KEYS)) end
local page, seen, at, last = {}, 0, first, first + size - 1
while at <= last do
  if total ~= nil and #page >= limit then break end
  local ids = redis.call('ZRANGE', KEYS[driver], at, math.min(at + 499, last), 'REV')
  if #ids == 0 then break end
  at = at + #ids
  for _, other in ipairs(others) do
    local scores = redis.call('ZMSCORE', other, unpack(ids))
    local kept = {}
    for j = 1, #ids do if scores[j] then kept[#kept + 1] = ids[j] end end
    ids = kept
    if #ids == 0 then break end
  end
  for j = 1, #ids do
    if seen >= offset and #page < limit then page[#page + 1] = ids[j] end
    seen = seen + 1
  end
end
return {total or seen, page}
`;
const INTERSECTION_SHA = createHash('sha1').update(INTERSECTION_SCRIPT).digest('hex');

/** The arguments of INTERSECTION_SCRIPT for `plan` (after the key count and keys). */
export function intersectionArguments(plan: AuditPlan): string[] {
  return [scoreArg(plan.min), scoreArg(plan.max), String(plan.offset), String(plan.limit)];
}

/** Runs the intersection script by its digest, loading it on the first NOSCRIPT. */
export async function runIntersection(redis: RedisConnection, keys: string[], plan: AuditPlan) {
  const tail = [String(keys.length), ...keys, ...intersectionArguments(plan)];
  let reply: [number, string[]];
  try {
    reply = await storeCommand<[number, string[]]>(redis, ['EVALSHA', INTERSECTION_SHA, ...tail]);
  } catch (error) {
    if (!String((error as Error).message).includes('NOSCRIPT')) throw error;
    reply = await storeCommand<[number, string[]]>(redis, ['EVAL', INTERSECTION_SCRIPT, ...tail]);
  }
  return { total: Number(reply[0]), ids: reply[1] };
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

/** `prefix`: the store's own (`graphdb:audit:`, or `{graphdb}:audit:` on a cluster, where every key shares a slot). */
export function createRedisAuditStore(redis: RedisConnection, prefix = `${storeKeyPrefix(redis)}audit:`): AuditStore {
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
      if (plan.indexes.length > 1) {
        const { total, ids } = await runIntersection(redis, plan.indexes.map(keys.index), plan);
        return { entries: await read(ids), total };
      }
      const key = plan.indexes.length === 0 ? keys.all : keys.index(plan.indexes[0]!);
      const [total, ids] = (await storeTransaction(redis, pageCommands(key, plan))) as [number, string[]];
      return { entries: await read(ids), total: Number(total) };
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
