// `npm run bench` (or BENCH_ONLY=start-up): the compiled server started in embedded mode with a fresh DATA_DIR,
// START_ROUNDS times (3 by default), one at a time. Each start is timed from the spawn to its "is ready at" log line
// (written once the listener is open), and the server's resident set size is read from /proc at that moment
// (VmRSS; VmHWM is the peak until then). The embedded FalkorDB is a process of its own and is not counted.
// Goal: a fresh server holds less than the public FalkorDB browser (a Next.js server), which holds 149 MiB.
// Results go to bench/results/start-up.json. START_BUILD=<checkout> measures that checkout's build instead (its own
// `npm run build`), for a before/after comparison.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePort } from '../src/platform/net.js';
import { currentRssMiB, peakRssMiB, spawnEmbeddedServer } from './lib/server.js';

const NAME = 'start-up: embedded mode, fresh DATA_DIR';
const ROUNDS = Number(process.env.START_ROUNDS ?? 3);
const GOAL_RSS_MIB = 149;
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = process.env.START_BUILD ? path.resolve(process.env.START_BUILD) : path.resolve(HERE, '..');
const RESULTS_FILE = path.join(HERE, 'results', 'start-up.json');

interface Start {
  readyMs: number;
  rssMiB: number;
  peakRssMiB: number;
}

async function startOnce(): Promise<Start> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'start-up-bench-'));
  const port = await findFreePort();
  const started = performance.now();
  const child = spawnEmbeddedServer(ROOT, dataDir, port);
  try {
    const readyMs = await new Promise<number>((resolve, reject) => {
      let pending = '';
      const timer = setTimeout(() => reject(new Error('the server was not ready within 60 s')), 60_000);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the server exited with ${code} before it was ready`));
      });
      child.stdout.on('data', (chunk: Buffer) => {
        pending += chunk.toString('utf8');
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        if (lines.some((line) => line.includes(' is ready at '))) {
          clearTimeout(timer);
          resolve(performance.now() - started);
        }
      });
    });
    return { readyMs, rssMiB: await currentRssMiB(child.pid!), peakRssMiB: await peakRssMiB(child.pid!) };
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  console.log(NAME);
  const starts: Start[] = [];
  for (let round = 0; round < ROUNDS; round++) starts.push(await startOnce());
  const readyMs = median(starts.map((s) => s.readyMs));
  const rssMiB = median(starts.map((s) => s.rssMiB));
  const peak = median(starts.map((s) => s.peakRssMiB));
  const met = rssMiB < GOAL_RSS_MIB;
  const spread = (values: number[], digits: number) =>
    `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
  console.log(
    `  time to ready      median ${readyMs.toFixed(0)} ms (${spread(
      starts.map((s) => s.readyMs),
      0,
    )} ms)`,
  );
  console.log(
    `  RSS at ready       median ${rssMiB.toFixed(1)} MiB (${spread(
      starts.map((s) => s.rssMiB),
      1,
    )} MiB); ` + `goal < ${GOAL_RSS_MIB} MiB (the public browser's): ${met ? 'met' : 'NOT met'}`,
  );
  console.log(`  peak RSS to ready  median ${peak.toFixed(1)} MiB`);
  await mkdir(path.dirname(RESULTS_FILE), { recursive: true });
  await writeFile(
    RESULTS_FILE,
    `${JSON.stringify({ name: NAME, at: new Date().toISOString(), rounds: ROUNDS, readyMs, rssMiB, peakRssMiB: peak, goalRssMiB: GOAL_RSS_MIB, met, starts }, null, 2)}\n`,
  );
}

await main();
