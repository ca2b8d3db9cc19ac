// A server for the overhead scenarios only: the production app, plus its graph routes a second time under
// /unauthenticated with a fixed principal in place of bearer authentication, and GET /api/settings/ a second time
// under /unchecked behind the same session check but without the permission check. Everything lives in one
// process, so the difference between `GET /api/graph` and `GET /unauthenticated/api/graph` is what authentication
// costs, and between `GET /api/settings/` and `GET /unchecked/api/settings/` what the permission check (the role's
// rules read and matched) costs. Started by bench/run.ts; never part of the product.
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import { browserLimitsOf } from '../../src/browser/index.js';
import { graphRoutes } from '../../src/browser/graphs/graph-routes.js';
import { TokenCache } from '../../src/browser/auth/token-cache.js';
import { createTokenStore } from '../../src/browser/tokens/token-store.js';
import type { BrowserContext, Principal } from '../../src/browser/context.js';
import { loadConfig } from '../../src/config.js';
import { ConnectionPools } from '../../src/platform/falkordb/connection-pools.js';
import { startServices } from '../../src/services.js';
import { loggerOptions } from '../../src/shared/logging.js';
import { createAdminServices } from '../../src/admin/index.js';
import { recordAuditEntries } from '../../src/admin/audit/audit-recorder.js';
import { refuseCrossSiteRequests } from '../../src/admin/sessions/cross-site-guard.js';
import { requireSession } from '../../src/admin/sessions/session-guard.js';
import { settingsView, SettingsViewSchema, type Settings } from '../../src/admin/settings/schemas.js';
import { jsonOncePerObject, sendJsonText } from '../../src/shared/prepared-json.js';

const config = loadConfig(process.env);
const logger = pino(loggerOptions(config.logLevel));
const services = await startServices(config, logger);
const app = await buildApp(services.config, services.deps);
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
    graphRoutes(scope, context);
    done();
  },
  { prefix: '/unauthenticated' },
);
// The same hooks, settings, session and JSON as the admin plugin's route; only requirePermission (and the rules read
// that feeds it) is left out.
const admin = createAdminServices({
  ...services.deps,
  sharedStore: services.deps.tokenStore,
  config: services.config,
  stores: services.deps.adminStores,
  logger,
});
app.addHook('onClose', () => admin.close());
await app.register(
  function unchecked(scope, _options, done) {
    scope.addHook('onRequest', refuseCrossSiteRequests(services.config.publicOrigin));
    recordAuditEntries(scope, {
      recorder: admin.auditRecorder,
      serverNamespace: admin.context.namespace,
      clusterNamespace: admin.clusterNamespace,
    });
    scope.addHook('onRequest', requireSession(admin.context.sessions));
    const settingsJson = jsonOncePerObject((settings: Settings) => SettingsViewSchema.encode(settingsView(settings)));
    scope.get('/api/settings/', async (_request, reply) =>
      sendJsonText(reply, settingsJson(await admin.context.settings.current())),
    );
    done();
  },
  { prefix: '/unchecked' },
);
await app.listen({ host: services.config.host, port: services.config.port });
process.on('SIGTERM', () => {
  void app
    .close()
    .then(services.release)
    .then(() => process.exit(0));
});
