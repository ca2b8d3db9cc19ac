// Personal access tokens: issue (after checking the credentials against the database), list, read, revoke.
import { createHash, randomUUID } from 'node:crypto';
import { SlotMapRefusedError } from '../../platform/falkordb/sharded-pool.js';
import type { ShardedTopology, DatabasePool, SentinelTopology } from '../../platform/falkordb/database-pool.js';
import { isReplyError } from '../../platform/falkordb/database-errors.js';
import { GraphDatabase } from '../../platform/falkordb/graph-database.js';
import { graphModuleVersion } from '../../platform/falkordb/server-commands.js';
import { canonicalDatabaseHost, TargetRefusedError } from '../../platform/falkordb/target-guard.js';
import {
  BadRequestError,
  ForbiddenError,
  HttpError,
  MisconfiguredError,
  NotFoundError,
  UnauthorizedError,
} from '../../http/http-errors.js';
import { signHs256 } from '../../lib/jwt.js';
import { databaseFor, type BrowserContext, type Principal } from '../context.js';
import type { Role } from '../auth/roles.js';
import { detectRole } from './role-detection.js';
import { MAX_TTL_SECONDS, type CreateTokenBody, type TokenMetadata } from './schemas.js';
import { encryptPassword, hashToken } from './token-crypto.js';
import { parseAddresses, type TokenRecord } from '../../platform/stores/token-store.js';

export const CREDENTIALS_REJECTED = 'Invalid credentials or connection failed';
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/** The identity of a database: its canonical host and its port (`localhost` and `127.0.0.1` are one database). */
export function databaseKey(host: string, port: number): string {
  return `${canonicalDatabaseHost(host)}:${port}`;
}

/** How a token reaches its database: one node (neither), a Sentinel master, or a sharded cluster. */
export interface TokenTopology {
  sentinel?: SentinelTopology;
  cluster?: ShardedTopology;
}

export function userIdOf(host: string, port: number, username: string, topology: TokenTopology = {}): string {
  return createHash('sha256')
    .update(`${tokenDatabaseKey(host, port, topology)}\n${username}`)
    .digest('hex');
}

/**
 * The browser API specification's checks that need no database, in its order: expiry, then TTL, then the password rule. Every token
 * expires: without expiresAt or ttlSeconds it lives `defaultTtlSeconds`, and no later than the specification's
 * longest TTL (docs/decisions/server-facts-and-udfs.md, "Token lifetime").
 */
export function resolveExpiry(body: CreateTokenBody, now: number, defaultTtlSeconds: number): number {
  if (body.expiresAt !== undefined && body.expiresAt !== null) {
    const at = Date.parse(body.expiresAt);
    if (!/^\d{4}-\d{2}-\d{2}/.test(body.expiresAt) || Number.isNaN(at))
      throw new BadRequestError('expiresAt must be an ISO 8601 date-time');
    if (at <= now) throw new BadRequestError('Expiration date must be in the future');
    if (body.ttlSeconds !== undefined) throw new BadRequestError('Give either expiresAt or ttlSeconds, not both');
    if (at > now + MAX_TTL_SECONDS * 1000)
      throw new BadRequestError(`Expiration date must be within ${MAX_TTL_SECONDS} seconds (366 days) from now`);
    return at;
  }
  // The schema holds ttlSeconds to a whole number from 1 to MAX_TTL_SECONDS.
  if (body.ttlSeconds !== undefined) return now + body.ttlSeconds * 1000;
  return now + defaultTtlSeconds * 1000;
}

/**
 * A token is issued only for a server that proves it is FalkorDB: `GRAPH.LIST` answers a list (every role's ACL
 * grants it), or, when that is refused, `MODULE LIST` names the graph module. A server that answers `+OK` to
 * everything, or a Redis without the module, proves nothing.
 */
async function proveFalkorDB(pool: DatabasePool): Promise<void> {
  try {
    if (Array.isArray(await pool.send(['GRAPH.LIST']))) return;
  } catch (error) {
    if (!isReplyError(error)) throw error;
    if (graphModuleVersion(await pool.send(['MODULE', 'LIST'])) !== undefined) return;
  }
  throw new Error('the server is not FalkorDB');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function checkPasswordRule(body: CreateTokenBody): string {
  const password = body.password ?? '';
  if (password === '' && !(body.username === 'default' && LOOPBACK_HOSTS.has(body.host.toLowerCase()))) {
    throw new BadRequestError('password is required (it may be empty only for the default user on localhost)');
  }
  return password;
}

export function toMetadata(record: TokenRecord): TokenMetadata {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    user_id: record.userId,
    token_id: record.tokenId,
    created_at: new Date(record.createdAt).toISOString(),
    expires_at: iso(record.expiresAt),
    last_used: iso(record.lastUsed),
    name: record.name,
    permissions: [record.role],
    username: record.username,
    role: record.role,
    host: record.host,
    port: record.port,
    topology: record.sentinel ? 'sentinel' : record.cluster ? 'cluster' : 'single',
    ...(record.sentinel ? { masterName: record.sentinel.masterName } : {}),
    revoked: record.revokedAt !== null,
  };
}

/** The addresses given by host and port first, then `more`, checked and without repeats. */
function addressesOf(kind: string, body: CreateTokenBody, more: string[]): { host: string; port: number }[] {
  const nodes = [{ host: body.host, port: body.port }, ...parseAddresses(more.join(','))];
  for (const node of nodes)
    if (!Number.isInteger(node.port) || node.port < 1 || node.port > 65535)
      throw new BadRequestError(`${kind} ${node.host}:${node.port}: the port must be between 1 and 65535`);
  const seen = new Set<string>();
  return nodes.filter((node) => {
    const key = databaseKey(node.host, node.port);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The topology the body names, checked: a Sentinel master name and its sentinels, or a cluster's seed nodes (the
 * one given by host and port first, then `sentinels` or `seeds`, without repeats); none for a single node. 400 for
 * fields of another topology.
 */
export function topologyOf(body: CreateTokenBody): TokenTopology {
  const topology = body.topology ?? 'single';
  if (topology !== 'sentinel' && (body.masterName !== undefined || body.sentinels !== undefined))
    throw new BadRequestError('masterName and sentinels apply only to topology sentinel');
  if (topology !== 'cluster' && body.seeds !== undefined)
    throw new BadRequestError('seeds apply only to topology cluster');
  if (topology === 'cluster') return { cluster: { seeds: addressesOf('seed', body, body.seeds ?? []) } };
  if (topology === 'single') return {};
  if (!body.masterName) throw new BadRequestError('masterName is required for topology sentinel');
  return { sentinel: { masterName: body.masterName, sentinels: addressesOf('sentinel', body, body.sentinels ?? []) } };
}

/**
 * The identity of the database a token reaches: its host and port; through Sentinel, the master name at the
 * sentinel named first (the same master behind other sentinels is another identity; the docs say so); for a
 * cluster, the caller named first.
 */
export function tokenDatabaseKey(host: string, port: number, topology: TokenTopology = {}): string {
  if (topology.sentinel) return `sentinel:${topology.sentinel.masterName}:${databaseKey(host, port)}`;
  if (topology.cluster) return `cluster:${databaseKey(host, port)}`;
  return databaseKey(host, port);
}

export function createTokenService(context: BrowserContext) {
  let checksInFlight = 0;
  const isLive = (record: TokenRecord) => record.expiresAt === null || record.expiresAt > context.now();

  /**
   * Whether the principal administers its database now: a token's role was detected when it was made, and its
   * user may have been demoted or deleted since (by this server or by hand), so an Admin token's power over other
   * users' tokens is confirmed against the database each time. A deleted user's connection is refused (401).
   */
  async function isAdminNow(principal: Principal): Promise<boolean> {
    if (principal.role !== 'Admin') return false;
    return (await detectRole(databaseFor(context, principal), principal.username)) === 'Admin';
  }

  /** Owners see their tokens; an Admin sees every token of the database it administers. */
  async function canSee(principal: Principal, record: TokenRecord): Promise<boolean> {
    if (record.userId === principal.userId) return true;
    return record.dbKey === principal.dbKey && (await isAdminNow(principal));
  }

  async function liveRecord(tokenId: string): Promise<TokenRecord> {
    const record = await context.store.get(tokenId);
    if (!record || !isLive(record)) throw new NotFoundError('Token not found');
    return record;
  }

  async function assertVisible(principal: Principal, record: TokenRecord, denied: string): Promise<void> {
    if (!(await canSee(principal, record))) throw new ForbiddenError(denied);
  }

  /** The live tokens of one database user of the principal's database. */
  async function tokensOfUser(principal: Principal, username: string): Promise<TokenRecord[]> {
    const records = await context.store.list({ dbKey: principal.dbKey });
    return records.filter((record) => record.username === username && record.revokedAt === null && isLive(record));
  }

  return {
    /** 500s for missing server secrets come first, before the body is even parsed (see the route's hook). */
    assertConfigured(): void {
      if (!context.authSecret) throw new MisconfiguredError('Server configuration error: AUTH_SECRET not set');
      if (!context.encryptionKey) throw new MisconfiguredError('Server configuration error: ENCRYPTION_KEY not set');
    },

    async create(body: CreateTokenBody): Promise<string> {
      const now = context.now();
      const expiresAt = resolveExpiry(body, now, context.limits.tokenDefaultTtlSeconds);
      const password = checkPasswordRule(body);
      const port = body.port;
      const topology = topologyOf(body);
      const { sentinel } = topology;
      const credentials = {
        host: body.host,
        port,
        ...topology,
        username: body.username,
        password,
        tls: body.tls,
        ca: body.ca,
      };

      const { credentialCheckTimeoutMs: deadlineMs, credentialChecksMax } = context.limits;
      if (checksInFlight >= credentialChecksMax)
        throw new HttpError(429, 'Too many token requests in progress; try again in a second', { 'retry-after': '1' });
      checksInFlight++;
      const started = Date.now();
      let role: Role | undefined;
      try {
        role = await context.pools.withCheckConnection(
          credentials,
          async (pool) => {
            await proveFalkorDB(pool);
            // A cluster token must reach every shard: the same credentials are checked on each primary.
            if (topology.cluster) await pool.sendToEveryPrimary(['PING']);
            return detectRole(new GraphDatabase(pool), body.username);
          },
          deadlineMs,
        );
      } catch (error) {
        // A host the server may not reach is refused before any connection: that tells nothing about the network.
        if (error instanceof TargetRefusedError) throw new BadRequestError(error.message);
        // The credentials were accepted, but the user cannot find the shards: say what to grant.
        if (error instanceof SlotMapRefusedError) throw new BadRequestError(error.message);
      } finally {
        checksInFlight--;
      }
      if (role === undefined) {
        // Closed, silent, refusing and impostor servers and wrong passwords all answer the same, at the deadline,
        // so that neither the body nor the timing tells a prober which one it met.
        await sleep(started + deadlineMs - Date.now());
        throw new UnauthorizedError(CREDENTIALS_REJECTED);
      }

      const tokenId = `${now}-${randomUUID()}`;
      const token = await signHs256(
        { sub: randomUUID(), jti: tokenId, username: body.username, role, host: body.host, port, tls: credentials.tls },
        context.authSecret!,
        { expiresAt: Math.floor(expiresAt / 1000) },
      );
      await context.store.save({
        tokenId,
        userId: userIdOf(body.host, port, body.username, topology),
        dbKey: tokenDatabaseKey(body.host, port, topology),
        username: body.username,
        name: body.name ?? `${body.username}@${sentinel ? `${sentinel.masterName}/` : ''}${body.host}:${port}`,
        role,
        host: body.host,
        port,
        ...topology,
        tls: credentials.tls,
        ca: body.ca,
        createdAt: now,
        expiresAt,
        lastUsed: null,
        revokedAt: null,
        tokenHash: hashToken(token),
        passwordEncrypted: encryptPassword(password, context.encryptionKey!),
      });
      return token;
    },

    async list(principal: Principal): Promise<TokenMetadata[]> {
      const records = await context.store.list(
        (await isAdminNow(principal)) ? { dbKey: principal.dbKey } : { userId: principal.userId },
      );
      return records.filter((record) => isLive(record) && record.revokedAt === null).map(toMetadata);
    },

    async read(principal: Principal, tokenId: string): Promise<TokenMetadata> {
      const record = await liveRecord(tokenId);
      await assertVisible(principal, record, 'Forbidden: You can only view your own tokens');
      return toMetadata(record);
    },

    async revoke(principal: Principal, tokenId: string): Promise<void> {
      // The browser API specification's revoked-token table: a second revocation answers 400 whoever asks, before ownership is judged.
      const record = await liveRecord(tokenId);
      if (record.revokedAt !== null) throw new BadRequestError('Token is already revoked');
      await assertVisible(principal, record, 'Forbidden: You can only revoke your own tokens');
      const outcome = await context.store.revoke(tokenId, context.now());
      // The store announced it to every replica; this one need not wait for its own announcement.
      if (outcome !== 'not-found') context.tokenCache.revoked(tokenId);
      if (outcome === 'not-found') throw new NotFoundError('Token not found');
      if (outcome === 'already-revoked') throw new BadRequestError('Token is already revoked');
    },

    /** A database user was deleted: its tokens are revoked, on every replica. Returns how many. */
    async revokeTokensOfUser(principal: Principal, username: string): Promise<number> {
      const records = await tokensOfUser(principal, username);
      for (const record of records) {
        await context.store.revoke(record.tokenId, context.now());
        context.tokenCache.revoked(record.tokenId);
      }
      return records.length;
    },

    /** A database user's role changed: its tokens act with the new role from their next request on. */
    async rescopeTokensOfUser(principal: Principal, username: string, role: Role): Promise<number> {
      const records = (await tokensOfUser(principal, username)).filter((record) => record.role !== role);
      await context.store.rescope(
        records.map((record) => record.tokenId),
        role,
      );
      for (const record of records) context.tokenCache.revoked(record.tokenId);
      return records.length;
    },
  };
}

export type TokenService = ReturnType<typeof createTokenService>;
