// Starts the server as its own process (so its memory is measured apart from the load generator).
import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePort } from '../../src/platform/net.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface BenchServer {
  baseUrl: string;
  pid: number;
  /** Peak resident set size so far, from /proc (VmHWM), in MiB. */
  peakRssMiB(): Promise<number>;
  stop(): Promise<void>;
}

/** `entry`: the compiled server by default, as production runs it (npm run bench builds first). */
export async function startBenchServer(
  env: Record<string, string>,
  entry: string[] = ['dist/main.js'],
): Promise<BenchServer> {
  const port = await findFreePort();
  // BENCH_NODE_ARGS, e.g. `--cpu-prof --cpu-prof-dir=bench/results/profiles`, profiles the server under load.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, ...entry], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      // One connection per load client for the whole round: with the cap, each would be closed and opened again
      // every 1,000 requests, and a route's figures would carry those reconnections.
      MAX_REQUESTS_PER_SOCKET: '0',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`bench server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${baseUrl}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('bench server did not start within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    baseUrl,
    pid: child.pid!,
    peakRssMiB: () => peakRssMiB(child.pid!),
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/**
 * The compiled server of checkout `root` in embedded mode with its own DATA_DIR (also its HOME), stdout piped for
 * its log lines. `env` adds to or overrides the defaults.
 */
export function spawnEmbeddedServer(
  root: string,
  dataDir: string,
  port: number,
  env: Record<string, string> = {},
): ChildProcessByStdio<null, Readable, null> {
  return spawn(process.execPath, ['dist/main.js'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

/** Resident set size now, from /proc (VmRSS), in MiB. */
export async function currentRssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN) / 1024;
}

export async function peakRssMiB(pid: number | 'self'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN);
  return kib / 1024;
}
