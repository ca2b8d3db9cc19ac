// The administration API: its composition root (createAdminServices) and its plugin, which registers the routes of (one file because it is the admin API's one composition root)
// each feature: cookie sessions, local and OAuth sign-in, settings, users, RBAC, clusters, the audit log, and system
// facts, search, diagnostics and licensing.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import fastifyRateLimit from '@fastify/rate-limit';
import type { Config } from '../config.js';
import type { AdminStores } from '../platform/stores/ports.js';
import { createOidcClients, type OidcClients } from '../platform/oidc/oidc-clients.js';
import type { MetricsExporter } from '../platform/metrics/metrics-exporter.js';
import { NO_CLUSTERS } from '../platform/clusters/embedded-clusters.js';
import { createGroupDirectories } from '../platform/oidc/group-directories.js';
import { createChangeChannel, type ChangeChannel } from '../platform/redis/change-channel.js';
import type { RedisConnection } from '../platform/redis/redis-connection.js';
import { installErrorHandling } from '../http/error-handler.js';
import { COOKIE_SCHEME, SESSION_BEARER_SCHEME, stampSecurity } from '../http/openapi.js';
import type { ClusterPort } from '../platform/clusters/cluster-port.js';
import { recordAuditEntries, createAuditRecorder } from './audit/audit-recorder.js';
import { auditRoutes } from './audit/audit-routes.js';
import { createAuditService } from './audit/audit-service.js';
import { createMemoryAuditStore, createRedisAuditStore, type AuditStore } from '../platform/stores/audit-store.js';
import { clusterRoutes } from './clusters/cluster-routes.js';
import { backupRoutes } from './backups/backup-routes.js';
import { createBackupService } from './backups/backup-service.js';
import { registerAlertMetrics } from './alert-metrics.js';
import type { BackupPort } from '../platform/backups/backup-port.js';
import { NO_BACKUPS } from '../platform/backups/backup-port.js';
import { createClusterService } from './clusters/cluster-service.js';
import { createOperationService } from './operations/operation-service.js';
import { operationRoutes } from './operations/operation-routes.js';
import { oauthRoutes } from './oauth/oauth-routes.js';
import { rbacRoutes } from './rbac/rbac-routes.js';
import { createRbacService } from './rbac/rbac-service.js';
import { signInRefusal } from './oauth/providers.js';
import { createOAuthService } from './oauth/oauth-service.js';
import { createMemoryOneTimeCodes, createRedisOneTimeCodes } from '../platform/stores/one-time-codes.js';
import type { AdminContext } from './context.js';
import { refuseCrossSiteRequests } from './sessions/cross-site-guard.js';
import { createLoginThrottle } from './sessions/login-throttle.js';
import { requireSessionWithRules } from './sessions/session-guard.js';
import { hoistPermissionGuard } from './permissions/permissions.js';
import { createSessionService } from './sessions/session-service.js';
import { publicAuthRoutes, sessionAuthRoutes } from './sessions/session-routes.js';
import { settingsRoutes } from './settings/settings-routes.js';
import { createSettingsService } from './settings/settings-service.js';
import { createLoginService } from './sessions/login-service.js';
import { bootstrapFirstAdmin, type BootstrapOptions } from './users/bootstrap.js';
import { userRoutes } from './users/user-routes.js';
import { createUserService } from './users/user-service.js';
import { createUserStore, USERS_SECRET } from './users/user-store.js';
import { serviceAccountAuthentication } from './service-accounts/bearer.js';
import { bootstrapServiceAccounts } from './service-accounts/bootstrap.js';
import { serviceAccountRoutes } from './service-accounts/service-account-routes.js';
import { createServiceAccountService } from './service-accounts/service-account-service.js';
import { createServiceAccountStore, SERVICE_ACCOUNTS_SECRET } from './service-accounts/service-account-store.js';
import { createTokenThrottle } from './service-accounts/token-throttle.js';
import { Counter, Gauge, type Registry } from 'prom-client';
import { SERVER_VERSION } from '../platform/build-info.js';
import { createHostFacts } from '../platform/host.js';
import type { KubeClusterInfo } from '../platform/kubernetes/kube-cluster-info.js';
import type { LogRing } from '../logging/log-ring.js';
import { diagnosticsRoutes } from './diagnostics/diagnostics-routes.js';
import { createDiagnosticsService } from './diagnostics/diagnostics-service.js';
import { createSupportPackages } from './diagnostics/support-package.js';
import { licensingRoutes } from './licensing/licensing-routes.js';
import { createLicensingService } from './licensing/licensing-service.js';
import { searchRoutes } from './search/search-routes.js';
import { createSearchService } from './search/search-service.js';
import { systemRoutes } from './system/system-routes.js';
import type { PodTelemetryPort } from '../platform/kubernetes/kube-pod-telemetry.js';
import { createObservabilityService } from './observability/observability-service.js';
import { observabilityRoutes } from './observability/observability-routes.js';
import { createSystemService } from './system/system-service.js';

/** What the admin API needs from the outside world (built by services.ts, or by a test). */
export interface AdminDeps {
  config: Readonly<Config>;
  /** Where settings, roles, Secrets and users are kept (Kubernetes or local files). */
  stores: AdminStores;
  logger: FastifyBaseLogger;
  now?: () => number;
  /** OpenID relying-party operations (discovery cache included); created here when not given. */
  oidcClients?: OidcClients;
  /** Database deployments: KubeBlocks, the embedded FalkorDB, or none. */
  clusters?: ClusterPort;
  /** Backups, schedules, repositories and restores: KubeBlocks data protection, the embedded snapshots, or none. */
  backups?: BackupPort;
  /** The Prometheus exporter, driven by features.metrics_collection and metrics.exporter_port (main only). */
  metricsExporter?: MetricsExporter;
  /**
   * The store every replica shares (the token store): its pub/sub tells the other replicas at once when users,
   * roles or settings change. Without it, changes reach other replicas on their refresh interval only.
   */
  sharedStore?: RedisConnection;
  /** Built here from sharedStore when not given. */
  changes?: ChangeChannel;
  /** Cluster-scoped Kubernetes facts (namespaces, StorageClasses, API liveness); absent without Kubernetes. */
  clusterInfo?: KubeClusterInfo;
  /** The last log lines of this process, for diagnostics and the support package. */
  recentLogs?: LogRing;
  /** This server's Prometheus registry, for the support package. */
  metricsRegistry?: Registry;
  /** The first admin's credentials (the plugin creates the account): its password is scrubbed from support packages. */
  firstAdmin?: Omit<BootstrapOptions, 'logger'>;
  /** Where audit entries go: built on sharedStore when not given, or in this process's memory without one. */
  auditStore?: AuditStore;
  /** How often entries past their retention are purged (besides at start); an hour by default. */
  auditPurgeIntervalMs?: number;
  /** Pod logs and metrics from Kubernetes; absent without Kubernetes. */
  podTelemetry?: PodTelemetryPort;
  /** Heartbeat period of the pod log and metrics event streams (tests shorten it). */
  streamHeartbeatMs?: number;
}

const AUDIT_PURGE_INTERVAL_MS = 3_600_000;

/** The composition root of the admin API: every service built once, here only. */
export function createAdminServices(deps: AdminDeps) {
  const { config, logger } = deps;
  const now = deps.now ?? Date.now;
  const exporter = deps.metricsExporter;
  const changes = deps.changes ?? createChangeChannel(deps.sharedStore, logger);
  // Users and roles refer to each other (a user's role must exist, a role still held is not deleted): each asks the
  // other only when called, after both are built.
  const rbac = createRbacService({
    store: deps.stores.rbac,
    logger,
    refreshMs: config.settingsRefreshMs,
    now,
    changes,
    users: { list: () => users.list() },
  });
  const users = createUserService(
    createUserStore(deps.stores.secrets, {
      refreshMs: config.settingsRefreshMs,
      secretName: config.stateObjects.usersSecret,
      now,
      logger,
      changes,
    }),
    now,
    (name) => rbac.roleExists(name),
  );
  const context: AdminContext = {
    namespace: config.namespace,
    oauthEnv: config.oauthEnv,
    settings: createSettingsService({
      stores: deps.stores,
      logger,
      refreshMs: config.settingsRefreshMs,
      secretPolicy: {
        prefix: config.settingsSecretPrefix,
        reserved: [
          ...new Set([
            USERS_SECRET,
            config.stateObjects.usersSecret,
            SERVICE_ACCOUNTS_SECRET,
            config.stateObjects.serviceAccountsSecret,
          ]),
        ],
      },
      now,
      changes,
      refusal: (next) => signInRefusal(next, config.oauthEnv),
      onChange: exporter
        ? (settings) => void exporter.apply(settings.features.metrics_collection, settings.metrics.exporter_port)
        : undefined,
    }),
    users,
    rbac,
    sessions: createSessionService(
      { secret: config.sessionSecret, ttlSeconds: config.sessionTtlSeconds, publicOrigin: config.publicOrigin, now },
      users,
    ),
    loginThrottle: createLoginThrottle({ ...config.loginLimits, now }),
    changes,
  };
  // Automation's identities: bearer tokens beside the sessions, their store announced like the users'.
  const serviceAccounts = createServiceAccountService({
    store: createServiceAccountStore(deps.stores.secrets, {
      refreshMs: config.settingsRefreshMs,
      secretName: config.stateObjects.serviceAccountsSecret,
      now,
      logger,
      changes,
    }),
    now,
    settings: () => context.settings.inForce(),
    rulesOf: (role) => rbac.rulesOf(role),
    roleExists: (role) => rbac.roleExists(role),
    logger,
  });
  const serviceAccountTokens = serviceAccountAuthentication(
    serviceAccounts,
    createTokenThrottle({ failuresPerAddressPerMinute: config.loginLimits.attemptsPerAddressPerMinute, now }),
  );
  const oauth = createOAuthService({
    context,
    codes: deps.sharedStore ? createRedisOneTimeCodes(deps.sharedStore) : createMemoryOneTimeCodes(now),
    clients: deps.oidcClients ?? createOidcClients(),
    directories: createGroupDirectories({
      directoryUrl: config.oauthEndpoints.alphaDirectoryUrl,
      graphUrl: config.oauthEndpoints.betaGraphUrl,
      betaAuthority: config.oauthEndpoints.betaAuthority,
      now: deps.now,
    }),
    endpoints: config.oauthEndpoints,
    publicOrigin: config.publicOrigin,
    sessionSecret: config.sessionSecret,
    logger,
    now,
  });
  // Re-read the settings on their interval even without traffic, so a hand edit moves or stops the exporter.
  const refresher = exporter
    ? setInterval(() => void context.settings.current(), Math.max(config.settingsRefreshMs, 1000))
    : undefined;
  refresher?.unref();
  const { clusterNamespace } = config;
  const clusterPort = deps.clusters ?? NO_CLUSTERS;
  const multiClusterMode = async () => (await context.settings.current()).features.multi_cluster_mode;
  const clusters = createClusterService(clusterPort, {
    clusterNamespace,
    managedNamespaces: config.managedNamespaces,
    multiClusterMode,
    rulesOf: (role) => context.rbac.rulesOf(role),
    onCreated: (cluster) => backups.afterClusterCreated(cluster),
    ...(config.releaseName ? { releaseName: config.releaseName } : {}),
  });
  const backupPort = deps.backups ?? NO_BACKUPS;
  // BackupRepos are cluster-scoped: on Kubernetes they are read only in multi-cluster mode.
  const repositoriesManaged = async () => !deps.clusterInfo || (await multiClusterMode());
  const backups = createBackupService({
    port: backupPort,
    clusterPort,
    clusters,
    repositoriesManaged,
    autoSchedule: async () => (await context.settings.current()).features.backup_auto_schedule,
    logger,
    now,
  });
  if (deps.metricsRegistry)
    registerAlertMetrics({
      registry: deps.metricsRegistry,
      backupHealth: (scope) => backups.health(scope),
      scope: async () => ((await multiClusterMode()) ? { allNamespaces: true } : { namespace: clusterNamespace }),
      nextTokenExpiry: () => serviceAccounts.nextTokenExpiry(),
      logger,
    });
  // System facts, search, diagnostics and licensing.
  const host = createHostFacts();
  const kube = deps.clusterInfo;
  const { recentLogs } = deps;
  const diagnostics = createDiagnosticsService({
    clusters,
    port: clusterPort,
    kube,
    tokenStore: deps.sharedStore,
    recentLogs,
    host,
    now,
    version: SERVER_VERSION,
    namespace: config.namespace,
    clusterNamespace,
  });
  const { sessionSecret, authSecret, encryptionKey, initialAdmin } = config;
  const secrets = [
    sessionSecret,
    authSecret,
    encryptionKey,
    initialAdmin.password,
    deps.firstAdmin?.password,
    ...config.serviceAccountsBootstrap.flatMap((account) => account.tokens.map((token) => token.text)),
  ];
  // Every replica writes to and reads from the shared store; without one the log is this process's only.
  const auditStore =
    deps.auditStore ?? (deps.sharedStore ? createRedisAuditStore(deps.sharedStore) : createMemoryAuditStore());
  // Entries the recorder had to drop (its queue full during a long outage of the store): never expected, so counted.
  const auditDropped = deps.metricsRegistry
    ? new Counter({
        name: 'graphdb_audit_entries_dropped_total',
        help: 'Audit entries dropped because too many waited for an unreachable audit store (their log lines remain)',
        registers: [deps.metricsRegistry],
      })
    : undefined;
  const auditRecorder = createAuditRecorder({
    store: auditStore,
    logger,
    now,
    onDropped: (count) => auditDropped?.inc(count),
  });
  if (deps.metricsRegistry)
    new Gauge({
      name: 'graphdb_audit_entries_waiting',
      help: 'Audit entries recorded and not yet stored (they wait for the audit store)',
      registers: [deps.metricsRegistry],
      collect() {
        this.set(auditRecorder.waiting);
      },
    });
  const audit = createAuditService({
    store: auditStore,
    settings: context.settings,
    logger,
    now,
    purgeIntervalMs: deps.auditPurgeIntervalMs ?? AUDIT_PURGE_INTERVAL_MS,
  });
  return {
    context,
    oauth,
    audit,
    auditRecorder,
    auditStoreRequired: config.auditStoreRequired,
    serviceAccounts,
    serviceAccountTokens,
    logins: createLoginService({
      settings: context.settings,
      users,
      sessions: context.sessions,
      loginThrottle: context.loginThrottle,
      oauthEnv: config.oauthEnv,
    }),
    clusters,
    backups,
    operations: createOperationService(clusterPort, clusters, {
      // StorageClasses are cluster-scoped: readable only with the multi-cluster ClusterRole.
      storageClasses: async () => (kube && (await multiClusterMode()) ? kube.storageClasses() : undefined),
      // ComponentVersions are cluster-scoped too: the catalog is read only in multi-cluster mode on Kubernetes.
      versionCatalog: async () =>
        !kube || (await multiClusterMode()) ? await clusterPort.versionCatalog?.() : undefined,
    }),
    system: createSystemService({
      clusters,
      port: clusterPort,
      kube,
      clusterNamespace,
      multiClusterMode,
      host,
      now,
      startedAt: new Date(now()),
    }),
    search: createSearchService({
      users,
      clusters,
      rbac: context.rbac,
      namespace: config.namespace,
      clusterNamespace,
      backups: { port: backupPort, repositoriesManaged },
    }),
    licensing: createLicensingService({ users, clusters }),
    diagnostics,
    observability: createObservabilityService({
      telemetry: deps.podTelemetry,
      clusters,
      limits: {
        maxStreamSeconds: config.observabilityStreams.maxSeconds,
        streamsPerUser: config.observabilityStreams.perUser,
        scrapeExporters: config.exporterMetrics,
      },
      logger,
      now,
    }),
    streamHeartbeatMs: deps.streamHeartbeatMs,
    supportPackages: createSupportPackages({
      diagnostics,
      auditTail: async (limit) => (await audit.list({ limit, offset: 0 })).entries,
      settings: context.settings,
      clusters,
      recentLogs,
      metricsRegistry: deps.metricsRegistry,
      configSecrets: secrets,
      version: SERVER_VERSION,
      now,
    }),
    now,
    clusterNamespace,
    publicOrigin: config.publicOrigin,
    serviceAccountsBootstrap: config.serviceAccountsBootstrap,
    async close(): Promise<void> {
      clearInterval(refresher);
      audit.stopRetention();
      await backupPort.close?.();
      await auditRecorder.close();
      await exporter?.close();
      if (!deps.changes) await changes.close();
    },
  };
}

export type AdminServices = ReturnType<typeof createAdminServices>;

export interface AdminPluginOptions {
  services: AdminServices;
  /** When given, the first admin is created on start-up if the user store is empty. */
  firstAdmin?: Omit<BootstrapOptions, 'logger'>;
}

/** Registers the admin API's routes with the services built by createAdminServices. */
export async function adminPlugin(app: FastifyInstance, options: AdminPluginOptions): Promise<void> {
  installErrorHandling(app, 'admin');
  const { services } = options;
  const { context } = services;
  app.decorateRequest('roleRules', undefined);
  // Before rate limits and sessions: a forged cross-site request is refused whatever it carries.
  app.addHook('onRequest', refuseCrossSiteRequests(services.publicOrigin));
  await app.register(fastifyRateLimit, { global: false });
  if (options.firstAdmin) {
    const firstAdmin = options.firstAdmin;
    app.addHook('onReady', () => bootstrapFirstAdmin(context.users, { ...firstAdmin, logger: app.log }));
  }
  if (services.serviceAccountsBootstrap.length > 0)
    app.addHook('onReady', () =>
      bootstrapServiceAccounts(services.serviceAccounts, services.serviceAccountsBootstrap, app.log),
    );
  // Every route of this plugin, public ones included (sign-ins), whatever other features add later.
  recordAuditEntries(app, {
    recorder: services.auditRecorder,
    refuseWhileUnavailable: services.auditStoreRequired,
    serverNamespace: context.namespace,
    clusterNamespace: services.clusterNamespace,
  });
  app.addHook('onReady', (done) => {
    services.audit.startRetention();
    done();
  });

  publicAuthRoutes(app, { logins: services.logins, sessions: context.sessions });
  oauthRoutes(app, { oauth: services.oauth });

  // Everything else needs a session: no valid cookie is a 401 before any other question is asked.
  await app.register(function sessionRoutes(guarded, _options, done) {
    guarded.addHook('onRoute', hoistPermissionGuard);
    guarded.addHook(
      'onRequest',
      requireSessionWithRules(context.sessions, context.rbac, services.serviceAccountTokens),
    );
    guarded.addHook('onRoute', stampSecurity([COOKIE_SCHEME, SESSION_BEARER_SCHEME], 'admin'));
    sessionAuthRoutes(guarded, { users: context.users });
    settingsRoutes(guarded, { settings: context.settings, namespace: context.namespace });
    clusterRoutes(guarded, { clusters: services.clusters, clusterNamespace: services.clusterNamespace });
    operationRoutes(guarded, services);
    backupRoutes(guarded, services);
    userRoutes(guarded, {
      users: context.users,
      rbac: context.rbac,
      sessions: context.sessions,
      logins: services.logins,
      namespace: context.namespace,
    });
    rbacRoutes(guarded, { rbac: context.rbac, namespace: context.namespace });
    serviceAccountRoutes(guarded, {
      serviceAccounts: services.serviceAccounts,
      namespace: context.namespace,
      now: services.now,
    });
    systemRoutes(guarded, { system: services.system, namespace: context.namespace });
    searchRoutes(guarded, { search: services.search });
    licensingRoutes(guarded, { licensing: services.licensing, namespace: context.namespace });
    diagnosticsRoutes(guarded, {
      diagnostics: services.diagnostics,
      supportPackages: services.supportPackages,
      namespace: context.namespace,
      now: services.now,
    });
    observabilityRoutes(guarded, {
      observability: services.observability,
      clusters: services.clusters,
      clusterNamespace: services.clusterNamespace,
      heartbeatMs: services.streamHeartbeatMs,
    });
    auditRoutes(guarded, {
      audit: services.audit,
      clusters: services.clusters,
      namespace: context.namespace,
      clusterNamespace: services.clusterNamespace,
    });
    done();
  });
}
