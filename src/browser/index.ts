// The graph browser API plugin: Bearer personal access tokens, graphs, queries, nodes, config and users.
import type { FastifyInstance } from 'fastify';
import type { ConnectionPools } from '../platform/falkordb/connection-pools.js';
import type { RedisConnection } from '../platform/redis/redis-connection.js';
import { installErrorHandling } from '../shared/error-handler.js';
import { createBearerAuth } from './auth/bearer-auth.js';
import { configRoutes } from './config/config-routes.js';
import type { BrowserContext } from './context.js';
import { graphRoutes } from './graphs/graph-routes.js';
import { queryRoutes } from './graphs/query-routes.js';
import { HEARTBEAT_INTERVAL_MS } from './graphs/sse.js';
import { nodeRoutes } from './nodes/node-routes.js';
import { statusRoutes } from './status/status-routes.js';
import { publicTokenRoutes, tokenRoutes } from './tokens/token-routes.js';
import { userRoutes } from './users/user-routes.js';
import { createTokenStore } from './tokens/token-store.js';

export interface BrowserPluginOptions {
  authSecret: string | undefined;
  encryptionKey: string | undefined;
  tokenStore: RedisConnection;
  pools: ConnectionPools;
  now?: () => number;
  sseHeartbeatMs?: number;
  observeTokenStore?: (operation: string, seconds: number) => void;
}

export async function browserPlugin(app: FastifyInstance, options: BrowserPluginOptions): Promise<void> {
  installErrorHandling(app, 'browser');
  const context: BrowserContext = {
    authSecret: options.authSecret,
    encryptionKey: options.encryptionKey,
    store: createTokenStore(options.tokenStore, undefined, options.observeTokenStore),
    pools: options.pools,
    now: options.now ?? Date.now,
    sseHeartbeatMs: options.sseHeartbeatMs ?? HEARTBEAT_INTERVAL_MS,
  };

  publicTokenRoutes(app, context);

  // Every other route needs a token; authentication runs first, before the body is even read.
  await app.register(function tokenGuardedRoutes(guarded, _options, done) {
    guarded.addHook('onRequest', createBearerAuth(context));
    tokenRoutes(guarded, context);
    statusRoutes(guarded, context);
    configRoutes(guarded, context);
    graphRoutes(guarded, context);
    queryRoutes(guarded, context);
    nodeRoutes(guarded, context);
    userRoutes(guarded, context);
    done();
  });
}
