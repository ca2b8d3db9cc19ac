// The graph browser API: its composition root (createBrowserServices) and its plugin, which registers the routes
// of each feature: Bearer personal access tokens, graphs, queries, nodes, config, users, server facts and UDFs.
import fastifyMultipart from '@fastify/multipart';
import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { acceptPlainTextJson } from '../http/plain-text-json.js';
import type { Config } from '../config.js';
import { ConnectionPools } from '../platform/falkordb/connection-pools.js';
import { createTargetGuard } from '../platform/falkordb/target-guard.js';
import type { RedisConnection } from '../platform/redis/redis-connection.js';
import { installErrorHandling } from '../http/error-handler.js';
import { BEARER_SCHEME, stampSecurity } from '../http/openapi.js';
import { createBearerAuth } from './auth/bearer-auth.js';
import { configRoutes } from './config/config-routes.js';
import { createConfigService } from './config/config-service.js';
import {
  BROWSER_LIMITS,
  databaseFor,
  type BrowserContext,
  type DatabaseFor,
  type BrowserLimits,
  type ProtectedDatabaseUser,
} from './context.js';
import { graphRoutes } from './graphs/graph-routes.js';
import { createGraphService } from './graphs/graph-service.js';
import { queryRoutes } from './graphs/query-routes.js';
import { createQueryService } from './graphs/query-service.js';
import { HEARTBEAT_INTERVAL_MS } from '../http/sse.js';
import { nodeRoutes } from './nodes/node-routes.js';
import { createNodeService } from './nodes/node-service.js';
import { serverRoutes } from './server/server-routes.js';
import { createServerService } from './server/server-service.js';
import { statusRoutes } from './status/status-routes.js';
import { udfRoutes } from './udf/udf-routes.js';
import { createUdfService } from './udf/udf-service.js';
import { createStatusService } from './status/status-service.js';
import { createTokenService } from './tokens/token-service.js';
import { publicTokenRoutes, tokenRoutes } from './tokens/token-routes.js';
import { createDatabaseUserService } from './users/user-service.js';
import { createRunningQueries } from './running-queries/running-query-service.js';
import { queryControlRoutes } from './running-queries/running-query-routes.js';
import { userRoutes } from './users/user-routes.js';
import { createTokenStore } from '../platform/stores/token-store.js';
import { listenForRevocations } from '../platform/redis/revocation-channel.js';
import { TokenCache } from './auth/token-cache.js';
import { createUploadStore } from '../platform/uploads/upload-store.js';
import { createImportService } from './imports/import-service.js';
import { importRoutes } from './imports/import-routes.js';

/** Enough for every token in active use on a large deployment; the oldest entry goes first beyond it. */
const TOKEN_CACHE_ENTRIES = 10_000;

/** What the browser API needs from the outside world (built by services.ts, or by a test). */
export interface BrowserDeps {
  config: Readonly<Config>;
  logger: FastifyBaseLogger;
  /** The Redis-protocol server holding token metadata (external, or the embedded FalkorDB). */
  tokenStore: RedisConnection;
  /** Connections to the users' databases; created here when not given. Closed with the services either way. */
  connectionPools?: ConnectionPools;
  now?: () => number;
  sseHeartbeatMs?: number;
  observeTokenStore?: (operation: string, seconds: number) => void;
  /** The embedded FalkorDB: where it listens and the accounts the server itself uses there. */
  embeddedDatabase?: { host: string; port: number; formerPorts?: readonly number[]; serviceAccounts: string[] };
  /** The database account of the token store: browser users may not change or delete it. */
  tokenStoreAccount?: ProtectedDatabaseUser;
}

/** What a caller can make the server do, at most (each one an environment variable, see config.ts). */
export function browserLimitsOf(config: Readonly<Config>): BrowserLimits {
  return Object.fromEntries(BROWSER_LIMITS.map((key) => [key, config[key]])) as BrowserLimits;
}

function protectedUsersOf(deps: BrowserDeps): ProtectedDatabaseUser[] {
  const embedded = deps.embeddedDatabase;
  const ownAccounts = embedded
    ? embedded.serviceAccounts.map((username) => ({ host: embedded.host, port: embedded.port, username }))
    : [];
  return [...ownAccounts, ...(deps.tokenStoreAccount ? [deps.tokenStoreAccount] : [])];
}

/** The composition root of the browser API: every service built once, here only. */
export function createBrowserServices(deps: BrowserDeps) {
  const { config } = deps;
  const now = deps.now ?? Date.now;
  // Every new connection to a user's database is resolved once and checked against DATABASE_HOSTS; a connection
  // silent for longer than the longest query allowed is dead, so it cannot hold a request forever.
  const pools =
    deps.connectionPools ??
    new ConnectionPools(deps.logger, {
      resolveTarget: createTargetGuard({
        allowed: config.databaseHosts,
        embedded: deps.embeddedDatabase ? { port: deps.embeddedDatabase.port } : undefined,
      }),
      socketTimeoutMs: config.queryTimeoutMaxMs + 10_000,
      replicaAckMs: config.sentinelWriteAckMs,
    });
  const tokenCache = new TokenCache({ ttlMs: config.tokenCacheTtlMs, maxEntries: TOKEN_CACHE_ENTRIES, now });
  const revocations =
    config.tokenCacheTtlMs > 0 ? listenForRevocations(deps.tokenStore, tokenCache, deps.logger) : undefined;
  const context: BrowserContext = {
    authSecret: config.authSecret,
    encryptionKey: config.encryptionKey,
    store: createTokenStore(deps.tokenStore, undefined, deps.observeTokenStore),
    tokenCache,
    pools,
    now,
    sseHeartbeatMs: deps.sseHeartbeatMs ?? HEARTBEAT_INTERVAL_MS,
    protectedUsers: protectedUsersOf(deps),
    limits: browserLimitsOf(config),
    ...(deps.embeddedDatabase
      ? { embeddedPorts: { port: deps.embeddedDatabase.port, former: deps.embeddedDatabase.formerPorts ?? [] } }
      : {}),
  };
  const callersDatabase: DatabaseFor = (principal) => databaseFor(context, principal);
  // One token service: its cap on credential checks in flight counts every creation.
  const tokens = createTokenService(context);
  const running = createRunningQueries(now);
  const queries = createQueryService(context, running);
  // Staged uploads live in a private temporary directory, for their uploader, for an hour.
  const uploads = createUploadStore({
    ttlMs: 60 * 60_000,
    maxFilesPerOwner: 8,
    maxFiles: 64,
    bytesPerOwner: config.uploadStagedBytesPerUser,
    bytesMax: config.uploadStagedBytesMax,
    now,
  });
  return {
    context,
    pools,
    tokenCreationPerMinute: config.tokenCreationPerMinute,
    tokens,
    graphs: createGraphService({ databaseFor: callersDatabase }),
    nodes: createNodeService({ databaseFor: callersDatabase }),
    status: createStatusService({ databaseFor: callersDatabase }),
    config: createConfigService({ databaseFor: callersDatabase }),
    running,
    queries,
    imports: createImportService(context, uploads, queries, {
      serverBin: config.falkordbServerBin,
      modulePath: config.falkordbModulePath,
    }),
    users: createDatabaseUserService(context, tokens, deps.logger),
    server: createServerService({ databaseFor: callersDatabase }),
    udf: createUdfService({ databaseFor: callersDatabase }),
    async close(): Promise<void> {
      await revocations?.close();
      await pools.closeAll();
      await uploads.close();
    },
  };
}

export type BrowserServices = ReturnType<typeof createBrowserServices>;

/** Registers the browser API's routes with the services built by createBrowserServices. */
export async function browserPlugin(app: FastifyInstance, { services }: { services: BrowserServices }): Promise<void> {
  // The FalkorDB adapter's failures arrive as port errors, answered here once for every route.
  installErrorHandling(app, 'browser');
  const { context, tokens } = services;
  await app.register(fastifyRateLimit, { global: false });
  const tokenDeps = { tokens, creationsPerMinute: services.tokenCreationPerMinute };
  publicTokenRoutes(app, tokenDeps);

  // Every other route needs a token; authentication runs first, before the body is even read.
  await app.register(function tokenGuardedRoutes(guarded, _options, done) {
    guarded.addHook('onRequest', createBearerAuth(context));
    guarded.addHook('onRoute', stampSecurity([BEARER_SCHEME], 'browser'));
    // Bearer-only routes, so a JSON body labelled text/plain (as the FalkorDB Browser sends some) cannot be forged.
    acceptPlainTextJson(guarded);
    tokenRoutes(guarded, tokenDeps);
    statusRoutes(guarded, { status: services.status });
    configRoutes(guarded, { config: services.config });
    graphRoutes(guarded, { graphs: services.graphs, csvUrlAllowlist: context.limits.csvUrlAllowlist });
    queryRoutes(guarded, {
      queries: services.queries,
      csvUrlAllowlist: context.limits.csvUrlAllowlist,
      sseHeartbeatMs: context.sseHeartbeatMs,
    });
    queryControlRoutes(guarded, { running: services.running, now: context.now });
    nodeRoutes(guarded, { nodes: services.nodes });
    userRoutes(guarded, { users: services.users });
    serverRoutes(guarded, { server: services.server });
    udfRoutes(guarded, { udf: services.udf });
    // Multipart bodies are parsed for the import routes only: anywhere else one is refused (400) like any type the
    // route does not declare. Uploads are streamed (never buffered) and bounded: one file of at most
    // UPLOAD_BYTES_MAX, a few small fields.
    void guarded.register(async function imports(scope) {
      await scope.register(fastifyMultipart, {
        limits: { files: 1, fields: 4, parts: 5, fieldSize: 1024, fileSize: context.limits.uploadBytesMax },
      });
      importRoutes(scope, { imports: services.imports, csvUrlAllowlist: context.limits.csvUrlAllowlist });
    });
    done();
  });
}
