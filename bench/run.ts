// `npm run bench`: each scenario runs interleaved rounds of our endpoint and the same work done directly with
// a FalkorDB/Redis client, against one real FalkorDB, and prints throughput, latency and the ratio ours/raw.
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { startEmbeddedFalkorDB } from '../src/platform/falkordb/embedded-falkordb.js';
import { createRedisConnection } from '../src/platform/redis/redis-connection.js';
import { measureHttp, measureRaw } from './lib/load.js';
import { startBenchServer, peakRssMiB } from './lib/server.js';
import { bestRound, type Measurement } from './lib/stats.js';

const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = 10;
const RESULTS_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'latest.json');

interface ScenarioResult {
  name: string;
  ours: Measurement;
  raw: Measurement;
  throughputRatio: number;
  p99Ratio: number;
}

function format(result: ScenarioResult): string {
  const cell = (m: Measurement) => `${m.requestsPerSecond.toFixed(0).padStart(7)} req/s  p50 ${m.p50Ms.toFixed(2).padStart(6)} ms  p99 ${m.p99Ms.toFixed(2).padStart(6)} ms`;
  return [
    result.name,
    `  ours ${cell(result.ours)}  errors ${result.ours.errors}`,
    `  raw  ${cell(result.raw)}  errors ${result.raw.errors}`,
    `  ratio ours/raw: throughput ${(result.throughputRatio * 100).toFixed(0)}%, p99 ${result.p99Ratio.toFixed(2)}x`,
  ].join('\n');
}

async function main(): Promise<void> {
  const logger = pino({ level: 'warn' });
  const falkordb = await startEmbeddedFalkorDB({ logger });
  const server = await startBenchServer({ TOKEN_STORE_URL: falkordb.url });
  const raw = createRedisConnection(falkordb.url, logger);
  await raw.connect();
  const results: ScenarioResult[] = [];
  try {
    const scenarios = [
      {
        name: 'GET /readyz (one token-store PING per request)',
        ours: () => measureHttp({ url: `${server.baseUrl}/readyz`, connections: CONNECTIONS, durationSeconds: DURATION_SECONDS }),
        raw: () => measureRaw(() => raw.ping(), CONNECTIONS, DURATION_SECONDS),
      },
    ];
    for (const scenario of scenarios) {
      const ours: Measurement[] = [];
      const direct: Measurement[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        ours.push(await scenario.ours());
        direct.push(await scenario.raw());
      }
      const best = { ours: bestRound(ours), raw: bestRound(direct) };
      const result = {
        name: scenario.name,
        ...best,
        throughputRatio: best.ours.requestsPerSecond / best.raw.requestsPerSecond,
        p99Ratio: best.ours.p99Ms / best.raw.p99Ms,
      };
      results.push(result);
      console.log(format(result));
    }
    const memory = { serverPeakRssMiB: await server.peakRssMiB(), benchProcessPeakRssMiB: await peakRssMiB('self') };
    console.log(`peak RSS: server ${memory.serverPeakRssMiB.toFixed(1)} MiB, bench process (raw client) ${memory.benchProcessPeakRssMiB.toFixed(1)} MiB`);
    await mkdir(path.dirname(RESULTS_FILE), { recursive: true });
    const machine = { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version };
    await writeFile(RESULTS_FILE, `${JSON.stringify({ date: new Date().toISOString(), machine, durationSeconds: DURATION_SECONDS, rounds: ROUNDS, results, memory }, null, 2)}\n`);
    console.log(`results written to ${path.relative(process.cwd(), RESULTS_FILE)}`);
  } finally {
    await raw.close();
    await server.stop();
    await falkordb.stop();
  }
}

await main();
