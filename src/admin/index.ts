// The administration API plugin: cookie sessions, local and OAuth sign-in, settings, users and clusters.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import fastifyRateLimit from '@fastify/rate-limit';
import type { Config } from '../config.js';
import type { AdminStores } from '../platform/stores/ports.js';
import type { OidcClients } from '../platform/oidc/oidc-clients.js';
import { createGroupDirectories } from '../platform/oidc/group-directories.js';
import { installErrorHandling } from '../shared/error-handler.js';
import { COOKIE_SCHEME, stampSecurity } from '../shared/openapi.js';
import type { ClusterPort } from '../platform/clusters/cluster-port.js';
import { clusterRoutes } from './clusters/cluster-routes.js';
import { createClusterService } from './clusters/cluster-service.js';
import { oauthRoutes } from './oauth/oauth-routes.js';
import { createOAuthService } from './oauth/oauth-service.js';
import type { AdminContext } from './context.js';
import { refuseCrossSiteRequests } from './sessions/cross-site-guard.js';
import { createLoginThrottle } from './sessions/login-throttle.js';
import { createSessions } from './sessions/session.js';
import { publicAuthRoutes, sessionAuthRoutes } from './sessions/auth-routes.js';
import { settingsRoutes } from './settings/settings-routes.js';
import { createSettingsService } from './settings/settings-service.js';
import type { Settings } from './settings/settings-schema.js';
import { bootstrapFirstAdmin, type BootstrapOptions } from './users/bootstrap.js';
import { userRoutes } from './users/user-routes.js';
import { createUserService } from './users/user-service.js';
import { createUserStore, USERS_SECRET } from './users/user-store.js';

export interface AdminServicesOptions {
  config: Readonly<Config>;
  stores: AdminStores;
  logger: FastifyBaseLogger;
  now?: () => number;
  onSettingsChange?: (settings: Settings) => void;
}

/** The admin API's services; built apart from the plugin because the docs switch needs the settings first. */
export function createAdminContext(options: AdminServicesOptions): AdminContext {
  const now = options.now ?? Date.now;
  const users = createUserService(
    createUserStore(options.stores.secrets, {
      refreshMs: options.config.settingsRefreshMs,
      now,
      logger: options.logger,
    }),
    now,
  );
  return {
    namespace: options.config.namespace,
    oauthEnv: options.config.oauthEnv,
    settings: createSettingsService({
      stores: options.stores,
      logger: options.logger,
      refreshMs: options.config.settingsRefreshMs,
      secretPolicy: { prefix: options.config.settingsSecretPrefix, reserved: [USERS_SECRET] },
      now,
      onChange: options.onSettingsChange,
    }),
    users,
    sessions: createSessions(
      {
        secret: options.config.sessionSecret,
        ttlSeconds: options.config.sessionTtlSeconds,
        publicOrigin: options.config.publicOrigin,
        now,
      },
      users,
    ),
    loginThrottle: createLoginThrottle({ ...options.config.loginLimits, now }),
  };
}

export interface AdminPluginOptions {
  context: AdminContext;
  config: Readonly<Config>;
  oidc: OidcClients;
  clusters: ClusterPort;
  now?: () => number;
  /** When given, the first admin is created on start-up if the user store is empty. */
  firstAdmin?: Omit<BootstrapOptions, 'logger'>;
}

export async function adminPlugin(app: FastifyInstance, options: AdminPluginOptions): Promise<void> {
  installErrorHandling(app, 'admin');
  const { context } = options;
  // Before rate limits and sessions: a forged cross-site request is refused whatever it carries.
  app.addHook('onRequest', refuseCrossSiteRequests(options.config.publicOrigin));
  await app.register(fastifyRateLimit, { global: false });
  if (options.firstAdmin) {
    const firstAdmin = options.firstAdmin;
    app.addHook('onReady', () => bootstrapFirstAdmin(context.users, { ...firstAdmin, logger: app.log }));
  }

  publicAuthRoutes(app, context);
  oauthRoutes(
    app,
    createOAuthService({
      context,
      clients: options.oidc,
      directories: createGroupDirectories({
        directoryUrl: options.config.oauthEndpoints.alphaDirectoryUrl,
        graphUrl: options.config.oauthEndpoints.betaGraphUrl,
        betaAuthority: options.config.oauthEndpoints.betaAuthority,
        now: options.now,
      }),
      endpoints: options.config.oauthEndpoints,
      publicOrigin: options.config.publicOrigin,
      sessionSecret: options.config.sessionSecret,
      logger: app.log,
      now: options.now ?? Date.now,
    }),
  );

  // Everything else needs a session: no valid cookie is a 401 before any other question is asked.
  await app.register(function sessionRoutes(guarded, _options, done) {
    guarded.addHook('onRequest', (request) => context.sessions.authenticate(request));
    guarded.addHook('onRoute', stampSecurity(COOKIE_SCHEME, 'admin'));
    sessionAuthRoutes(guarded, context);
    settingsRoutes(guarded, context);
    clusterRoutes(guarded, context, createClusterService(options.clusters), options.config.clusterNamespace);
    userRoutes(guarded, context);
    done();
  });
}
