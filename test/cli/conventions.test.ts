// graphdb-admin's conventions on every command: output formats, --version, usage errors, connection and session
// errors, EPIPE, atomic config writes, contexts, completion; against the real server (embedded mode).
import { createServer } from 'node:net';
import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ADMIN, useAdminApp } from '../support/admin.js';
import { BIN, cliIn, ROOT, runCommand, schemaCheck, type Run } from './harness.js';

const t = useAdminApp({ listen: true, roles: [] });
let server: string;
let configDir: string;
let cli: (args: string[], stdin?: string, env?: Record<string, string>) => Promise<Run>;

const sessionFile = () => path.join(configDir, 'session.json');
const login = (extra: string[] = []) =>
  cli(['login', '--server', server, '--email', ADMIN.email, '--password-stdin', ...extra], ADMIN.password);

beforeAll(async () => {
  server = t.baseUrl;
  configDir = await mkdtemp(path.join(os.tmpdir(), 'graphdb-admin-conventions-'));
  cli = cliIn(configDir);
  const signIn = await login();
  expect(signIn.code, signIn.stderr).toBe(0);
});

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('output formats', () => {
  it('prints the same data as table, wide, json (and --json), and yaml', async () => {
    const table = await cli(['users', 'list']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^EMAIL\s+NAME\s+ROLE\s+SOURCE\s+STATUS\s+LAST LOGIN$/m);
    const wide = await cli(['users', 'list', '-o', 'wide']);
    expect(wide.stdout).toMatch(
      /^EMAIL\s+NAME\s+ROLE\s+SOURCE\s+STATUS\s+LAST LOGIN\s+CREATED\s+MUST CHANGE PASSWORD$/m,
    );
    const json = JSON.parse((await cli(['users', 'list', '-o', 'json'])).stdout) as { email: string }[];
    expect(json).toContainEqual(expect.objectContaining({ email: ADMIN.email, role: 'admin' }));
    expect(JSON.parse((await cli(['users', 'list', '--json'])).stdout)).toEqual(json);
    // The global option goes before the command too.
    expect(JSON.parse((await cli(['-o', 'json', 'users', 'list'])).stdout)).toEqual(json);
    const yaml = await cli(['users', 'list', '-o', 'yaml']);
    expect(yaml.code, yaml.stderr).toBe(0);
    expect(parseYaml(yaml.stdout)).toEqual(json);
    const bad = await cli(['users', 'list', '-o', 'xml']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("argument 'xml' is invalid");
  });

  it('shows -o and --json in the help of each command (global options), and honours them on every kind of answer', async () => {
    const help = await cli(['settings', 'get', '--help']);
    expect(help.stdout).toMatch(/-o, --output <format>/);
    expect(help.stdout).toContain('--json');
    const settings = JSON.parse((await cli(['settings', 'get', '-o', 'json'])).stdout) as unknown;
    (await schemaCheck('get', '/api/settings/'))(settings);
    const users = JSON.parse((await cli(['users', 'list', '-o', 'json'])).stdout) as unknown[];
    const userItem = await schemaCheck('get', '/api/users/', '200', '/properties/users/items');
    users.forEach(userItem);
    expect(parseYaml((await cli(['whoami', '-o', 'yaml'])).stdout)).toMatchObject({
      user: { email: ADMIN.email },
      server,
      context: 'default',
    });
  });
});

describe('terminal behaviour', () => {
  it('prints the package version', async () => {
    const { version } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const run = await cli(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(version);
  });

  it('answers a usage error in one line and where to read more, not with the whole help', async () => {
    const flag = await cli(['backups', 'list', 'orders', '--bogus']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe("error: unknown option '--bogus'\nSee 'graphdb-admin backups list --help'.\n");
    const command = await cli(['backupz']);
    expect(command.code).toBe(2);
    expect(command.stderr).toBe(
      "error: unknown command 'backupz'\n(Did you mean backups?)\nSee 'graphdb-admin --help'.\n",
    );
    const missing = await cli(['restores', 'get', 'orders']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).not.toContain('Usage:');
  });

  it('treats a number option that is not a number as a usage error', async () => {
    const run = await cli(['clusters', 'restart', 'x', '--wait', '--poll-interval', 'abc']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("option '--poll-interval <ms>' argument 'abc' is invalid");
    expect((await cli(['clusters', 'restart', 'x', '--wait', '--timeout', 'soon'])).code).toBe(2);
    expect((await cli(['audit', 'list', '--limit', '0'])).code).toBe(2);
    expect(
      (await cli(['rbac', 'mappings', 'set', 'g@corp.example', '--role', 'viewer', '--priority', 'high'])).code,
    ).toBe(2);
  });

  it('names the cause when the server cannot be reached', async () => {
    const port = await closedPort();
    const run = await cli(
      ['login', '--server', `http://127.0.0.1:${port}`, '--email', ADMIN.email, '--password-stdin'],
      'x',
      {
        GRAPHDB_ADMIN_CONFIG_DIR: path.join(configDir, 'elsewhere'),
      },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`graphdb-admin: cannot reach http://127.0.0.1:${port}: ECONNREFUSED 127.0.0.1:${port}\n`);
  });

  it('says the session expired when the server no longer accepts the stored one', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'graphdb-admin-expired-'));
    await writeFile(
      path.join(dir, 'session.json'),
      JSON.stringify({
        version: 2,
        currentContext: 'default',
        contexts: { default: { server, cookie: 'token=not-a-session' } },
      }),
      { mode: 0o600 },
    );
    const run = await cliIn(dir)(['users', 'list']);
    expect(run.code).toBe(3);
    expect(run.stderr).toBe('graphdb-admin: session expired: run graphdb-admin login\n');
  });

  it('stops quietly when the reader goes away (| head -1), with no stack trace', async () => {
    const bin = `'${process.execPath}' '${BIN}'`;
    // `| true` closes the pipe before the CLI writes anything: its first write fails with EPIPE every time.
    const command = `${bin} users list | head -1; ${bin} completion fish | head -1; ${bin} users list | true; echo "status \${PIPESTATUS[0]}"`;
    const run = await runCommand('bash', ['-c', command], {
      PATH: process.env.PATH ?? '',
      HOME: configDir,
      GRAPHDB_ADMIN_CONFIG_DIR: configDir,
    });
    expect(run.stdout).toMatch(/^EMAIL\s+NAME\s+ROLE.*\n# fish completion for graphdb-admin/);
    expect(run.stdout).toMatch(/status 0\n$/);
    expect(run.stderr).toBe('');
  });

  it('writes the config file atomically (a new file renamed over the old), mode 0600, no temp files left', async () => {
    const before = await stat(sessionFile());
    expect((await login()).code).toBe(0);
    const after = await stat(sessionFile());
    expect(after.mode & 0o777).toBe(0o600);
    expect(after.ino).not.toBe(before.ino);
    expect((await readdir(configDir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});

describe('contexts', () => {
  const second = useAdminApp({ listen: true, roles: [] });
  let server2: string;

  beforeAll(() => {
    server2 = second.baseUrl;
  });

  it('reads the single-server session file of earlier versions and migrates it to a context', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'graphdb-admin-migrate-'));
    const res = await fetch(`${server}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const cookie = res.headers
      .getSetCookie()
      .find((line) => line.startsWith('token='))!
      .split(';')[0]!;
    await writeFile(path.join(dir, 'session.json'), JSON.stringify({ server, cookie }), { mode: 0o600 });
    const who = await cliIn(dir)(['whoami', '-o', 'json']);
    expect(who.code, who.stderr).toBe(0);
    expect(JSON.parse(who.stdout)).toMatchObject({ user: { email: ADMIN.email }, server, context: 'default' });
    expect(JSON.parse(await readFile(path.join(dir, 'session.json'), 'utf8'))).toEqual({
      version: 2,
      currentContext: 'default',
      contexts: { default: { server, cookie } },
    });
    expect((await stat(path.join(dir, 'session.json'))).mode & 0o777).toBe(0o600);
  });

  it('keeps one session per server and switches between them', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'graphdb-admin-contexts-'));
    const run = cliIn(dir);
    // The first login names its server through the environment; it creates the context `default`.
    const first = await run(['login'], undefined, {
      GRAPHDB_ADMIN_URL: server,
      GRAPHDB_ADMIN_EMAIL: ADMIN.email,
      GRAPHDB_ADMIN_PASSWORD: ADMIN.password,
    });
    expect(first.code, first.stderr).toBe(0);
    expect((await run(['config', 'set-context', 'second', '--server', server2])).code).toBe(0);
    expect((await run(['config', 'set-context', 'bad', '--server', 'not a url'])).code).toBe(2);
    expect(JSON.parse((await run(['config', 'get-contexts', '-o', 'json'])).stdout)).toEqual([
      { name: 'default', server, current: true, signedIn: true },
      { name: 'second', server: server2, current: false, signedIn: false },
    ]);
    const use = await run(['config', 'use-context', 'second']);
    expect(use.code, use.stderr).toBe(0);
    expect(use.stdout).toBe('Switched to context second\n');
    expect((await run(['whoami'])).code).toBe(3);
    // Login takes the server from the context; e-mail from the environment, password from stdin.
    const signIn = await run(['login', '--password-stdin'], ADMIN.password, { GRAPHDB_ADMIN_EMAIL: ADMIN.email });
    expect(signIn.code, signIn.stderr).toBe(0);
    expect(
      (await run(['users', 'add', 'only-second@corp.example', '--role', 'viewer', '--name', 'Only Second'])).code,
    ).toBe(0);
    const table = await run(['config', 'get-contexts']);
    expect(table.stdout).toMatch(/^CURRENT\s+NAME\s+SERVER\s+SIGNED IN$/m);
    expect(table.stdout).toMatch(new RegExp(`^\\*\\s+second\\s+${server2.replace(/\./g, '\\.')}\\s+yes$`, 'm'));
    expect(JSON.parse((await run(['whoami', '--json'])).stdout)).toMatchObject({ server: server2, context: 'second' });
    expect((await run(['users', 'list'])).stdout).toContain('only-second@corp.example');
    // One command against the other context, without switching.
    const other = await run(['--context', 'default', 'users', 'list', '-o', 'json']);
    expect(other.code, other.stderr).toBe(0);
    expect(other.stdout).not.toContain('only-second@corp.example');
    expect((await run(['config', 'current-context'])).stdout).toBe('second\n');
    expect((await run(['config', 'use-context', 'default'])).code).toBe(0);
    expect(JSON.parse((await run(['whoami', '-o', 'json'])).stdout)).toMatchObject({ server, context: 'default' });
    const missing = await run(['config', 'use-context', 'nope']);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toContain('no context named "nope"');
    expect((await run(['--context', 'nope', 'whoami'])).code).toBe(5);
    // Logging out of one context leaves the other signed in.
    expect((await run(['logout'])).code).toBe(0);
    expect((await run(['whoami'])).code).toBe(3);
    expect((await run(['--context', 'second', 'whoami'])).code).toBe(0);
    expect((await run(['config', 'delete-context', 'second'])).code).toBe(0);
    expect(JSON.parse((await run(['config', 'get-contexts', '-o', 'json'])).stdout)).toEqual([
      { name: 'default', server, current: true, signedIn: false },
    ]);
  });

  it('takes the config file from --config or GRAPHDB_ADMIN_CLI_CONFIG', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'graphdb-admin-config-'));
    const file = path.join(dir, 'nested', 'admin.json');
    const run = cliIn(path.join(dir, 'unused'));
    expect(
      (
        await run(
          ['--config', file, 'login', '--server', server, '--email', ADMIN.email, '--password-stdin'],
          ADMIN.password,
        )
      ).code,
    ).toBe(0);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await run(['whoami'], undefined, { GRAPHDB_ADMIN_CLI_CONFIG: file })).code).toBe(0);
    expect((await run(['whoami'])).code).toBe(3);
    expect((await run(['config', 'path'], undefined, { GRAPHDB_ADMIN_CLI_CONFIG: file })).stdout).toBe(`${file}\n`);
  });
});
