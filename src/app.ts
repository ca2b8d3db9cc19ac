// buildApp(config, deps): the whole HTTP application, shared layers then the two API plugins. No I/O here.
import Fastify, {
  type FastifyServerOptions,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import fastifyCookie from '@fastify/cookie';
import { serializerCompiler } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import { validatorCompiler } from './http/fast-validation.js';
import type { AdminStores } from './platform/stores/ports.js';
import { adminPlugin, createAdminServices, type AdminDeps, type AdminPluginOptions } from './admin/index.js';
import { browserPlugin, createBrowserServices, type BrowserDeps } from './browser/index.js';
import { isBrowserPath } from './browser/paths.js';
import { enableCors } from './http/cors.js';
import { createErrorHandler } from './http/error-handler.js';
import { createClientErrors } from './http/client-errors.js';
import { errorBody } from './http/error-shapes.js';
import { registerHealthRoutes, type ReadinessCheck } from './http/health-routes.js';
import { AccessLog, type AccessLineSink } from './logging/logging.js';
import { idSequence } from './lib/id-sequence.js';
import { registerOpenApi } from './http/openapi.js';
import { trackRequestsInFlight } from './http/graceful-close.js';
import { capConnectionsPerAddress, endConnectionsAfterRequests, trustedProxies } from './http/connection-share.js';
import { enforceRequestDeadline } from './http/request-deadline.js';
import { strictJsonBodyParser } from './http/plain-text-json.js';
import { createMetrics, recordRequestMetrics, type Metrics } from './http/metrics.js';
import { storeKeyPrefix, storeReady } from './platform/redis/redis-connection.js';

/** The outside world, as services.ts (or a test) built it: what each plugin's composition root needs. */
export interface AppDeps
  extends Omit<BrowserDeps, 'config' | 'observeTokenStore'>, Omit<AdminDeps, 'config' | 'stores'> {
  /** Where the admin API keeps settings, Secrets and users (Kubernetes or local files). */
  adminStores: AdminStores;
  /** Extra readiness checks (e.g. Kubernetes) beyond the token store. */
  readinessChecks?: ReadinessCheck[];
  /** Prometheus metrics of this server; created here when not given. */
  metrics?: Metrics;
  /** When given, the first admin is created at start-up if the user store is empty. */
  firstAdmin?: AdminPluginOptions['firstAdmin'];
  /** The server logger's access-line sink (serverLogger); without it access lines go through the logger's info(). */
  accessLines?: AccessLineSink;
}

const BODY_LIMIT_BYTES = 1024 * 1024;
const TOKEN_STORE_PROBE_KEY = 'readiness-probe';
const REQUEST_ID = /^[\w.:-]{1,128}$/;
/** Longer than any valid path parameter, so the route schemas (not the router) report what is too long. */
const MAX_PATH_SEGMENT = 2048;

// Requests that reach no route are answered in the shape of the API that owns their path.
const browserErrors = createErrorHandler('browser');
const adminErrors = createErrorHandler('admin');
function errorsByPath(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  (isBrowserPath(request.url) ? browserErrors : adminErrors)(error, request, reply);
}

/**
 * Fastify's form of TRUST_PROXY. A hop count trusts whatever connects, so it is safe only where nothing but the
 * proxies can reach the pod (Fastify's own number form fails closed, hence the function); addresses are checked.
 */
function trustProxyOption(config: Readonly<Config>): FastifyServerOptions['trustProxy'] {
  const { trustProxy } = config;
  if (typeof trustProxy === 'number') return (_address: string, hop: number) => hop < trustProxy;
  return trustProxy;
}

export async function buildApp(config: Readonly<Config>, deps: AppDeps): Promise<FastifyInstance> {
  const clientErrors = createClientErrors((url) => (isBrowserPath(url) ? 'browser' : 'admin'));
  // Node looks for requests past their time every 30 s by default, too coarse for REQUEST_TIMEOUT_MS.
  const expiryCheckMs = Math.min(1000, Math.max(100, Math.floor(config.requestTimeoutMs / 4)));
  const nextRequestId = idSequence();
  const app = Fastify({
    loggerInstance: deps.logger,
    // TRUST_PROXY: behind an Ingress, the client address (rate limits, logs) comes from X-Forwarded-For as far as
    // the named proxies vouch for it; unset, the socket's peer is the client.
    trustProxy: trustProxyOption(config),
    bodyLimit: BODY_LIMIT_BYTES,
    exposeHeadRoutes: false,
    logController: new AccessLog(deps.accessLines),
    forceCloseConnections: 'idle',
    // An idle connection is closed soon after its last answer (Fastify's default keeps it 72 s), and a busy one after
    // MAX_REQUESTS_PER_SOCKET requests (docs/decisions/connection-share.md).
    keepAliveTimeout: config.keepAliveTimeoutMs,
    maxRequestsPerSocket: config.maxRequestsPerSocket,
    return503OnClosing: true,
    // The header is read in genReqId, which validates it; Fastify's own handling would trust any value.
    requestIdHeader: false,
    // Accept a caller's request id only when it is short and plain, so it cannot forge log lines.
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : nextRequestId();
    },
    // `/api/users/` (the real admin product's spelling) and `/api/users` reach the same route.
    routerOptions: { maxParamLength: MAX_PATH_SEGMENT, ignoreTrailingSlash: true },
    // Errors the router raises before any route matches (bad URL encoding, an oversized segment).
    frameworkErrors: (error, request, reply) => errorsByPath(error, request, reply),
    // A client too slow to send its whole request gets 408 from Node; a request not answered in time gets 503
    // from enforceRequestDeadline (408 too while its body is still arriving).
    requestTimeout: config.requestTimeoutMs,
    // A slow-header client is dropped after HEADERS_TIMEOUT_MS (408), not held for a minute.
    http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: expiryCheckMs },
    clientErrorHandler: clientErrors.handler,
  });
  // A cap on open connections, so idle or slow sockets cannot exhaust file descriptors.
  app.server.maxConnections = config.maxConnections;
  // …and of them, CONNECTIONS_PER_ADDRESS per client address, so that one client cannot hold them all.
  capConnectionsPerAddress(app.server, {
    perAddress: config.connectionsPerAddress,
    exempt: trustedProxies(config.trustProxy),
  });
  // …and a connection ends after MAX_REQUESTS_PER_SOCKET answers, even when its client ignores `Connection: close`.
  endConnectionsAfterRequests(app.server, config.maxRequestsPerSocket);
  // Both APIs speak JSON only; any other body type is refused (400) instead of reaching a handler as a string.
  app.removeContentTypeParser('text/plain');
  // Fetch wrappers send `Content-Type: application/json` with no body on logout and the like: an empty body is no
  // body (a route that needs one still answers 400 from its schema); anything else goes through Fastify's parser,
  // which keeps refusing `__proto__` and `constructor` keys.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, strictJsonBodyParser(app));
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    clientErrors.track(request.raw, reply.raw);
    done();
  });
  // Before authentication: a browser's preflight carries no token.
  enableCors(app, config.corsOrigins, isBrowserPath);
  trackRequestsInFlight(app);
  enforceRequestDeadline(app, config.requestTimeoutMs);

  app.setErrorHandler(errorsByPath);
  app.setNotFoundHandler((request, reply) => {
    const shape = isBrowserPath(request.url) ? 'browser' : 'admin';
    void reply
      .code(404)
      .send(
        errorBody(shape, 404, `Route ${request.method} ${request.url.split('?', 1)[0]} not found`, 'route_not_found'),
      );
  });

  await app.register(fastifyCookie);
  const metrics = deps.metrics ?? createMetrics();
  recordRequestMetrics(app, metrics);
  const admin = createAdminServices({
    sharedStore: deps.tokenStore,
    metricsRegistry: metrics.registry,
    ...deps,
    config,
    stores: deps.adminStores,
  });
  app.addHook('onClose', () => admin.close());
  // Either switch hides the docs UI: ENABLE_DOCSUI at start, features.api_docs_enabled at any time.
  await registerOpenApi(app, {
    docsUi: config.enableDocsUi,
    docsUiAllowed: () => admin.context.settings.cached().features.api_docs_enabled,
  });

  registerHealthRoutes(app, [
    {
      name: 'tokenStore',
      check: async () => {
        if (!storeReady(deps.tokenStore)) throw new Error('not connected');
        // A write under the store's key prefix: an account that still answers PING but may no longer write
        // (its rules changed) must take the server out of rotation.
        await deps.tokenStore.set(`${storeKeyPrefix(deps.tokenStore)}${TOKEN_STORE_PROBE_KEY}`, String(Date.now()), {
          PX: 60_000,
        });
      },
    },
    { name: 'settings', check: () => admin.context.settings.ready() },
    ...(deps.readinessChecks ?? []),
  ]);

  const browser = createBrowserServices({
    ...deps,
    config,
    observeTokenStore: (operation, seconds) => metrics.tokenStoreSeconds.observe({ operation }, seconds),
  });
  metrics.poolGauge(() => browser.pools.stats());
  app.addHook('onClose', () => browser.close());
  await app.register(browserPlugin, { services: browser });
  await app.register(adminPlugin, { services: admin, firstAdmin: deps.firstAdmin });
  return app;
}
