// A Python client generated from openapi/openapi.json by openapi-python-client (pinned, with mypy, in the virtualenv
// scripts/ensure-python-client-tools.sh keeps under ~/.cache/graphdb-server/): the generator reads the document
// without a warning, a realistic session (test/clients/python/session.py) type-checks under mypy --strict, then runs
// against a real server on a real FalkorDB. Without Python 3.11 and its venv module this fails and says so.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDbUser, credentials, useBrowserApp } from '../support/browser.js';

const execFileAsync = promisify(execFile);
const here = path.join(import.meta.dirname, 'python');
const root = path.join(import.meta.dirname, '..', '..');

/** Runs a command; on failure the error carries its output, so a failing test says what went wrong. */
async function run(
  file: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await execFileAsync(file, args, { env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stdout = '', stderr = '', message } = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${message}\n${stdout}\n${stderr}`);
  }
}

const t = useBrowserApp({ prefix: 'pyclient', listen: true });
let venv = '';
let work = '';
let generatorOutput = '';

beforeAll(async () => {
  // A cold machine installs the generator and mypy from PyPI here (about a minute); later runs reuse the venv.
  venv = (await run('sh', [path.join(root, 'scripts', 'ensure-python-client-tools.sh')])).stdout.trim();
  work = await mkdtemp(path.join(os.tmpdir(), 'python-client-'));
  const generated = await run(path.join(venv, 'bin', 'openapi-python-client'), [
    'generate',
    '--path',
    path.join(root, 'openapi', 'openapi.json'),
    '--output-path',
    path.join(work, 'graphdb_client'),
    '--meta',
    'none',
    '--config',
    path.join(here, 'openapi-python-client.yaml'),
  ]);
  generatorOutput = `${generated.stdout}${generated.stderr}`;
}, 600_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the generated Python client', () => {
  it('is generated from the document without a warning (no refused schema, no dropped response)', () => {
    expect(generatorOutput).toContain('Generating');
    expect(generatorOutput).not.toMatch(/warning|error|cannot|unable/i);
  });

  it('type-checks the session under mypy --strict', async () => {
    const checked = await run(
      path.join(venv, 'bin', 'mypy'),
      [
        '--config-file',
        path.join(here, 'mypy.ini'),
        '--cache-dir',
        path.join(work, 'mypy-cache'),
        path.join(here, 'session.py'),
      ],
      { MYPYPATH: work },
    ).then(
      ({ stdout }) => stdout,
      (error: Error) => error.message,
    );
    expect(checked).toMatch(/^Success: no issues found/m);
  }, 300_000);

  it('runs the session against a real server: token, parameterised body queries, typed rows, an error', async () => {
    await createDbUser(t.falkordb, 'pyclient-user', 'pyclient-password', 'Read-Write');
    const login = credentials(t.falkordb, 'pyclient-user', 'pyclient-password');
    const { stdout } = await run(
      path.join(venv, 'bin', 'python'),
      [
        path.join(here, 'session.py'),
        t.baseUrl,
        JSON.stringify({
          username: login.username,
          password: login.password,
          host: login.host,
          port: Number(login.port),
        }),
        'pyclient-people',
      ],
      { PYTHONPATH: work },
    );
    const outcome = JSON.parse(stdout) as Record<string, unknown>;
    expect(outcome.tokenNames).toContain('python client');
    expect(outcome.plainRows).toEqual([{ name: 'Ada', born: 1815 }]);
    expect(outcome.people).toEqual([
      {
        name: 'Ada',
        labels: ['Person'],
        born: 1815,
        friends: ['Charles'],
        since: 1833,
        knows: 'KNOWS',
        big: '9007199254740993',
      },
    ]);
    expect(outcome.missingGraphStatus).toBe(404);
    expect(outcome.missingGraphMessage).toContain('pyclient-people-missing');
  }, 120_000);
});
