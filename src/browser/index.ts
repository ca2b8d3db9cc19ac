// The graph browser API plugin: Bearer personal access tokens, graphs, queries, nodes, config and users.
import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { ConnectionPools } from '../platform/falkordb/connection-pools.js';
import type { RedisConnection } from '../platform/redis/redis-connection.js';
import { installErrorHandling } from '../shared/error-handler.js';
import { toHttpError } from './database/database-errors.js';
import { BEARER_SCHEME, stampSecurity } from '../shared/openapi.js';
import { createBearerAuth } from './auth/bearer-auth.js';
import { configRoutes } from './config/config-routes.js';
import { createConfigService } from './config/config-service.js';
import type { BrowserContext, BrowserLimits, ProtectedDatabaseUser } from './context.js';
import { graphRoutes } from './graphs/graph-routes.js';
import { queryRoutes } from './graphs/query-routes.js';
import { HEARTBEAT_INTERVAL_MS } from './graphs/sse.js';
import { nodeRoutes } from './nodes/node-routes.js';
import { serverRoutes } from './server/server-routes.js';
import { createServerService } from './server/server-service.js';
import { statusRoutes } from './status/status-routes.js';
import { udfRoutes } from './udf/udf-routes.js';
import { createUdfService } from './udf/udf-service.js';
import { createStatusService } from './status/status-service.js';
import { createTokenService } from './tokens/token-service.js';
import { publicTokenRoutes, tokenRoutes } from './tokens/token-routes.js';
import { createDatabaseUserService } from './users/user-service.js';
import { createRunningQueries } from './queries/running-queries.js';
import { queryControlRoutes } from './queries/query-control-routes.js';
import { userRoutes } from './users/user-routes.js';
import { createTokenStore } from './tokens/token-store.js';
import { listenForRevocations } from './tokens/revocation-channel.js';
import { TokenCache } from './auth/token-cache.js';

/** Enough for every token in active use on a large deployment; the oldest entry goes first beyond it. */
const TOKEN_CACHE_ENTRIES = 10_000;

export interface BrowserPluginOptions {
  authSecret: string | undefined;
  encryptionKey: string | undefined;
  tokenStore: RedisConnection;
  /** 0 checks every request against the store. */
  tokenCacheTtlMs: number;
  /** 0 is no limit. */
  tokenCreationPerMinute: number;
  pools: ConnectionPools;
  now?: () => number;
  sseHeartbeatMs?: number;
  observeTokenStore?: (operation: string, seconds: number) => void;
  protectedUsers?: ProtectedDatabaseUser[];
  limits: BrowserLimits;
}

export async function browserPlugin(app: FastifyInstance, options: BrowserPluginOptions): Promise<void> {
  // FalkorDB's failures become HTTP errors here, once for every route (no call site wraps its calls).
  installErrorHandling(app, 'browser', toHttpError);
  const now = options.now ?? Date.now;
  const tokenCache = new TokenCache({ ttlMs: options.tokenCacheTtlMs, maxEntries: TOKEN_CACHE_ENTRIES, now });
  if (options.tokenCacheTtlMs > 0) {
    const revocations = listenForRevocations(options.tokenStore, tokenCache, app.log);
    app.addHook('onClose', () => revocations.close());
  }
  const context: BrowserContext = {
    authSecret: options.authSecret,
    encryptionKey: options.encryptionKey,
    store: createTokenStore(options.tokenStore, undefined, options.observeTokenStore),
    tokenCache,
    pools: options.pools,
    now,
    sseHeartbeatMs: options.sseHeartbeatMs ?? HEARTBEAT_INTERVAL_MS,
    protectedUsers: options.protectedUsers ?? [],
    limits: options.limits,
  };

  await app.register(fastifyRateLimit, { global: false });
  // One token service: its cap on credential checks in flight counts every creation.
  const tokens = createTokenService(context);
  publicTokenRoutes(app, tokens, options.tokenCreationPerMinute);

  // Every other route needs a token; authentication runs first, before the body is even read.
  await app.register(function tokenGuardedRoutes(guarded, _options, done) {
    guarded.addHook('onRequest', createBearerAuth(context));
    guarded.addHook('onRoute', stampSecurity(BEARER_SCHEME, 'browser'));
    tokenRoutes(guarded, tokens);
    statusRoutes(guarded, context, createStatusService());
    configRoutes(guarded, context, createConfigService());
    graphRoutes(guarded, context);
    const running = createRunningQueries(now);
    queryRoutes(guarded, context, running);
    queryControlRoutes(guarded, running, now);
    nodeRoutes(guarded, context);
    userRoutes(guarded, createDatabaseUserService(context, tokens, app.log));
    serverRoutes(guarded, context, createServerService());
    udfRoutes(guarded, context, createUdfService());
    done();
  });
}
