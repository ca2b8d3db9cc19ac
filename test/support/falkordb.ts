// Starts a real, throw-away FalkorDB (Valkey + the FalkorDB module) on a free loopback port.
import { pino } from 'pino';
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
