// Bearer authentication: a valid HS256 signature, a token known to the store with the same hash,
// neither revoked nor expired. Every failure is a 401 {message}. A token that passed is cached (token-cache.ts)
// until it expires, is revoked, or the cache's time to live runs out.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { verifyHs256 } from '../../lib/jwt.js';
import { UnauthorizedError } from '../../http/http-errors.js';
import type { BrowserContext, Principal } from '../context.js';
import { ConnectionPools } from '../../platform/falkordb/connection-pools.js';
import { currentPortOf } from '../../platform/falkordb/target-guard.js';
import { decryptPassword, hashToken, sameDigest } from '../tokens/token-crypto.js';

const LAST_USED_INTERVAL_MS = 60_000;
const BEARER_PREFIX_LENGTH = 'Bearer '.length;
const JWT_SYNTAX = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export const MISSING_TOKEN = 'Missing or malformed Authorization header (expected: Bearer <token>)';
export const INVALID_TOKEN = 'Invalid or expired token';
export const REVOKED_TOKEN = 'Token has been revoked';

export function createBearerAuth(context: BrowserContext) {
  /**
   * A callback-style hook: a cached token is accepted synchronously, without the promise and microtask an
   * async hook costs on every request; only a cache miss goes to the store.
   */
  return function authenticate(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
    const header = request.headers.authorization;
    if (typeof header !== 'string' || !header.startsWith('Bearer ')) return done(new UnauthorizedError(MISSING_TOKEN));
    const token = header.slice(BEARER_PREFIX_LENGTH).trim();
    if (!context.authSecret || !context.encryptionKey) return done(new UnauthorizedError(INVALID_TOKEN));

    // A cached entry exists only for a token that passed every check, so its hash alone identifies it; the
    // token's syntax is checked on the way to the store.
    const tokenHash = hashToken(token);
    const cached = context.tokenCache.get(tokenHash);
    if (cached) {
      const now = context.now();
      if (cached.lastUsed === null || now - cached.lastUsed >= LAST_USED_INTERVAL_MS) {
        cached.lastUsed = now;
        recordUse(request, cached.principal.tokenId, now);
      }
      request.principal = cached.principal;
      return done();
    }
    if (!JWT_SYNTAX.test(token)) return done(new UnauthorizedError(MISSING_TOKEN));
    checkWithTheStore(request, token, tokenHash, context.authSecret, context.encryptionKey).then(() => done(), done);
  };

  async function checkWithTheStore(
    request: FastifyRequest,
    token: string,
    tokenHash: string,
    authSecret: string,
    encryptionKey: string,
  ): Promise<void> {
    const epoch = context.tokenCache.begin();

    let tokenId: string;
    try {
      const claims = await verifyHs256(token, authSecret);
      if (typeof claims.jti !== 'string') throw new Error('no jti');
      tokenId = claims.jti;
    } catch {
      throw new UnauthorizedError(INVALID_TOKEN);
    }

    const record = await context.store.get(tokenId);
    const now = context.now();
    if (!record || !sameDigest(record.tokenHash, tokenHash)) throw new UnauthorizedError(INVALID_TOKEN);
    if (record.expiresAt !== null && record.expiresAt <= now) throw new UnauthorizedError(INVALID_TOKEN);
    if (record.revokedAt !== null) throw new UnauthorizedError(REVOKED_TOKEN);

    let lastUsed = record.lastUsed;
    if (lastUsed === null || now - lastUsed >= LAST_USED_INTERVAL_MS) {
      lastUsed = now;
      recordUse(request, record.tokenId, now);
    }

    const credentials = {
      host: record.host,
      port: currentPortOf(context.embeddedPorts, record.host, record.port),
      ...(record.sentinel
        ? {
            sentinel: {
              ...record.sentinel,
              // A Read-Only token cannot write, so a replica can serve it (reads may lag the primary slightly).
              ...(record.role === 'Read-Only' && context.limits.sentinelReadReplicas ? { readFromReplica: true } : {}),
            },
          }
        : {}),
      ...(record.cluster ? { cluster: record.cluster } : {}),
      username: record.username,
      password: decryptPassword(record.passwordEncrypted, encryptionKey),
      tls: record.tls,
      ca: record.ca,
    };
    const principal: Principal = {
      tokenId: record.tokenId,
      userId: record.userId,
      dbKey: record.dbKey,
      username: record.username,
      role: record.role,
      credentials,
      poolKey: ConnectionPools.keyOf(credentials),
    };
    context.tokenCache.add(tokenHash, { principal, expiresAt: record.expiresAt, lastUsed }, epoch);
    request.principal = principal;
  }

  /** Best effort and off the request's path: a failed write must not fail the request. */
  function recordUse(request: FastifyRequest, tokenId: string, now: number): void {
    context.store
      .touch(tokenId, now)
      .catch((error: unknown) => request.log.warn({ err: error }, 'could not record token use'));
  }
}
