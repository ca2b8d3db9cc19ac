// Process entry: read the config, start the embedded FalkorDB when no token store is configured,
// build the app, listen, and shut down gracefully on SIGTERM/SIGINT.
import path from 'node:path';
import { pino, type Logger } from 'pino';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { loggerOptions } from './shared/logging.js';
import { closeGracefully } from './shared/graceful-close.js';
import { createMetrics } from './shared/metrics.js';
import { createMetricsExporter } from './platform/metrics/metrics-exporter.js';
import { startEmbeddedFalkorDB, type EmbeddedFalkorDB } from './platform/falkordb/embedded-falkordb.js';
import { loadOrCreateEmbeddedSecrets } from './platform/embedded-secrets.js';
import { closeRedisConnection, createRedisConnection, type RedisConnection } from './platform/redis/redis-connection.js';
import { kubernetesReadiness, loadKubeConfig, serviceAccountNamespace } from './platform/kubernetes/kube-config.js';
import { createKubeAdminStores } from './platform/kubernetes/kube-stores.js';
import { createKubeBlocksClusters, detectKubeBlocks } from './platform/kubernetes/kubeblocks.js';
import { createEmbeddedClusters } from './platform/clusters/embedded-clusters.js';
import { DYNAMIC_PARAMETERS } from './admin/clusters/falkordb-parameters.js';
import { createFileAdminStores, writeInitialAdminPassword } from './platform/stores/file-stores.js';

function readConfig(): Readonly<Config> {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`graphdb-server cannot start.\n${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
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

async function main(): Promise<void> {
  let config = readConfig();
  const logger = pino(loggerOptions(config.logLevel));
  let embedded: EmbeddedFalkorDB | undefined;
  let tokenStore: RedisConnection | undefined;

  const releaseResources = async () => {
    if (tokenStore) await closeRedisConnection(tokenStore);
    await embedded?.stop();
  };

  try {
    if (!config.tokenStoreUrl) {
      embedded = await startEmbeddedFalkorDB({
        dataDir: path.join(config.dataDir, 'falkordb'),
        serverBin: config.falkordbServerBin,
        modulePath: config.falkordbModulePath,
        logger,
      });
      logger.info(
        { embeddedFalkorDB: { host: embedded.host, port: embedded.port, pid: embedded.pid, server: embedded.server } },
        `Embedded FalkorDB listening on ${embedded.host}:${embedded.port} (create tokens with host ${embedded.host}, port ${embedded.port}, tls false, username default)`,
      );
      config = await withEmbeddedSecrets(config, logger);
    }
    // Embedded mode keeps tokens in database 1, apart from the users' graphs in database 0.
    tokenStore = createRedisConnection(config.tokenStoreUrl ?? `${embedded!.url}/1`, logger);
    await tokenStore.connect();

    if (config.kubernetes?.kind === 'in-cluster' && !config.namespaceFromEnvironment) {
      const namespace = await serviceAccountNamespace();
      if (namespace) config = Object.freeze({ ...config, namespace });
    }
    const metrics = createMetrics();
    const countKubeError = (kind: string) => metrics.kubernetesErrors.inc({ kind });
    const kubeConfig = config.kubernetes ? loadKubeConfig(config.kubernetes) : undefined;
    const readinessChecks = kubeConfig ? [{ name: 'kubernetes', check: kubernetesReadiness(kubeConfig) }] : [];
    // Without Kubernetes, settings, Secrets and users are files in DATA_DIR, and a first admin password may be generated.
    const adminStores = kubeConfig ? createKubeAdminStores(kubeConfig, config.namespace, countKubeError) : createFileAdminStores(config.dataDir);
    const firstAdmin = {
      ...config.initialAdmin,
      writeGeneratedPassword: kubeConfig ? undefined : (password: string) => writeInitialAdminPassword(config.dataDir, password),
    };
    const kubeBlocks = kubeConfig
      ? await detectKubeBlocks(kubeConfig).catch((error: unknown) => {
          logger.warn({ err: error }, 'could not detect the KubeBlocks API version; will retry at the first cluster request');
          return undefined;
        })
      : undefined;
    const clusters = kubeConfig
      ? createKubeBlocksClusters(kubeConfig, logger, kubeBlocks, countKubeError)
      : embedded
        ? createEmbeddedClusters({
            falkordb: embedded,
            namespace: config.clusterNamespace,
            configSet: async (key, value) => {
              await tokenStore!.sendCommand(['GRAPH.CONFIG', 'SET', key, value]);
            },
            isDynamicParameter: (key) => DYNAMIC_PARAMETERS.has(key),
            logger,
          })
        : undefined;
    const metricsExporter = createMetricsExporter(metrics.registry, logger);
    const app = await buildApp(config, { logger, tokenStore, readinessChecks, adminStores, firstAdmin, clusters, metrics, metricsExporter });
    await app.listen({ port: config.port, host: config.host });

    let shuttingDown = false;
    const shutdown = (signal: NodeJS.Signals) => {
      if (shuttingDown) return;
      shuttingDown = true;
      logger.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
      const deadline = setTimeout(() => {
        logger.error(`shutdown took longer than ${config.shutdownTimeoutMs} ms; exiting`);
        void (embedded?.stop() ?? Promise.resolve()).finally(() => process.exit(1));
      }, config.shutdownTimeoutMs);
      deadline.unref();
      closeGracefully(app)
        .then(releaseResources)
        .then(() => {
          logger.info('stopped');
          process.exit(0);
        })
        .catch((error: unknown) => {
          logger.error({ err: error }, 'error during shutdown');
          process.exit(1);
        });
    };
    process.on('SIGTERM', shutdown);
    process.on('SIGINT', shutdown);
  } catch (error) {
    logger.fatal({ err: error }, (error as Error).message);
    await releaseResources();
    process.exit(1);
  }
}

await main();
