// A server for the overhead scenarios only: the production app, plus its graph routes a second time under
// /unauthenticated with a fixed principal in place of bearer authentication, and GET /api/settings/ three times more,
// in one scope built like the admin plugin's session scope: under /twin/checked with the permission check, under
// /twin/unchecked without it, and under /twin/unlogged with it at log level warn (no access line). Everything lives in
// one process, so the difference between `GET /api/graph` and `GET /unauthenticated/api/graph` is what
// authentication costs, between checked and unchecked what the permission check (the role's rules read and matched)
// costs, and between checked and unlogged what the access line costs. Started by bench/run.ts; never part of the
// product.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { buildApp } from '../../src/app.js';
import { browserLimitsOf } from '../../src/browser/index.js';
import { graphRoutes } from '../../src/browser/graphs/graph-routes.js';
import { createGraphService } from '../../src/browser/graphs/graph-service.js';
import { TokenCache } from '../../src/browser/auth/token-cache.js';
import { createTokenStore } from '../../src/platform/stores/token-store.js';
import { databaseFor, type BrowserContext, type Principal } from '../../src/browser/context.js';
import { loadConfig } from '../../src/config.js';
import { ConnectionPools } from '../../src/platform/falkordb/connection-pools.js';
import { startServices } from '../../src/services.js';
import { serverLogger } from '../../src/logging/logging.js';
import { serverLogDestination } from '../../src/logging/log-destinations.js';
import { createAdminServices } from '../../src/admin/index.js';
import { recordAuditEntries } from '../../src/admin/audit/audit-recorder.js';
import { refuseCrossSiteRequests } from '../../src/admin/sessions/cross-site-guard.js';
import { requireSessionWithRules } from '../../src/admin/sessions/session-guard.js';
import { hoistPermissionGuard, requirePermission } from '../../src/admin/permissions/permissions.js';
import { settingsJson } from '../../src/admin/settings/settings-routes.js';
import { sendJsonOf } from '../../src/http/prepared-json.js';

const config = loadConfig(process.env);
// The server's own log destination (main.ts), so that a logged route costs here what it costs there.
const { stdout, recentLogs } = serverLogDestination();
const { logger, accessLines } = serverLogger(config.logLevel, stdout);
const services = await startServices(config, logger);
const app = await buildApp(services.config, { ...services.deps, recentLogs, accessLines });
const credentials = {
  host: process.env.BENCH_DB_HOST ?? '127.0.0.1',
  port: Number(process.env.BENCH_DB_PORT),
  username: 'default',
  password: '',
  tls: false,
};
const principal: Principal = {
  tokenId: 'bench',
  userId: 'bench',
  dbKey: `${credentials.host}:${credentials.port}`,
  username: 'default',
  role: 'Admin',
  credentials,
  poolKey: ConnectionPools.keyOf(credentials),
};
await app.register(
  function unauthenticated(scope, _options, done) {
    const pools = new ConnectionPools(logger);
    const context: BrowserContext = {
      authSecret: undefined,
      encryptionKey: undefined,
      store: createTokenStore(services.deps.tokenStore),
      tokenCache: new TokenCache({ ttlMs: 0, maxEntries: 0, now: Date.now }),
      pools,
      now: Date.now,
      sseHeartbeatMs: 15_000,
      protectedUsers: [],
      limits: browserLimitsOf(services.config),
    };
    scope.addHook('onClose', () => pools.closeAll());
    scope.addHook('onRequest', (request, _reply, next) => {
      request.principal = principal;
      next();
    });
    graphRoutes(scope, {
      graphs: createGraphService({ databaseFor: (caller) => databaseFor(context, caller) }),
      csvUrlAllowlist: context.limits.csvUrlAllowlist,
    });
    done();
  },
  { prefix: '/unauthenticated' },
);
// The permission check's pair: two copies of GET /api/settings/ in one scope built as the admin plugin builds its
// session scope (the cross-site guard, the audit hooks, the roles' rules read beside the session check, the guard
// hoisted into the request phase), one declaring requirePermission and one not. Both sides share the scope, the
// request class, the services and the JSON, so the pair differs by the guard alone. (Its first form set the real
// route against a copy outside the admin plugin, served by other services; with the audit hooks gone from reads the
// two sides moved apart for reasons other than the guard: docs/decisions/conformance-walk.md.)
const admin = createAdminServices({
  ...services.deps,
  sharedStore: services.deps.tokenStore,
  config: services.config,
  stores: services.deps.adminStores,
  logger,
});
app.addHook('onClose', () => admin.close());
await app.register(
  function permissionPair(scope, _options, done) {
    const { context } = admin;
    scope.decorateRequest('roleRules', undefined);
    scope.addHook('onRequest', refuseCrossSiteRequests(services.config.publicOrigin));
    recordAuditEntries(scope, {
      recorder: admin.auditRecorder,
      serverNamespace: context.namespace,
      clusterNamespace: admin.clusterNamespace,
    });
    scope.addHook('onRoute', hoistPermissionGuard);
    scope.addHook('onRequest', requireSessionWithRules(context.sessions, context.rbac, admin.serviceAccountTokens));
    const handler = (_request: FastifyRequest, reply: FastifyReply) =>
      sendJsonOf(reply, context.settings.inForce(), settingsJson);
    const guard = requirePermission('settings', 'read', () => context.namespace);
    scope.get('/checked/api/settings/', { preValidation: guard }, handler);
    scope.get('/unchecked/api/settings/', handler);
    // The access line's pair: the checked route again, at log level warn, so it writes no access line (the floor,
    // GET /healthz, writes none either).
    scope.get('/unlogged/api/settings/', { logLevel: 'warn', preValidation: guard }, handler);
    done();
  },
  { prefix: '/twin' },
);
await app.listen({ host: services.config.host, port: services.config.port });
process.on('SIGTERM', () => {
  void app
    .close()
    .then(services.release)
    .then(() => process.exit(0));
});
