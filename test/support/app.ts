// Builds the real app against a real FalkorDB, with its log lines captured for assertions.
import { mkdtemp } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { buildApp, type AppDeps } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { loggerOptions } from '../../src/logging/logging.js';
import { LogRing } from '../../src/logging/log-ring.js';
import { LogFanOut } from '../../src/logging/log-destinations.js';
import {
  closeRedisConnection,
  createRedisConnection,
  type RedisConnection,
} from '../../src/platform/redis/redis-connection.js';
import { createFileAdminStores } from '../../src/platform/stores/file-stores.js';
import { startTestFalkorDB, type TestFalkorDB } from './falkordb.js';
import { checkResponsesAgainstDocument } from './response-contract.js';

export const TEST_SECRETS = {
  AUTH_SECRET: 'test-auth-secret-0123456789abcdef0123456789',
  ENCRYPTION_KEY: '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
  SESSION_SECRET: 'test-session-secret-0123456789abcdef01234567',
};

/** Log lines as parsed JSON objects, in order. */
export class LogCapture {
  readonly lines: Record<string, unknown>[] = [];
  readonly stream = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim()) this.lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });

  get text(): string {
    return this.lines.map((line) => JSON.stringify(line)).join('\n');
  }
}

export interface TestApp {
  app: FastifyInstance;
  config: Readonly<Config>;
  falkordb: TestFalkorDB;
  tokenStore: RedisConnection;
  logs: LogCapture;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  falkordb?: TestFalkorDB;
  /** Where tokens are kept; the graphs' FalkorDB when absent. */
  tokenStore?: TestFalkorDB;
  /** Defaults to local file stores in a fresh temporary directory. */
  deps?: Partial<Omit<AppDeps, 'logger' | 'tokenStore'>>;
  /** Called after plugins are registered and before ready(), e.g. to add a throw-away route. */
  beforeReady?: (app: FastifyInstance) => void | Promise<void>;
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const falkordb = options.falkordb ?? (await startTestFalkorDB());
  const ownsFalkorDB = !options.falkordb;
  const storeUrl = (options.tokenStore ?? falkordb).url;
  // Suites create many tokens from one address; the limit itself is tested with it set explicitly. The test
  // databases listen on loopback, which DATABASE_HOSTS must name; failed credential checks answer at the deadline.
  const config = loadConfig({
    ...TEST_SECRETS,
    LOG_LEVEL: 'info',
    TOKEN_STORE_URL: storeUrl,
    TOKEN_CREATION_PER_MINUTE: '0',
    DATABASE_HOSTS: '127.0.0.1,localhost,::1',
    CREDENTIAL_CHECK_TIMEOUT_MS: '1500',
    ...options.env,
  });
  const logs = new LogCapture();
  // As main.ts: the captured lines, and the in-memory ring diagnostics read.
  const recentLogs = new LogRing();
  const logger = pino(loggerOptions(config.logLevel), new LogFanOut([logs.stream, recentLogs]));
  const tokenStore = createRedisConnection(storeUrl, logger);
  await tokenStore.connect();
  const adminStores =
    options.deps?.adminStores ?? createFileAdminStores(await mkdtemp(path.join(os.tmpdir(), 'gdb-admin-')));
  const app = await buildApp(config, { logger, tokenStore, recentLogs, ...options.deps, adminStores });
  // Every response is checked against the API document (test/support/response-contract.ts).
  checkResponsesAgainstDocument(app);
  await options.beforeReady?.(app);
  await app.ready();
  return {
    app,
    config,
    falkordb,
    tokenStore,
    logs,
    async close() {
      await app.close();
      if (tokenStore.isOpen) await closeRedisConnection(tokenStore);
      if (ownsFalkorDB) await falkordb.stop();
    },
  };
}

/** Listens on a free loopback port and returns the base URL. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}
