// Runs src/main.ts as a real child process (the way `npm start` does) and reads its JSON log lines.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePort, isPortFree } from '../../src/platform/net.js';
import { MISMATCH_LINE_PREFIX, recordContractMismatch } from './response-contract.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// Checks every response of the child's app against openapi/openapi.json, as startTestApp does in-process.
const CONTRACT_CHECK = new URL('./response-contract-child.ts', import.meta.url).href;

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  baseUrl: string;
  lines: Record<string, unknown>[];
  stderr: () => string;
  /** Resolves with the first log line matching, or rejects when the process exits first. */
  waitForLine(
    predicate: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * A free port below Linux's ephemeral range (32768 and up by default), which nothing binding port 0 can be given.
 * The server's embedded FalkorDB picks its port that way while the server starts, and once took the port chosen for
 * the server's own listener between this check and the server's listen (EADDRINUSE in a CI run).
 */
async function portOutsideEphemeralRange(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await isPortFree('127.0.0.1', port)) return port;
  }
  return findFreePort();
}

/** `nodeArgs`: options for node itself, after tsx's hooks and before the entry point (e.g. another `--import`). */
export async function runServerProcess(env: Record<string, string>, nodeArgs: string[] = []): Promise<ServerProcess> {
  const port = await portOutsideEphemeralRange();
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', CONTRACT_CHECK, ...nodeArgs, 'src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      HOST: '127.0.0.1',
      PORT: String(port),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  let stderr = '';
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    partial += chunk.toString('utf8');
    const complete = partial.split('\n');
    partial = complete.pop() ?? '';
    for (const line of complete) {
      if (!line.trim()) continue;
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        lines.push({ msg: line });
      }
    }
    for (const wake of waiters) wake();
  });
  // Mismatches the response check found in the child are recorded for the test under way, not left in stderr.
  let stderrPartial = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderrPartial += chunk.toString('utf8');
    const complete = stderrPartial.split('\n');
    stderrPartial = complete.pop() ?? '';
    for (const line of complete) {
      if (line.startsWith(MISMATCH_LINE_PREFIX))
        recordContractMismatch(JSON.parse(line.slice(MISMATCH_LINE_PREFIX.length)) as string);
      else stderr += `${line}\n`;
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      for (const wake of waiters) wake();
      resolve({ code, signal });
    });
  });

  return {
    child,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    lines,
    stderr: () => stderr + stderrPartial,
    exited,
    waitForLine(predicate, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => finish(() => reject(new Error(`no matching log line within ${timeoutMs} ms; stderr: ${stderr}`))),
          timeoutMs,
        );
        const finish = (action: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          action();
        };
        const check = () => {
          const found = lines.find(predicate);
          if (found) finish(() => resolve(found));
          else if (child.exitCode !== null || child.signalCode !== null)
            // The last log lines usually say why (a fatal line goes to stdout, not stderr).
            finish(() =>
              reject(
                new Error(
                  `process exited (${child.exitCode}); stderr: ${stderr}; last lines: ${JSON.stringify(lines.slice(-3))}`,
                ),
              ),
            );
        };
        waiters.add(check);
        check();
      });
    },
  };
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
