// Builds what the app needs from the outside world, as the configuration asks: the embedded FalkorDB or an external
// token store, Kubernetes or local stores, the deployment platform, metrics. Returns the app's dependencies and how
// to release them.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { AppDeps } from './app.js';
import type { Config } from './config.js';
import { createSentinelStoreConnection } from './platform/redis/sentinel-store.js';
import { parseStoreUrl } from './platform/redis/store-url.js';
import { loadOrCreateEmbeddedSecrets } from './platform/embedded-secrets.js';
import { startEmbeddedFalkorDB, type EmbeddedFalkorDB } from './platform/falkordb/embedded-falkordb.js';
import {
  accountUrl,
  loadOrCreateEmbeddedAccounts,
  type EmbeddedAccounts,
} from './platform/falkordb/embedded-accounts.js';
import { createEmbeddedBackups } from './platform/backups/embedded-backups.js';
import {
  createEmbeddedClusters,
  EMBEDDED_CLUSTER,
  embeddedServerAccess,
} from './platform/clusters/embedded-clusters.js';
import { createMetricsExporter } from './platform/metrics/metrics-exporter.js';
import {
  binaryCommands,
  closeRedisConnection,
  createClusterStoreConnection,
  createRedisConnection,
  type RedisClientConnection,
  type RedisConnection,
} from './platform/redis/redis-connection.js';
import { createFileAdminStores, writeInitialAdminPassword } from './platform/stores/file-stores.js';
import { createMetrics } from './http/metrics.js';

export interface Services {
  config: Readonly<Config>;
  deps: AppDeps;
  embedded: EmbeddedFalkorDB | undefined;
  /** Embedded mode: the file holding the password of the embedded database's `admin` user. */
  embeddedAdminPasswordFile?: string;
  /** Closes the token-store connection and stops the embedded FalkorDB; safe to call more than once. */
  release: () => Promise<void>;
}

/** Embedded mode fills secrets the operator left unset from a file in DATA_DIR, creating it once. */
async function withEmbeddedSecrets(config: Readonly<Config>, logger: Logger): Promise<Readonly<Config>> {
  if (config.authSecret && config.encryptionKey && config.sessionSecret) return config;
  const { secrets, file, created } = await loadOrCreateEmbeddedSecrets(config.dataDir);
  logger.info({ file }, created ? 'generated embedded-mode secrets' : 'using embedded-mode secrets');
  return Object.freeze({
    ...config,
    authSecret: config.authSecret ?? secrets.AUTH_SECRET,
    encryptionKey: config.encryptionKey ?? secrets.ENCRYPTION_KEY,
    sessionSecret: config.sessionSecret ?? secrets.SESSION_SECRET,
  });
}

async function startEmbedded(
  config: Readonly<Config>,
  logger: Logger,
): Promise<{ embedded: EmbeddedFalkorDB; accounts: EmbeddedAccounts }> {
  const databaseDir = path.join(config.dataDir, 'falkordb');
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const accounts = await loadOrCreateEmbeddedAccounts(config.dataDir, databaseDir);
  const embedded = await startEmbeddedFalkorDB({
    dataDir: databaseDir,
    serverBin: config.falkordbServerBin,
    modulePath: config.falkordbModulePath,
    logger,
    accounts,
    resultSetSize: config.queryRowsMax + 1,
  });
  const { host, port } = embedded;
  const username = accounts.admin.username;
  logger.info(
    {
      embeddedFalkorDB: {
        host,
        port,
        tls: false,
        username,
        passwordFile: accounts.adminPasswordFile,
        pid: embedded.pid,
        server: embedded.server,
      },
    },
    `Embedded FalkorDB listening on ${host}:${port} (create tokens with host ${host}, port ${port}, tls false, username ${username}, password in ${accounts.adminPasswordFile})`,
  );
  return { embedded, accounts };
}

/** The database user the token store signs in as, so browser users cannot change or delete it. */
function tokenStoreAccountOf(url: string): AppDeps['tokenStoreAccount'] {
  const target = parseStoreUrl(url);
  // Behind Sentinel, a token reaches the same account through the first sentinel (topology sentinel).
  if (target.kind === 'sentinel') return { ...target.sentinels[0]!, username: target.username ?? 'default' };
  if (target.kind === 'cluster')
    return { ...target.seeds[0]!, username: target.username ?? 'default', everyCluster: true };
  const parsed = new URL(url);
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: Number(parsed.port || 6379),
    username: decodeURIComponent(parsed.username) || 'default',
  };
}

/** When a step fails, what was already started is released before the error is passed on. */
export async function startServices(initial: Readonly<Config>, logger: Logger): Promise<Services> {
  let config = initial;
  let embedded: EmbeddedFalkorDB | undefined;
  let tokenStore: RedisConnection | undefined;
  let embeddedAdmin: RedisClientConnection | undefined;
  let embeddedStoreDatabase: RedisClientConnection | undefined;
  const release = async () => {
    if (tokenStore) await closeRedisConnection(tokenStore);
    if (embeddedAdmin) await closeRedisConnection(embeddedAdmin);
    if (embeddedStoreDatabase) await closeRedisConnection(embeddedStoreDatabase);
    await embedded?.stop();
  };

  let embeddedAdminPasswordFile: string | undefined;
  try {
    let tokenStoreUrl = config.tokenStoreUrl;
    let embeddedDatabase: AppDeps['embeddedDatabase'];
    if (!tokenStoreUrl) {
      const started = await startEmbedded(config, logger);
      embedded = started.embedded;
      embeddedAdminPasswordFile = started.accounts.adminPasswordFile;
      const { admin, tokenStore: storeAccount } = started.accounts;
      config = await withEmbeddedSecrets(config, logger);
      // Tokens live in database 1, apart from the users' graphs in database 0, under an account that can touch
      // nothing else; the server's own management commands use the administrator account.
      tokenStoreUrl = accountUrl(embedded.host, embedded.port, storeAccount, 1);
      embeddedAdmin = createRedisConnection(accountUrl(embedded.host, embedded.port, admin), logger);
      await embeddedAdmin.connect();
      // The administrator on the token store's database: a restore carries that database over unchanged.
      embeddedStoreDatabase = createRedisConnection(accountUrl(embedded.host, embedded.port, admin, 1), logger);
      await embeddedStoreDatabase.connect();
      embeddedDatabase = {
        host: embedded.host,
        port: embedded.port,
        formerPorts: embedded.formerPorts,
        serviceAccounts: [storeAccount.username, admin.username],
      };
    }
    const storeTarget = parseStoreUrl(tokenStoreUrl);
    tokenStore =
      storeTarget.kind === 'sentinel'
        ? await createSentinelStoreConnection(storeTarget, logger)
        : storeTarget.kind === 'cluster'
          ? createClusterStoreConnection(storeTarget, logger)
          : createRedisConnection(tokenStoreUrl, logger);
    await tokenStore.connect();
    const store = tokenStore;
    const management = embeddedAdmin;
    const storeDatabase = embeddedStoreDatabase;

    // Loaded only when Kubernetes is configured (platform/kubernetes/kube-adapters.ts says why).
    const kube = config.kubernetes ? await import('./platform/kubernetes/kube-adapters.js') : undefined;
    if (kube && config.kubernetes?.kind === 'in-cluster' && !config.namespaceFromEnvironment) {
      const namespace = await kube.serviceAccountNamespace();
      if (namespace) config = Object.freeze({ ...config, namespace });
    }
    const metrics = createMetrics();
    const countKubeError = (kind: string) => metrics.kubernetesErrors.inc({ kind });
    const dataDir = config.dataDir;

    let deps: AppDeps;
    if (kube && config.kubernetes) {
      const {
        createKubeAdminStores,
        createKubeBlocksBackups,
        createKubeBlocksClusters,
        createKubeClusterInfo,
        createKubePodTelemetry,
        detectKubeBlocks,
        isCredentialRefusal,
        kubernetesReadiness,
      } = kube;
      const kubeConfig = kube.loadKubeConfig(config.kubernetes, config.kubernetesTimeoutMs);
      const kubeBlocks = await detectKubeBlocks(kubeConfig).catch((error: unknown) => {
        logger.warn(
          { err: error },
          'could not detect the KubeBlocks API version; will retry at the first cluster request',
        );
        return undefined;
      });
      deps = {
        logger,
        tokenStore: store,
        // The admin API serves the last good copy of settings and users while the API server is away: a short outage
        // leaves the replicas ready (degraded) rather than taking every one of them out at once (docs/decisions/readiness-during-kubernetes-outage.md).
        readinessChecks: [
          {
            name: 'kubernetes',
            check: kubernetesReadiness(kubeConfig),
            toleratedOutageMs: config.kubernetesOutageReadyMs,
            isLasting: isCredentialRefusal,
          },
        ],
        adminStores: createKubeAdminStores(kubeConfig, config.namespace, countKubeError, config.stateObjects),
        firstAdmin: { ...config.initialAdmin },
        clusters: createKubeBlocksClusters(kubeConfig, logger, kubeBlocks, countKubeError),
        backups: createKubeBlocksBackups(kubeConfig, {
          secretNamespace: config.namespace,
          logger,
          onError: countKubeError,
        }),
        clusterInfo: createKubeClusterInfo(kubeConfig, countKubeError),
        podTelemetry: createKubePodTelemetry(kubeConfig, countKubeError),
      };
    } else {
      // Without Kubernetes, settings, Secrets and users are files in DATA_DIR, and a first admin password may be
      // generated.
      deps = {
        logger,
        tokenStore: store,
        adminStores: createFileAdminStores(dataDir),
        firstAdmin: {
          ...config.initialAdmin,
          writeGeneratedPassword: (password) => writeInitialAdminPassword(dataDir, password),
        },
        clusters: embedded
          ? createEmbeddedClusters({
              falkordb: embedded,
              namespace: config.clusterNamespace,
              ...embeddedServerAccess((args) => management!.sendCommand(args)),
              logger,
            })
          : undefined,
        // Backups of the embedded FalkorDB: RDB snapshots in DATA_DIR/backups, schedules run in this process.
        backups: embedded
          ? await createEmbeddedBackups({
              falkordb: embedded,
              dir: path.join(dataDir, 'backups'),
              namespace: config.clusterNamespace,
              cluster: EMBEDDED_CLUSTER,
              command: (args) => management!.sendCommand(args),
              keepDatabases: [{ database: 1, command: binaryCommands(storeDatabase!) }],
              logger,
            })
          : undefined,
      };
    }
    deps.embeddedDatabase = embeddedDatabase;
    deps.tokenStoreAccount = tokenStoreAccountOf(tokenStoreUrl);
    deps.metrics = metrics;
    deps.metricsExporter = createMetricsExporter(metrics.registry, logger, {
      host: config.host,
      basicAuth: config.metricsBasicAuth,
      // A second local instance finds the port taken: it exports on a free port and says so, once.
      fallbackToFreePort: config.kubernetes === undefined,
    });
    return { config, deps, embedded, embeddedAdminPasswordFile, release };
  } catch (error) {
    await release();
    throw error;
  }
}
