// The Cypher shell's memory while it streams a large result: the compiled server in embedded mode (its own
// FalkorDB), a token made from the embedded database's credentials, then `graphdb --format <f>` reading
// `UNWIND range(1, N) RETURN …` with its output drained to nothing, for every output format at 1,000 rows and at
// SHELL_BENCH_ROWS (1,000,000 by default). The shell's peak resident set size (VmHWM, read from /proc every 50 ms) is
// measured SHELL_BENCH_REPEATS times (3 by default) per format and size, the sizes interleaved so the machine's load
// falls on both alike; the spread of the 1,000-row peaks is the noise. Flat: the large result's median peak is within
// that noise of the small one's, or close to it.
// Run: npm run build && npx tsx bench/shell-memory.ts   (part of `npm run bench`; BENCH_ONLY="shell memory")
import { spawn } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePort } from '../src/platform/net.js';
import { currentRssMiB, peakRssMiB, spawnEmbeddedServer } from './lib/server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROWS = Number(process.env.SHELL_BENCH_ROWS ?? 1_000_000);
const REPEATS = Number(process.env.SHELL_BENCH_REPEATS ?? 3);
const SMALL = 1_000;
const FORMATS = ['ndjson', 'json', 'csv', 'table'] as const;

interface Embedded {
  host: string;
  port: number;
  username: string;
  passwordFile: string;
}

async function startServer(): Promise<{ baseUrl: string; embedded: Embedded; stop: () => Promise<void> }> {
  const port = await findFreePort();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'shell-bench-'));
  const child = spawnEmbeddedServer(ROOT, dataDir, port, {
    // The result is the point: allow it whole.
    QUERY_ROWS_MAX: String(ROWS * 2),
    QUERY_RESULT_BYTES_MAX: String(2 ** 32),
    QUERY_TIMEOUT_MAX_MS: '600000',
  });
  let pending = '';
  const embedded = await new Promise<Embedded>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines)
        if (line.includes('embeddedFalkorDB'))
          resolve((JSON.parse(line) as { embeddedFalkorDB: Embedded }).embeddedFalkorDB);
    });
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (
      await fetch(`${baseUrl}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    baseUrl,
    embedded,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/** Runs the shell on one query; answers its peak RSS (MiB), the bytes it wrote and how long it took. */
async function measure(baseUrl: string, token: string, rows: number, format: string, heapCapMiB?: number) {
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'bin/graphdb.js'), 'bench', '--server', baseUrl, '--format', format, '--timeout', '600000'],
    {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: os.tmpdir(),
        GRAPHDB_TOKEN: token,
        // With a small old-space cap a shell that kept the rows would die of it: finishing proves it did not.
        ...(heapCapMiB ? { NODE_OPTIONS: `--max-old-space-size=${heapCapMiB}` } : {}),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let bytes = 0;
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (bytes += chunk.length));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(`UNWIND range(1, ${rows}) AS x RETURN x, 'row ' + toString(x) AS label;\n`);
  let peak = 0;
  let sampled = 0;
  const sampler = setInterval(() => {
    void Promise.all([peakRssMiB(child.pid!), currentRssMiB(child.pid!)]).then(
      ([high]) => {
        // A process that is exiting has no VmHWM any more (NaN): keep what was seen.
        if (Number.isFinite(high)) peak = Math.max(peak, high);
        sampled++;
      },
      () => {},
    );
  }, 50);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(sampler);
  if (code !== 0) throw new Error(`graphdb exited with ${code}: ${stderr}`);
  return { peak, bytes, seconds: (Date.now() - started) / 1000, sampled };
}

const server = await startServer();
try {
  const password = (await readFile(server.embedded.passwordFile, 'utf8')).trim();
  const res = await fetch(`${server.baseUrl}/api/auth/tokens/credentials`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      username: server.embedded.username,
      password,
      host: server.embedded.host,
      port: String(server.embedded.port),
      tls: 'false',
    }),
  });
  if (!res.ok) throw new Error(`token: ${res.status} ${await res.text()}`);
  const { token } = (await res.json()) as { token: string };
  // The graph the query runs on exists first: a read never creates a graph.
  const created = await fetch(`${server.baseUrl}/api/graph/bench`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  });
  if (!created.ok) throw new Error(`graph: ${created.status} ${await created.text()}`);
  console.log(
    `graphdb shell memory, streaming a result to /dev/null: peak RSS of the shell process (VmHWM), ${REPEATS} runs each`,
  );
  console.log('format  rows       peak RSS MiB: median (min-max)  output     time (median)');
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
  const range = (values: number[]) => `${Math.min(...values).toFixed(1)}-${Math.max(...values).toFixed(1)}`;
  for (const format of FORMATS) {
    const peaks: Record<number, number[]> = { [SMALL]: [], [ROWS]: [] };
    const seconds: Record<number, number[]> = { [SMALL]: [], [ROWS]: [] };
    const bytes: Record<number, number> = {};
    for (let i = 0; i < REPEATS; i++)
      for (const rows of [SMALL, ROWS]) {
        const m = await measure(server.baseUrl, token, rows, format);
        peaks[rows]!.push(m.peak);
        seconds[rows]!.push(m.seconds);
        bytes[rows] = m.bytes;
      }
    for (const rows of [SMALL, ROWS])
      console.log(
        `${format.padEnd(7)} ${String(rows).padEnd(10)} ${median(peaks[rows]!).toFixed(1).padStart(5)} (${range(peaks[rows]!)})`.padEnd(
          49,
        ) + ` ${(bytes[rows]! / 1024 / 1024).toFixed(1).padStart(6)} MiB  ${median(seconds[rows]!).toFixed(1)} s`,
      );
    const noise = Math.max(...peaks[SMALL]!) - Math.min(...peaks[SMALL]!);
    const growth = median(peaks[ROWS]!) - median(peaks[SMALL]!);
    console.log(
      `${format.padEnd(7)} ${ROWS} rows over ${SMALL}: ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MiB (median to median; the ${SMALL}-row runs spread ${noise.toFixed(1)} MiB)`,
    );
  }
  // With a small old-space cap a shell that kept the rows would die of it: finishing proves it did not.
  for (const format of ['ndjson', 'table']) {
    const capped = await measure(server.baseUrl, token, ROWS, format, 16);
    console.log(
      `${format.padEnd(7)} ${ROWS} rows with the old space capped at 16 MiB: finished, peak ${capped.peak.toFixed(1)} MiB`,
    );
  }
} finally {
  await server.stop();
}
