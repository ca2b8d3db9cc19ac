// Token metadata on a Redis-protocol server as plain keys (no graph, no Cypher):
//   <p>token:<id>          hash of the token's fields (PEXPIREAT at its expiry)
//   <p>token-hash:<sha256> string: the token id, an O(1) index by token hash (requests check the hash stored
//                          on the token itself, in constant time, so they need only the one read by id)
//   <p>db-tokens:<db>      sorted set of ids per database (host:port), scored by creation time
//   <p>user-tokens:<user>  sorted set of ids per database user, scored by creation time
//   <p>token-revocations   pub/sub channel: `revoked <id>` when a token is revoked, `changed <id>` when its role
//                          changed (replicas drop cached tokens)
// Ids and hashes are validated before they become part of a key; values are separate command arguments.
import type { ShardedTopology, SentinelTopology } from '../falkordb/database-pool.js';
import { storeKeyPrefix, type RedisConnection } from '../redis/redis-connection.js';
import type { Role } from '../../lib/database-roles.js';
import { PortError } from '../port-errors.js';

export interface TokenRecord {
  tokenId: string;
  userId: string;
  dbKey: string;
  username: string;
  name: string;
  role: Role;
  host: string;
  port: number;
  /** Present for a Sentinel topology: host and port are then the first sentinel. */
  sentinel?: SentinelTopology;
  /** Present for a sharded cluster: host and port are then the first seed node. */
  cluster?: ShardedTopology;
  tls: boolean;
  ca: string | undefined;
  createdAt: number;
  expiresAt: number | null;
  lastUsed: number | null;
  revokedAt: number | null;
  tokenHash: string;
  passwordEncrypted: string;
}

export const TOKEN_ID_PATTERN = /^\d{10,16}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HASH_PATTERN = /^[0-9a-f]{64}$/;
const KEY_PART_PATTERN = /^[0-9a-z.:_-]{1,300}$/i;

function keyPart(value: string, pattern: RegExp): string {
  if (!pattern.test(value)) throw new Error('invalid token store key component');
  return value;
}

/** `host:port,host:port` (IPv6 hosts keep their brackets) as addresses. */
export function parseAddresses(text: string): { host: string; port: number }[] {
  return text
    .split(',')
    .filter((part) => part !== '')
    .map((part) => {
      const at = part.lastIndexOf(':');
      return { host: part.slice(0, at), port: Number(part.slice(at + 1)) };
    });
}

function toHash(record: TokenRecord): Record<string, string> {
  return {
    token_id: record.tokenId,
    user_id: record.userId,
    db_key: record.dbKey,
    username: record.username,
    name: record.name,
    role: record.role,
    host: record.host,
    port: String(record.port),
    tls: record.tls ? '1' : '0',
    ...(record.ca ? { ca: record.ca } : {}),
    ...(record.sentinel
      ? {
          sentinel_master: record.sentinel.masterName,
          sentinels: record.sentinel.sentinels.map((node) => `${node.host}:${node.port}`).join(','),
        }
      : {}),
    ...(record.cluster
      ? { cluster_seeds: record.cluster.seeds.map((node) => `${node.host}:${node.port}`).join(',') }
      : {}),
    created_at: String(record.createdAt),
    expires_at: record.expiresAt === null ? '' : String(record.expiresAt),
    token_hash: record.tokenHash,
    password_enc: record.passwordEncrypted,
  };
}

function fromHash(fields: Record<string, string>): TokenRecord | undefined {
  if (!fields.token_id || !fields.token_hash) return undefined;
  const optionalNumber = (value: string | undefined) => (value ? Number(value) : null);
  return {
    tokenId: fields.token_id,
    userId: fields.user_id ?? '',
    dbKey: fields.db_key ?? '',
    username: fields.username ?? '',
    name: fields.name ?? '',
    role: (fields.role ?? 'Read-Only') as Role,
    host: fields.host ?? '',
    port: Number(fields.port),
    tls: fields.tls === '1',
    ca: fields.ca || undefined,
    ...(fields.sentinel_master
      ? { sentinel: { masterName: fields.sentinel_master, sentinels: parseAddresses(fields.sentinels ?? '') } }
      : {}),
    ...(fields.cluster_seeds ? { cluster: { seeds: parseAddresses(fields.cluster_seeds) } } : {}),
    createdAt: Number(fields.created_at),
    expiresAt: optionalNumber(fields.expires_at),
    lastUsed: optionalNumber(fields.last_used),
    revokedAt: optionalNumber(fields.revoked_at),
    tokenHash: fields.token_hash,
    passwordEncrypted: fields.password_enc ?? '',
  };
}

export type ListScope = { dbKey: string } | { userId: string };
export type RevokeOutcome = 'revoked' | 'already-revoked' | 'not-found';

/** The pub/sub channel on which revocations are announced to every replica's token cache. */
export const revocationChannel = (prefix: string) => `${prefix}token-revocations`;
export const REVOKED_MESSAGE = 'revoked ';
/** A token's record changed (its role): replicas drop it from their caches and read it again. */
export const CHANGED_MESSAGE = 'changed ';

export const TOKEN_STORE_UNAVAILABLE = 'Token store is unavailable';

/** Every store operation fails as one `unavailable` port error (503) when the server behind it cannot be reached. */
type Observe = (operation: string, seconds: number) => void;

function unavailableAsPortError<A extends unknown[], R>(
  name: string,
  operation: (...args: A) => Promise<R>,
  observe?: Observe,
): (...args: A) => Promise<R> {
  return async (...args: A) => {
    const started = performance.now();
    try {
      return await operation(...args);
    } catch (error) {
      throw new PortError('unavailable', TOKEN_STORE_UNAVAILABLE, { cause: error });
    } finally {
      observe?.(name, (performance.now() - started) / 1000);
    }
  };
}

export function createTokenStore(redis: RedisConnection, prefix = storeKeyPrefix(redis), observe?: Observe) {
  const tokenKey = (id: string) => `${prefix}token:${keyPart(id, TOKEN_ID_PATTERN)}`;
  const hashKey = (hash: string) => `${prefix}token-hash:${keyPart(hash, HASH_PATTERN)}`;
  const dbKey = (db: string) => `${prefix}db-tokens:${keyPart(db, KEY_PART_PATTERN)}`;
  const userKey = (user: string) => `${prefix}user-tokens:${keyPart(user, HASH_PATTERN)}`;

  async function get(tokenId: string): Promise<TokenRecord | undefined> {
    if (!TOKEN_ID_PATTERN.test(tokenId)) return undefined;
    return fromHash(await redis.hGetAll(tokenKey(tokenId)));
  }

  const store = {
    save: async (record: TokenRecord): Promise<void> => {
      const multi = redis
        .multi()
        .hSet(tokenKey(record.tokenId), toHash(record))
        .set(hashKey(record.tokenHash), record.tokenId)
        .zAdd(dbKey(record.dbKey), { score: record.createdAt, value: record.tokenId })
        .zAdd(userKey(record.userId), { score: record.createdAt, value: record.tokenId });
      if (record.expiresAt !== null) {
        multi
          .pExpireAt(tokenKey(record.tokenId), record.expiresAt)
          .pExpireAt(hashKey(record.tokenHash), record.expiresAt);
      }
      await multi.exec();
    },

    get,

    /** Newest first. Ids whose hash has expired away are pruned from the index as they are met. */
    list: async (scope: ListScope): Promise<TokenRecord[]> => {
      const indexKey = 'dbKey' in scope ? dbKey(scope.dbKey) : userKey(scope.userId);
      const ids = await redis.zRange(indexKey, 0, -1, { REV: true });
      if (ids.length === 0) return [];
      const multi = redis.multi();
      for (const id of ids) multi.hGetAll(tokenKey(id));
      const replies = (await multi.exec()) as unknown as Record<string, string>[];
      const records: TokenRecord[] = [];
      const gone: string[] = [];
      replies.forEach((fields, index) => {
        const record = fromHash(fields);
        if (record) records.push(record);
        else gone.push(ids[index]!);
      });
      if (gone.length > 0) await redis.zRem(indexKey, gone);
      return records;
    },

    /**
     * Atomic: HSETNX sets `revoked_at` only once, so two concurrent revocations cannot both succeed. The
     * announcement goes in the same transaction, so a stored revocation is never left unannounced.
     */
    revoke: async (tokenId: string, now: number): Promise<RevokeOutcome> => {
      if (!(await get(tokenId))) return 'not-found';
      const [set] = (await redis
        .multi()
        .hSetNX(tokenKey(tokenId), 'revoked_at', String(now))
        .publish(revocationChannel(prefix), `${REVOKED_MESSAGE}${tokenId}`)
        .exec()) as unknown as [number, number];
      return set ? 'revoked' : 'already-revoked';
    },

    /** A database user's role changed: its tokens carry the new role from their next request on, on every replica. */
    rescope: async (tokenIds: string[], role: Role): Promise<void> => {
      if (tokenIds.length === 0) return;
      const multi = redis.multi();
      for (const id of tokenIds)
        multi.hSet(tokenKey(id), 'role', role).publish(revocationChannel(prefix), `${CHANGED_MESSAGE}${id}`);
      await multi.exec();
    },

    touch: async (tokenId: string, now: number): Promise<void> => {
      await redis.hSet(tokenKey(tokenId), 'last_used', String(now));
    },
  };
  return {
    save: unavailableAsPortError('save', store.save, observe),
    get: unavailableAsPortError('get', store.get, observe),
    list: unavailableAsPortError('list', store.list, observe),
    revoke: unavailableAsPortError('revoke', store.revoke, observe),
    rescope: unavailableAsPortError('rescope', store.rescope, observe),
    touch: unavailableAsPortError('touch', store.touch, observe),
  };
}

export type TokenStore = ReturnType<typeof createTokenStore>;
