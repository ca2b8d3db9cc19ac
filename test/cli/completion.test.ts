// `graphdb-admin completion bash|zsh|fish`: scripts generated from the command tree, loaded into the real shells
// when they are installed (bash always is), inspected otherwise.
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { completionTree } from '../../src/cli/commands/completion-command.js';
import { buildProgram } from '../../src/cli/main.js';
import { ADMIN, useAdminApp } from '../support/admin.js';
import { BACKUPS, DATA_PROTECTION_CRDS, backupObject } from '../support/backup-scenarios.js';
import { CLUSTERS_V1, OPS_V1, replication } from '../support/kube/kubeblocks-fixtures.js';
import { BIN, runCommand } from './harness.js';

let dir: string;
const scripts: Record<string, string> = {};
const has = (shell: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${shell}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
// `graphdb-admin` on PATH, as an installed package puts it: the scripts run it to ask the server for names.
const env = () => ({ PATH: `${path.join(dir, 'bin')}:${process.env.PATH ?? ''}`, HOME: dir });
// No session at start: the completion scripts sign in through the CLI.
const t = useAdminApp({
  adapter: 'kubernetes',
  kubeBlocks: true,
  crds: [CLUSTERS_V1, OPS_V1, ...DATA_PROTECTION_CRDS],
  listen: true,
  roles: [],
});
let server: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'graphdb-admin-completion-'));
  await mkdir(path.join(dir, 'bin'));
  await writeFile(path.join(dir, 'bin', 'graphdb-admin'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  await chmod(path.join(dir, 'bin', 'graphdb-admin'), 0o755);
  for (const name of ['orders', 'ledger']) t.kube!.put(CLUSTERS_V1, NS, replication(name, NS));
  for (const name of ['orders-nightly', 'orders-weekly'])
    t.kube!.put(BACKUPS, NS, backupObject(name, 'orders', NS, { phase: 'Completed', backupRepoName: 's3-main' }));
  server = t.baseUrl;
  for (const shell of ['bash', 'zsh', 'fish']) {
    const run = await runCommand(process.execPath, [BIN, 'completion', shell], env());
    expect(run.code, run.stderr).toBe(0);
    scripts[shell] = run.stdout;
    await writeFile(path.join(dir, `completion.${shell}`), run.stdout);
  }
});

const NS = 'graphdb-system';

/** What bash completes after `line` (the last word is the one being completed). */
async function bashComplete(line: string): Promise<string[]> {
  const words = line.split(' ');
  const script = `source '${path.join(dir, 'completion.bash')}'
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}
_graphdb_admin; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const run = await runCommand('bash', ['-c', script], env());
  expect(run.stderr).toBe('');
  return run.stdout.split('\n').filter(Boolean);
}

describe('completion', () => {
  it('bash: registers a completion function for graphdb-admin', async () => {
    const run = await runCommand(
      'bash',
      ['-c', `source <('${process.execPath}' '${BIN}' completion bash); complete -p graphdb-admin`],
      env(),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('complete -o default -F _graphdb_admin graphdb-admin');
  });

  it('bash: completes command names, nested commands, aliases, flags and choices', async () => {
    expect(await bashComplete('graphdb-admin ')).toEqual(
      expect.arrayContaining(['login', 'whoami', 'config', 'rbac', 'raw', 'completion', '--output', '--version']),
    );
    expect(await bashComplete('graphdb-admin rb')).toEqual(['rbac']);
    expect(await bashComplete('graphdb-admin rbac ')).toEqual(
      expect.arrayContaining(['roles', 'mappings', 'group-mappings']),
    );
    expect(await bashComplete('graphdb-admin rbac roles c')).toEqual(['create']);
    expect(await bashComplete('graphdb-admin rbac group-mappings s')).toEqual(['set']);
    expect(await bashComplete('graphdb-admin config use')).toEqual(['use-context']);
    expect(await bashComplete('graphdb-admin users list --r')).toEqual(['--role']);
    expect(await bashComplete('graphdb-admin users list -o ')).toEqual(['table', 'json', 'yaml', 'wide']);
    expect(await bashComplete('graphdb-admin --context prod clusters restart mygraph --t')).toEqual([
      '--timeout',
      '--token',
    ]);
    expect(await bashComplete('graphdb-admin completion ')).not.toContain('login');
    // -h and --help once each, though every command and the program both have them.
    const help = await bashComplete('graphdb-admin backups list --');
    expect(help.filter((word) => word === '--help')).toHaveLength(1);
    expect(scripts.fish!.match(/-s h -l help/g)).toHaveLength(1);
  });

  it('every command path of the program is in every script (generated from the tree, not a list kept by hand)', () => {
    const nodes = completionTree(buildProgram());
    const paths = nodes.map((n) => n.path).filter(Boolean);
    expect(paths).toEqual(expect.arrayContaining(['rbac roles create', 'diagnostics support-package', 'audit list']));
    for (const p of paths) {
      expect(scripts.bash, p).toContain(`'${p}'`);
      expect(scripts.zsh, p).toContain(`'${p}'`);
      expect(scripts.fish, p).toContain(`'${p}'`);
    }
    for (const node of nodes)
      for (const option of node.options)
        for (const flag of option.flags) expect(scripts.bash, `${node.path} ${flag}`).toContain(flag);
  });

  it('zsh: a #compdef script that registers itself (checked by zsh when installed)', async () => {
    expect(scripts.zsh!.split('\n')[0]).toBe('#compdef graphdb-admin');
    expect(scripts.zsh).toContain('compdef _graphdb_admin graphdb-admin');
    expect(scripts.zsh).toMatch(/'rbac roles'\) candidates=\('list' 'get' 'create' 'update' 'delete'/);
    if (!has('zsh')) return;
    const syntax = await runCommand('zsh', ['-n', path.join(dir, 'completion.zsh')], env());
    expect(syntax.code, syntax.stderr).toBe(0);
    const loaded = await runCommand(
      'zsh',
      [
        '-c',
        `autoload -U compinit && compinit -u -D; source '${path.join(dir, 'completion.zsh')}'; print -r -- $_comps[graphdb-admin]`,
      ],
      env(),
    );
    expect(loaded.stdout.trim(), loaded.stderr).toBe('_graphdb_admin');
  });

  it('fish: complete lines for commands and flags (completed by fish when installed)', async () => {
    expect(scripts.fish).toContain("complete -c graphdb-admin -n '__graphdb_admin_at \\'rbac roles\\'' -a 'create'");
    expect(scripts.fish).toContain("-l output -x -a 'table json yaml wide'");
    if (!has('fish')) return;
    const complete = async (line: string) =>
      (
        await runCommand('fish', ['-c', `source '${path.join(dir, 'completion.fish')}'; complete -C '${line}'`], env())
      ).stdout
        .split('\n')
        .map((l) => l.split('\t')[0])
        .filter(Boolean);
    expect(await complete('graphdb-admin rb')).toEqual(['rbac']);
    expect(await complete('graphdb-admin rbac roles ')).toEqual(
      expect.arrayContaining(['list', 'get', 'create', 'delete']),
    );
    expect(await complete('graphdb-admin users list --ro')).toEqual(['--role']);
  });

  it('bash: completes resource names from the server: deployments, backups, users, roles, contexts', async () => {
    // Not signed in yet: no names and no noise, whatever the server.
    expect(await bashComplete('graphdb-admin deployments get ')).toEqual([]);
    const login = await runCommand(
      process.execPath,
      [BIN, 'login', '--server', server, '--email', ADMIN.email, '--password-stdin'],
      env(),
      ADMIN.password,
    );
    expect(login.code, login.stderr).toBe(0);
    expect((await bashComplete('graphdb-admin deployments get ')).sort()).toEqual(['ledger', 'orders']);
    expect(await bashComplete('graphdb-admin deployments delete or')).toEqual(['orders']);
    expect(await bashComplete('graphdb-admin clusters restart l')).toEqual(['ledger']);
    // The backup after its deployment, with the line's namespace.
    expect((await bashComplete(`graphdb-admin backups get -n ${NS} orders `)).sort()).toEqual([
      'orders-nightly',
      'orders-weekly',
    ]);
    expect(await bashComplete('graphdb-admin backups restore orders orders-w')).toEqual(['orders-weekly']);
    expect(await bashComplete('graphdb-admin users remove ')).toEqual([ADMIN.email]);
    expect(await bashComplete('graphdb-admin rbac roles get ')).toEqual(
      expect.arrayContaining(['admin', 'operator', 'viewer']),
    );
    expect(await bashComplete('graphdb-admin users list --role v')).toEqual(['viewer']);
    expect(await bashComplete('graphdb-admin users set-role root@corp.example op')).toEqual(['operator']);
    expect(await bashComplete('graphdb-admin config use-context ')).toEqual(['default']);
    expect(await bashComplete('graphdb-admin --context d')).toEqual(['default']);
    // A name the command creates is not completed; flags still are.
    expect(await bashComplete('graphdb-admin users add ')).not.toContain(ADMIN.email);
    expect(await bashComplete('graphdb-admin deployments get --n')).toEqual(['--namespace']);
    // The helper is hidden: not offered, not in the script's command words.
    expect(await bashComplete('graphdb-admin __')).toEqual([]);
    // A context without a session: nothing, and no error text.
    const away = await runCommand(
      process.execPath,
      [BIN, 'config', 'set-context', 'away', '--server', 'http://127.0.0.1:9'],
      env(),
    );
    expect(away.code, away.stderr).toBe(0);
    expect(await bashComplete('graphdb-admin --context away deployments get ')).toEqual([]);
  });

  it('refuses an unknown shell with the usage exit code', async () => {
    const run = await runCommand(process.execPath, [BIN, 'completion', 'tcsh'], env());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('completion takes bash, zsh or fish');
  });
});
