// Runs the compiled graphdb-admin (bin/graphdb-admin.js; build with `npx tsc -p tsconfig.build.json` first) as a
// child process with an environment of its own.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';

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
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // A command that exits without reading its input closes the pipe first (EPIPE): its exit code and output say how
    // it went, so only another failure to write is the harness's.
    child.stdin.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') reject(error);
    });
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

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

/** The API's own response schema of one operation (from openapi/openapi.json), as a check of the CLI's JSON. */
export async function schemaCheck(method: string, route: string, status = '200', pointer = '') {
  if (!ajv.getSchema('openapi')) {
    const document = JSON.parse(await readFile(path.join(ROOT, 'openapi/openapi.json'), 'utf8')) as object;
    ajv.addSchema({ ...document, $id: 'openapi' });
  }
  const escape = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');
  const ref = `openapi#/paths/${escape(route)}/${method}/responses/${status}/content/application~1json/schema${pointer}`;
  const validate = ajv.compile({ $ref: ref });
  return (value: unknown) => {
    const ok = validate(value);
    expect(ok, JSON.stringify(validate.errors)).toBe(true);
  };
}

/** One step of a terminal conversation: when the screen shows `when`, type `send`. */
export interface Exchange {
  when: RegExp;
  send: string;
  /** Awaited after `when` matched and before typing (e.g. until the server shows the query running). */
  before?: () => Promise<void>;
}

const shellQuote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * Runs a command in a pseudo-terminal (util-linux `script`), typing each exchange's answer once its prompt is on the
 * screen. `screen` is everything the terminal showed (stdout and stderr together, as a terminal shows them).
 */
export function runInTerminal(
  argv: string[],
  env: Record<string, string>,
  exchanges: Exchange[] = [],
  timeoutMs = 60_000,
): Promise<{ code: number | null; screen: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qefc', argv.map(shellQuote).join(' '), '/dev/null'], {
      env: { SHELL: '/bin/sh', TERM: 'xterm', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    let next = 0;
    let answeredAt = 0;
    let waiting = false;
    const advance = () => {
      if (waiting || next >= exchanges.length) return;
      const exchange = exchanges[next]!;
      if (!exchange.when.test(screen.slice(answeredAt))) return;
      answeredAt = screen.length;
      next++;
      waiting = true;
      void (exchange.before ?? (() => Promise.resolve()))().then(
        () => {
          child.stdin.write(exchange.send);
          waiting = false;
          advance();
        },
        (error: unknown) => {
          child.kill();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    };
    const onOutput = (chunk: Buffer) => {
      screen += chunk.toString();
      advance();
    };
    child.stdout.on('data', onOutput);
    child.stderr.on('data', onOutput);
    child.on('error', reject);
    // A conversation that stalls (a prompt that never came) ends with the screen so far, for the assertion to show.
    const stall = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(stall);
      child.stdin.destroy();
      resolve({ code, screen });
    });
  });
}

export const SHELL_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/graphdb.js');

/** runInTerminal for graphdb-admin with its config in `configDir`. */
export function cliInTerminal(configDir: string) {
  return (args: string[], exchanges: Exchange[] = []) =>
    runInTerminal(
      [process.execPath, BIN, ...args],
      {
        PATH: process.env.PATH ?? '',
        HOME: configDir,
        GRAPHDB_ADMIN_CONFIG_DIR: configDir,
      },
      exchanges,
    );
}
