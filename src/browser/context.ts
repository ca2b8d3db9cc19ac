// What the browser API's routes share: its configuration, the token store, the connection pools, and the
// authenticated principal each request carries.
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { ConnectionPools } from '../platform/falkordb/connection-pools.js';
import { GraphDatabase } from '../platform/falkordb/graph-database.js';
import { canonicalDatabaseHost, type EmbeddedPorts } from '../platform/falkordb/target-guard.js';
import type { TokenCache } from './auth/token-cache.js';
import type { Principal } from './auth/principal.js';
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

/** The settings that bound what a caller can make the browser API do. */
export const BROWSER_LIMITS = [
  'sentinelReadReplicas',
  'credentialCheckTimeoutMs',
  'credentialChecksMax',
  'queryTimeoutMaxMs',
  'tokenDefaultTtlSeconds',
  'queryRowsMax',
  'queryResultBytesMax',
  'queriesPerToken',
  'queriesPerClient',
  'csvUrlAllowlist',
  'uploadBytesMax',
  'importTimeoutMs',
  'restoreBytesMax',
  'restoresPerUser',
] as const;

/** What a caller can make the server do, at most: those settings as config.ts reads them. */
export type BrowserLimits = Pick<Config, Exclude<(typeof BROWSER_LIMITS)[number], 'sentinelReadReplicas'>> &
  Partial<Pick<Config, 'sentinelReadReplicas'>>;

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

export type { Principal } from './auth/principal.js';

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route is missing bearer authentication');
  return request.principal;
}

export function databaseFor(context: BrowserContext, principal: Principal): GraphDatabase {
  return new GraphDatabase(context.pools.pool(principal.credentials, principal.poolKey));
}

/** The database of a token's user (connection pools keyed by its credentials): what a feature's service is built on. */
export type DatabaseFor = (principal: Principal) => GraphDatabase;

/** Turns an operation on a database into the same operation on the caller's database. */
export function onCallersDatabase(databaseFor: DatabaseFor) {
  return <A extends unknown[], R>(operation: (database: GraphDatabase, ...args: A) => R) =>
    (principal: Principal, ...args: A): R =>
      operation(databaseFor(principal), ...args);
}
