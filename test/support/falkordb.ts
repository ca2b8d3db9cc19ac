// Starts a real, throw-away FalkorDB (Valkey + the FalkorDB module) on a free loopback port.
import { pino } from 'pino';
import { createClient } from 'redis';
import type { ClusterPort } from '../../src/platform/clusters/cluster-port.js';
import { createEmbeddedClusters, embeddedServerAccess } from '../../src/platform/clusters/embedded-clusters.js';
import { closeRedisConnection } from '../../src/platform/redis/redis-connection.js';
import { startEmbeddedFalkorDB, type EmbeddedFalkorDB } from '../../src/platform/falkordb/embedded-falkordb.js';

export type TestFalkorDB = EmbeddedFalkorDB;

export async function startTestFalkorDB(
  options: { dataDir?: string; resultSetSize?: number; extraArguments?: string[]; startTimeoutMs?: number } = {},
): Promise<TestFalkorDB> {
  return startEmbeddedFalkorDB({
    dataDir: options.dataDir,
    resultSetSize: options.resultSetSize,
    extraArguments: options.extraArguments,
    startTimeoutMs: options.startTimeoutMs,
    logger: pino({ level: 'silent' }),
  });
}

export interface TestEmbeddedDeployment {
  clusters: ClusterPort;
  /** Closes the administrator connection; call it before the FalkorDB stops. */
  close(): Promise<void>;
}

/**
 * The embedded deployment on a test's FalkorDB, reached the way the server process reaches its own: commands on one
 * administrator connection (embeddedServerAccess), opened on first use and reconnected after a restart.
 */
export function testEmbeddedDeployment(falkordb: TestFalkorDB, namespace: string): TestEmbeddedDeployment {
  const control = createClient({ url: falkordb.url });
  control.on('error', () => undefined);
  let connected: Promise<unknown> | undefined;
  const command = async (args: string[]): Promise<unknown> => {
    await (connected ??= control.connect());
    return control.sendCommand(args);
  };
  return {
    clusters: createEmbeddedClusters({
      falkordb,
      namespace,
      ...embeddedServerAccess(command),
      logger: pino({ level: 'silent' }),
    }),
    close: async () => {
      if (connected) await closeRedisConnection(control);
    },
  };
}
