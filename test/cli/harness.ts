// Runs the compiled graphdb-admin (bin/graphdb-admin.js; build with `npx tsc -p tsconfig.build.json` first) as a
// child process with an environment of its own.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/graphdb-admin.js');
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCommand(
  command: string,
  args: string[],
  env: Record<string, string>,
  stdin = '',
  cwd?: string,
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(stdin);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A graphdb-admin whose config lives in `configDir`, with `extraEnv` on top of a bare environment. */
export function cliIn(configDir: string, extraEnv: Record<string, string> = {}) {
  return (args: string[], stdin?: string, env: Record<string, string> = {}): Promise<Run> =>
    runCommand(
      process.execPath,
      [BIN, ...args],
      { PATH: process.env.PATH ?? '', HOME: configDir, GRAPHDB_ADMIN_CONFIG_DIR: configDir, ...extraEnv, ...env },
      stdin,
    );
}
