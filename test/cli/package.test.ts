// `npm pack` gives a package whose graphdb-admin runs on its own: installed from the tarball into a temp prefix
// (dependencies from npm's cache when it has them, --prefer-offline), started from a clean directory with only Node.
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, useAdminApp } from '../support/admin.js';
import { ROOT, runCommand } from './harness.js';

const t = useAdminApp({ listen: true, roles: [] });
let server: string;
let work: string;
let tarball: string;
let files: string[];

const npmEnv = () =>
  Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));

beforeAll(async () => {
  server = t.baseUrl;
  work = await mkdtemp(path.join(os.tmpdir(), 'graphdb-admin-pack-'));
  // dist/ is already built (the CLI tests need it); --ignore-scripts skips `prepare`, which would build it again.
  const pack = await runCommand(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', work],
    npmEnv(),
    '',
    ROOT,
  );
  expect(pack.code, pack.stderr).toBe(0);
  const [info] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
  tarball = path.join(work, info!.filename);
  files = info!.files.map((f) => f.path);
}, 60_000);

describe('the npm package', () => {
  it('holds the compiled code, the bin script, package.json and README only', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/graphdb-admin.js',
        'bin/graphdb.js',
        'dist/cli/main.js',
        'dist/cli/shell/main.js',
        'dist/main.js',
        'package.json',
        'README.md',
      ]),
    );
    const outside = files.filter(
      (f) =>
        !f.startsWith('dist/') && !['bin/graphdb-admin.js', 'bin/graphdb.js', 'package.json', 'README.md'].includes(f),
    );
    expect(outside).toEqual([]);
    expect(files.filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
    expect(files.filter((f) => /(^|\/)(test|src)\//.test(f))).toEqual([]);
    // Source maps would point at src/, which is not shipped.
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
  });

  it('installs into an empty prefix and runs graphdb-admin from a clean directory with only Node', async () => {
    const prefix = path.join(work, 'prefix');
    const install = await runCommand(
      'npm',
      [
        'install',
        '--prefix',
        prefix,
        tarball,
        '--omit=dev',
        '--omit=optional',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
      ],
      // npm runs on the Node the tests run on (first on PATH), a supported one: no EBADENGINE from the package or
      // any of its dependencies.
      { ...npmEnv(), PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` },
      '',
      work,
    );
    expect(install.code, install.stderr).toBe(0);
    expect(install.stderr).not.toContain('EBADENGINE');
    const bin = path.join(prefix, 'node_modules', '.bin', 'graphdb-admin');
    const clean = await mkdtemp(path.join(os.tmpdir(), 'graphdb-admin-clean-'));
    // Only node's own directory on PATH; a fresh HOME; the working directory outside the project.
    const env = { PATH: path.dirname(process.execPath), HOME: clean };
    const { version } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const v = await runCommand(bin, ['--version'], env, '', clean);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout.trim()).toBe(version);
    const login = await runCommand(
      bin,
      ['login', '--server', server, '--email', ADMIN.email, '--password-stdin'],
      env,
      ADMIN.password,
      clean,
    );
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(`Signed in as ${ADMIN.email}`);
    expect(login.stdout).toContain(path.join(clean, '.config', 'graphdb-admin', 'session.json'));
    const who = await runCommand(bin, ['whoami', '-o', 'json'], env, '', clean);
    expect(JSON.parse(who.stdout)).toMatchObject({ user: { email: ADMIN.email }, server });
    // The Cypher shell is installed with it.
    const shell = await runCommand(path.join(prefix, 'node_modules', '.bin', 'graphdb'), ['--version'], env, '', clean);
    expect(shell.code, shell.stderr).toBe(0);
    expect(shell.stdout.trim()).toBe(version);
    // `#!/usr/bin/env node` finds whichever Node is first on PATH: an older one than engines gets one line, exit 1.
    const old = {
      ...env,
      NODE_OPTIONS: `--import=data:text/javascript,Object.defineProperty(process.versions,'node',{value:'20.20.2'})`,
    };
    for (const name of ['graphdb-admin', 'graphdb']) {
      const refused = await runCommand(path.join(prefix, 'node_modules', '.bin', name), ['--version'], old, '', clean);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toBe(`${name}: needs Node.js 22.19 or later; this is 20.20.2 (${process.execPath})\n`);
    }
  }, 240_000);
});
