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
