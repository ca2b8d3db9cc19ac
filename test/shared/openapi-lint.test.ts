// Lints openapi/openapi.json (kept equal to the generated document by openapi.test.ts) with Redocly and Spectral, as
// client developers' tools do: any error fails, and so does any warning not kept on purpose in
// docs/decisions/openapi-lint.md.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_FILE } from '../../scripts/export-openapi.js';

const run = promisify(execFile);
const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const REDOCLY = path.join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
const SPECTRAL = path.join(ROOT, 'node_modules', '@stoplight', 'spectral-cli', 'dist', 'index.js');

/** The warnings kept on purpose, by tool and rule; the reasons are in docs/decisions/openapi-lint.md. */
const KEPT_WARNINGS: Record<'redocly' | 'spectral', string[]> = {
  redocly: ['info-license', 'no-ambiguous-paths', 'operation-2xx-response', 'operation-4xx-response'],
  spectral: ['info-contact'],
};

interface Problem {
  tool: 'redocly' | 'spectral';
  rule: string;
  severity: 'error' | 'warning';
  where: string;
  message: string;
}

/** Runs a linter that exits 1 when it finds errors; its JSON report is on stdout either way. */
async function report(args: string[]): Promise<string> {
  try {
    return (await run(process.execPath, args, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (error) {
    const stdout = (error as { stdout?: string }).stdout;
    if (stdout) return stdout;
    throw error;
  }
}

async function redocly(file: string): Promise<Problem[]> {
  const out = await report([REDOCLY, 'lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format=json']);
  const json = JSON.parse(out.slice(out.indexOf('{'))) as {
    problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
  };
  return json.problems.map((problem) => ({
    tool: 'redocly',
    rule: problem.ruleId,
    severity: problem.severity === 'error' ? 'error' : 'warning',
    where: problem.location[0]?.pointer ?? '',
    message: problem.message,
  }));
}

async function spectral(file: string): Promise<Problem[]> {
  const out = await report([SPECTRAL, 'lint', file, '--ruleset', path.join(ROOT, '.spectral.yaml'), '-f', 'json']);
  // Spectral prints "No results with a severity of …" instead of [] on a clean document.
  const start = out.indexOf('[');
  const json = (start < 0 ? [] : JSON.parse(out.slice(start))) as {
    code: string;
    severity: number;
    message: string;
    path: string[];
  }[];
  return json.map((problem) => ({
    tool: 'spectral',
    rule: problem.code,
    severity: problem.severity === 0 ? 'error' : 'warning',
    where: problem.path.join(' '),
    message: problem.message,
  }));
}

const listed = (problems: Problem[]) =>
  problems.map(
    (problem) => `${problem.tool} ${problem.severity} ${problem.rule} at ${problem.where}: ${problem.message}`,
  );

describe('the API document under Redocly (recommended) and Spectral (spectral:oas)', () => {
  let problems: Problem[];
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), 'openapi-lint-'));
    problems = [...(await redocly(OPENAPI_FILE)), ...(await spectral(OPENAPI_FILE))];
    // The warnings are part of the test's output, so a reader sees what is kept.
    process.stdout.write(`OpenAPI lint warnings (kept on purpose):\n${listed(problems).join('\n')}\n`);
  }, 180_000);
  afterAll(() => rm(scratch, { recursive: true, force: true }));

  it('reports no error', () => {
    expect(listed(problems.filter((problem) => problem.severity === 'error'))).toEqual([]);
  });

  it('reports only the warnings docs/decisions/openapi-lint.md keeps, each with its reason', () => {
    const unexpected = problems.filter(
      (problem) => problem.severity === 'warning' && !KEPT_WARNINGS[problem.tool].includes(problem.rule),
    );
    expect(listed(unexpected)).toEqual([]);
  });

  it('fails a document with an error, with the same configurations (the linters can say no)', async () => {
    const broken = path.join(scratch, 'broken.json');
    await writeFile(
      broken,
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 'broken', version: '1' },
        // Redocly: no-empty-servers; Spectral: array-items.
        servers: [],
        paths: {
          '/x': {
            get: {
              operationId: 'x',
              description: 'x',
              security: [],
              responses: {
                200: { description: 'x', content: { 'application/json': { schema: { type: 'array' } } } },
                400: { description: 'x' },
              },
            },
          },
        },
      }),
    );
    const found = [...(await redocly(broken)), ...(await spectral(broken))];
    const tools = new Set(found.filter((problem) => problem.severity === 'error').map((problem) => problem.tool));
    expect([...tools].sort()).toEqual(['redocly', 'spectral']);
  }, 120_000);
});
