// What the browser API's routes share: its configuration, the token store, the connection pools, and the
// authenticated principal each request carries.
import type { FastifyRequest } from 'fastify';
import type { ConnectionPools, DbCredentials } from '../platform/falkordb/connection-pools.js';
import { GraphDatabase } from '../platform/falkordb/graph-database.js';
import { canonicalDatabaseHost, type EmbeddedPorts } from '../platform/falkordb/target-guard.js';
import type { Role } from './auth/roles.js';
import type { TokenCache } from './auth/token-cache.js';
import type { TokenStore } from '../platform/stores/token-store.js';

export interface BrowserContext {
  authSecret: string | undefined;
  encryptionKey: string | undefined;
  store: TokenStore;
  tokenCache: TokenCache;
  pools: ConnectionPools;
  now: () => number;
  sseHeartbeatMs: number;
  /** Database users this server itself signs in as (the token store's account): browser users may not change them. */
  protectedUsers: ProtectedDatabaseUser[];
  limits: BrowserLimits;
  /** Embedded mode: where the embedded FalkorDB listens now and listened before (tokens name the port of then). */
  embeddedPorts?: EmbeddedPorts;
}

/** What a caller can make the server do, at most (each one an environment variable, see config.ts). */
export interface BrowserLimits {
  /** Behind Sentinel, Read-Only tokens read from a replica (SENTINEL_READ_REPLICAS). */
  sentinelReadReplicas?: boolean;
  credentialCheckTimeoutMs: number;
  credentialChecksMax: number;
  queryTimeoutMaxMs: number;
  tokenDefaultTtlSeconds: number;
  queryRowsMax: number;
  queryResultBytesMax: number;
  queriesPerToken: number;
  queriesPerClient: number;
  /** CSV_URL_ALLOWLIST: normalised http(s) URL prefixes LOAD CSV may read besides file://. */
  csvUrlAllowlist: readonly string[];
  uploadBytesMax: number;
  importTimeoutMs: number;
  /** Bytes of dumps being restored at once, server-wide, and restores one user may run at once. */
  restoreBytesMax: number;
  restoresPerUser: number;
}

export interface ProtectedDatabaseUser {
  host: string;
  port: number;
  username: string;
  /**
   * The token store is a sharded cluster: a cluster token may name any of its nodes (not only the store's seeds),
   * and users go to every node, so the user is protected from every cluster token.
   */
  everyCluster?: boolean;
}

export function isProtectedUser(context: BrowserContext, principal: Principal, username: string): boolean {
  const { host, port, cluster } = principal.credentials;
  return context.protectedUsers.some(
    (user) =>
      user.username === username &&
      ((user.everyCluster === true && cluster !== undefined) ||
        (user.port === port && canonicalDatabaseHost(user.host) === canonicalDatabaseHost(host))),
  );
}

export interface Principal {
  tokenId: string;
  userId: string;
  dbKey: string;
  username: string;
  role: Role;
  credentials: DbCredentials;
  /** `ConnectionPools.keyOf(credentials)`, computed once when the token is checked rather than per request. */
  poolKey: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route is missing bearer authentication');
  return request.principal;
}

export function databaseFor(context: BrowserContext, principal: Principal): GraphDatabase {
  return new GraphDatabase(context.pools.pool(principal.credentials, principal.poolKey));
}
