// `graphdb-admin completion bash|zsh|fish`: scripts generated from the command tree, loaded into the real shells
// when they are installed (bash always is), inspected otherwise.
import { execFileSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { completionTree } from '../../src/cli/commands/completion-command.js';
import { buildProgram } from '../../src/cli/main.js';
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
const env = () => ({ PATH: process.env.PATH ?? '', HOME: dir });

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'graphdb-admin-completion-'));
  for (const shell of ['bash', 'zsh', 'fish']) {
    const run = await runCommand(process.execPath, [BIN, 'completion', shell], env());
    expect(run.code, run.stderr).toBe(0);
    scripts[shell] = run.stdout;
    await writeFile(path.join(dir, `completion.${shell}`), run.stdout);
  }
});

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
    expect(scripts.zsh).toMatch(/'rbac roles'\) candidates=\('list' 'get' 'create' 'delete'/);
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

  it('refuses an unknown shell with the usage exit code', async () => {
    const run = await runCommand(process.execPath, [BIN, 'completion', 'tcsh'], env());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('completion takes bash, zsh or fish');
  });
});
