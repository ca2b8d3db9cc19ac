// Process entry: read the config, start the embedded FalkorDB when no token store is configured,
// build the app, listen, and shut down gracefully on SIGTERM/SIGINT.
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { serverLogger } from './logging/logging.js';
import { serverLogDestination } from './logging/log-destinations.js';
import { prettyOnStdout } from './logging/pretty-log.js';
import { closeGracefully } from './http/graceful-close.js';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startServices, type Services } from './services.js';
import { isPortFree } from './platform/net.js';
import { SERVER_VERSION } from './platform/build-info.js';
import { EMBEDDED_ADMIN_EMAIL } from './admin/users/bootstrap.js';

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

/** What a person starting the server needs next, in words: one log line each. */
function startUpBanner(config: Readonly<Config>, services: Services): string[] {
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const url = `http://${shownHost}:${config.port}`;
  const lines = [
    `graphdb-server ${SERVER_VERSION} is ready at ${url}` +
      (config.enableDocsUi ? `; API documentation at ${url}/api-docs` : `; API document at ${url}/api-spec.json`),
  ];
  const adminFile = path.join(config.dataDir, 'initial-admin-password');
  if (config.initialAdmin.password)
    lines.push(
      `First admin: ${config.initialAdmin.email ?? EMBEDDED_ADMIN_EMAIL}, with the password from ADMIN_PASSWORD`,
    );
  else if (services.embedded && existsSync(adminFile))
    lines.push(`First admin: ${config.initialAdmin.email ?? EMBEDDED_ADMIN_EMAIL}, password in ${adminFile}`);
  const embedded = services.embedded;
  const passwordFile = services.embeddedAdminPasswordFile;
  if (embedded && passwordFile) {
    lines.push(
      `Embedded FalkorDB: host ${embedded.host}, port ${embedded.port}, user admin, password in ${passwordFile}`,
      `Create a token for it: curl -s ${url}/api/auth/tokens/credentials -H 'content-type: application/json' ` +
        `-d '{"username":"admin","password":"'"$(cat ${passwordFile})"'","host":"${embedded.host}",` +
        `"port":"${embedded.port}","tls":"false"}'`,
    );
  }
  return lines;
}

async function main(): Promise<void> {
  const initial = readConfig();
  // The port is checked before anything is created (secrets, the first admin, the embedded database), so a second
  // start beside a running server changes nothing and says what is wrong in one sentence.
  if (!(await isPortFree(initial.host, initial.port))) {
    process.stderr.write(
      `graphdb-server cannot start: port ${initial.port} is already in use on ${initial.host}; ` +
        `stop the process that holds it, or set PORT to a free port.\n`,
    );
    process.exit(1);
  }
  // stdout, and the last lines in memory for diagnostics and the support package (both after censoring). stdout is
  // written synchronously, the lines of up to 10 ms in one write (log-destinations.ts): a slow log reader slows the
  // server rather than growing an unbounded buffer in it (pino's default is an asynchronous write through libuv's
  // thread pool, which also measured slower: a thread hand-off per line on two cores), and only a SIGKILL within
  // those milliseconds can lose lines.
  const { stdout, recentLogs } = serverLogDestination(prettyOnStdout(initial.logFormat, process.stdout.isTTY === true));
  const { logger, accessLines } = serverLogger(initial.logLevel, stdout);
  let services: Services | undefined;
  // Signals are caught from the first moment: one that arrives while the server is still starting (a kubelet giving
  // up on a slow start, Ctrl-C) is kept and acted on as soon as there is something to shut down.
  let shutdown: ((signal: NodeJS.Signals) => void) | undefined;
  let earlySignal: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (shutdown) shutdown(signal);
    else earlySignal ??= signal;
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  try {
    services = await startServices(initial, logger);
    const { config, deps, embedded, release } = services;
    const app = await buildApp(config, { ...deps, recentLogs, accessLines });
    await app.listen({ port: config.port, host: config.host });
    for (const line of startUpBanner(config, services)) logger.info(line);

    let shuttingDown = false;
    shutdown = (signal: NodeJS.Signals) => {
      if (shuttingDown) return;
      shuttingDown = true;
      logger.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
      const deadline = setTimeout(() => {
        logger.error(`shutdown took longer than ${config.shutdownTimeoutMs} ms; exiting`);
        void (embedded?.stop() ?? Promise.resolve()).finally(() => process.exit(1));
      }, config.shutdownTimeoutMs);
      deadline.unref();
      closeGracefully(app)
        .then(release)
        .then(() => {
          logger.info('stopped');
          process.exit(0);
        })
        .catch((error: unknown) => {
          logger.error({ err: error }, 'error during shutdown');
          process.exit(1);
        });
    };
    if (earlySignal) shutdown(earlySignal);
  } catch (error) {
    logger.fatal({ err: error }, (error as Error).message);
    await services?.release();
    process.exit(1);
  }
}

await main();
