import { spawn } from 'node:child_process';
import { stripVTControlCharacters } from 'node:util';
import { mkdtemp, readdir, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wellFormedToken } from '../../src/lib/service-account-tokens.js';
import { loadKubeConfig } from '../../src/platform/kubernetes/kube-config.js';
import { createKubeBlocksClusters } from '../../src/platform/kubernetes/kubeblocks.js';
import { detectKubeBlocks } from '../../src/platform/kubernetes/kubeblocks-api.js';
import { ADMIN, useAdminApp } from '../support/admin.js';
import type { ClusterPort } from '../../src/platform/clusters/cluster-port.js';
import { startKubeApiDouble, type KubeApiDouble } from '../support/kube/kube-api-double.js';
import { schemaCheck } from './harness.js';
import { advanceOpsRequest, CLUSTERS_V1, OPS_V1, replication, sharded } from '../support/kube/kubeblocks-fixtures.js';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/graphdb-admin.js');
const NS = 'graphdb-system';

let kube: KubeApiDouble;
let clusters: ClusterPort;
let server: string;
let configDir: string;
let controller: NodeJS.Timeout;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real graphdb-admin binary as a child process. */
function cli(args: string[], stdin?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: configDir, GRAPHDB_ADMIN_CONFIG_DIR: configDir },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(stdin ?? '');
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  kube = await startKubeApiDouble({ crds: [CLUSTERS_V1, OPS_V1] });
  kube.put(CLUSTERS_V1, NS, replication('mygraph', NS));
  kube.put(CLUSTERS_V1, NS, sharded('bigraph', NS));
  kube.put(CLUSTERS_V1, NS, replication('doomed', NS));
  kube.put(CLUSTERS_V1, NS, replication('stuck', NS));
  const kubeConfig = loadKubeConfig({ kind: 'kubeconfig', path: kube.kubeconfigPath });
  clusters = createKubeBlocksClusters(kubeConfig, pino({ level: 'silent' }), await detectKubeBlocks(kubeConfig));
  configDir = await mkdtemp(path.join(os.tmpdir(), 'graphdb-admin-cli-'));
  // The simulated KubeBlocks controller: every OpsRequest advances a phase every 50 ms; those of `doomed` fail.
  controller = setInterval(() => {
    for (const ops of kube.list(OPS_V1)) {
      const name = ops.metadata.name!;
      const status = (ops.status ?? {}) as { phase?: string };
      if (status.phase === 'Succeed' || status.phase === 'Failed') continue;
      // Operations of `stuck` never move: --wait runs into its --timeout.
      if ((ops.spec as { clusterName: string }).clusterName === 'stuck') continue;
      if ((ops.spec as { clusterName: string }).clusterName === 'doomed' && status.phase === 'Running') {
        kube.put(OPS_V1, NS, {
          ...ops,
          status: { ...status, phase: 'Failed', progress: '1/2', conditions: [{ message: 'pod falkordb-1 crashed' }] },
        });
      } else advanceOpsRequest(kube, OPS_V1, NS, name);
    }
  }, 50);
});

afterAll(async () => {
  clearInterval(controller);
  await kube.close();
});
// No session at start: the CLI signs in itself, and the first test runs before any sign-in.
const t = useAdminApp(() => ({ clusters, listen: true, roles: [] }));
beforeAll(() => {
  server = t.baseUrl;
});

describe('graphdb-admin', () => {
  it('refuses commands before login with exit code 3', async () => {
    const run = await cli(['whoami']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('Not signed in');
  });

  it('generates a token text offline, for a Secret the chart bootstrap reads: no server, no session', async () => {
    const [one, two] = [
      await cli(['serviceaccounts', 'tokens', 'generate']),
      await cli(['serviceaccounts', 'tokens', 'generate']),
    ];
    for (const run of [one, two]) {
      expect(run.code, run.stderr).toBe(0);
      expect(wellFormedToken(run.stdout.trim())).toBe(true);
    }
    expect(one.stdout).not.toBe(two.stdout);
  });

  it('exits 2 on usage errors and 3 on a wrong password', async () => {
    expect((await cli(['clusters', 'frobnicate'])).code).toBe(2);
    expect((await cli(['login'])).code).toBe(2);
    const wrong = await cli(
      ['login', '--server', server, '--email', ADMIN.email, '--password-stdin'],
      'wrong-password',
    );
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain('Invalid email or password');
  });

  it('signs in with the password from stdin and keeps the session in a 0600 file', async () => {
    const run = await cli(
      ['login', '--server', server, '--email', ADMIN.email, '--password-stdin'],
      `${ADMIN.password}\n`,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Signed in as ${ADMIN.email} (admin)`);
    expect((await stat(path.join(configDir, 'session.json'))).mode & 0o777).toBe(0o600);
    const who = await cli(['whoami', '--json']);
    expect(JSON.parse(who.stdout)).toMatchObject({ user: { email: ADMIN.email, role: 'admin' }, server });
  });

  /**
   * Runs graphdb-admin on a pseudo-terminal (util-linux `script`) of an xterm, typing each answer once its prompt
   * shows.
   */
  function inTerminal(args: string[], answers: [prompt: string, keys: string][]): Promise<Run> {
    const command = [process.execPath, BIN, ...args].map((part) => `'${part}'`).join(' ');
    return new Promise<Run>((resolve) => {
      const child = spawn('script', ['-qec', command, '/dev/null'], {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: configDir,
          GRAPHDB_ADMIN_CONFIG_DIR: configDir,
          TERM: 'xterm-256color',
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let next = 0;
      let from = 0; // where to look for the next prompt: after the last answer was typed
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const typing = setInterval(() => {
        const answer = answers[next];
        if (answer && stdout.indexOf(answer[0], from) >= 0) {
          next++;
          from = stdout.length;
          child.stdin.write(answer[1]);
        }
      }, 20);
      child.on('close', (code) => {
        clearInterval(typing);
        // What a person sees: the prompt library redraws its line with cursor and colour sequences.
        resolve({ code, stdout: stripVTControlCharacters(stdout), stderr: '' });
      });
    });
  }

  it('asks for the password on a terminal without echoing it', async () => {
    const run = await inTerminal(
      ['login', '--server', server, '--email', ADMIN.email],
      [['Password:', `${ADMIN.password}\r`]],
    );
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain('Password:');
    expect(run.stdout).toContain(`Signed in as ${ADMIN.email}`);
    expect(run.stdout).not.toContain(ADMIN.password);
  });

  it('asks for the e-mail with echo, takes Backspace in the password, and stops on Ctrl-C with exit code 130', async () => {
    const run = await inTerminal(
      ['login', '--server', server],
      [
        ['E-mail:', `${ADMIN.email}\r`],
        ['Password:', `${ADMIN.password}xy\u007f\u007f\r`],
      ],
    );
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain(`E-mail: ${ADMIN.email}`);
    expect(run.stdout).toContain(`Signed in as ${ADMIN.email}`);
    expect(run.stdout).not.toContain(ADMIN.password);
    const cancelled = await inTerminal(
      ['login', '--server', server, '--email', ADMIN.email],
      [['Password:', 'abc\u0003']],
    );
    expect(cancelled.code).toBe(130);
    expect(cancelled.stdout).toContain('graphdb-admin: cancelled');
    expect(cancelled.stdout).not.toContain('abc');
  });

  it('reads and writes settings with typed dot paths, and secrets from stdin', async () => {
    const set = await cli([
      'settings',
      'set',
      'features.multi_cluster_mode=true',
      'oauth.allowed_domains=corp.example,corp.example.org',
      'metrics.exporter_port=9191',
      'alpha_oauth.client_secret_secret_ref=alpha-oauth',
    ]);
    expect(set.code, set.stderr).toBe(0);
    const secret = await cli(['settings', 'set', 'alpha_oauth.client_secret', '-'], 'from-stdin-secret\n');
    expect(secret.code, secret.stderr).toBe(0);
    expect(await t.backdoor.secret('alpha-oauth')).toEqual({ client_secret: 'from-stdin-secret' });
    const json = JSON.parse((await cli(['settings', 'get', '--json'])).stdout) as {
      features: { multi_cluster_mode: boolean };
      oauth: { allowed_domains: string[] };
      metrics: { exporter_port: number };
    };
    expect(json.features.multi_cluster_mode).toBe(true);
    expect(json.oauth.allowed_domains).toEqual(['corp.example', 'corp.example.org']);
    expect(json.metrics.exporter_port).toBe(9191);
    const table = await cli(['settings', 'get']);
    expect(table.stdout).toMatch(/^SETTING\s+VALUE$/m);
    expect(table.stdout).toMatch(/^metrics\.exporter_port\s+9191$/m);
    expect(table.stdout).not.toContain('from-stdin-secret');
    const bad = await cli(['settings', 'set', 'features.oauth2_enabled=maybe']);
    expect(bad.code).toBe(2);
    const invalid = await cli(['settings', 'set', 'metrics.exporter_port=99999']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('exporter_port');
  });

  it('lists and shows clusters', async () => {
    const list = await cli(['clusters', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^NAMESPACE\s+NAME\s+TOPOLOGY\s+PHASE\s+COMPONENTS$/m);
    expect(list.stdout).toMatch(/graphdb-system\s+mygraph\s+replication\s+Running/);
    const all = JSON.parse((await cli(['clusters', 'list', '--all-namespaces', '--json'])).stdout) as unknown[];
    expect(all).toHaveLength(4);
    all.forEach(await schemaCheck('get', '/api/clusters/', '200', '/properties/clusters/items'));
    (await schemaCheck('get', '/api/clusters/{clusterName}', '200'))(
      JSON.parse((await cli(['clusters', 'get', 'mygraph', '-o', 'json'])).stdout),
    );
    expect(JSON.parse((await cli(['clusters', 'list', '-n', 'other', '--json'])).stdout)).toEqual([]);
    const get = await cli(['clusters', 'get', 'bigraph']);
    expect(get.stdout).toMatch(/^shard\s+sharding\s+Running\s+2\s+3/m);
    const missing = await cli(['clusters', 'get', 'nope']);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toContain('Cluster nope not found in namespace graphdb-system');
  });

  it('restarts, scales, starts, stops and reconfigures, printing the operation names', async () => {
    const restart = await cli(['clusters', 'restart', 'mygraph']);
    expect(restart.code, restart.stderr).toBe(0);
    expect(restart.stdout.trim()).toMatch(/^mygraph-restart-[a-z0-9]{5}$/);
    const scale = await cli(['clusters', 'scale', 'mygraph', '--replicas', '3', '--json']);
    expect(JSON.parse(scale.stdout)).toEqual({
      operations: [expect.stringMatching(/^mygraph-horizontalscaling-/) as unknown],
    });
    expect((await cli(['clusters', 'scale', 'bigraph', '--shards', '5'])).code).toBe(0);
    expect((await cli(['clusters', 'scale', 'mygraph', '--cpu', '1', '--memory', '2Gi'])).code).toBe(0);
    expect((await cli(['clusters', 'stop', 'mygraph'])).code).toBe(0);
    const start = await cli(['clusters', 'start', 'mygraph']);
    expect(start.code).toBe(1);
    expect(start.stderr).toContain('Cluster mygraph is Running; Start needs it to be Stopped');
    const reconfigure = await cli(['clusters', 'reconfigure', 'mygraph', 'TIMEOUT=1000', 'MAX_QUEUED_QUERIES=50']);
    expect(reconfigure.code, reconfigure.stderr).toBe(0);
    const ops = kube.get(OPS_V1, NS, reconfigure.stdout.trim())!;
    expect(ops.spec).toMatchObject({
      reconfigures: [
        {
          parameters: [
            { key: 'TIMEOUT', value: '1000' },
            { key: 'MAX_QUEUED_QUERIES', value: '50' },
          ],
        },
      ],
    });
    expect((await cli(['clusters', 'scale', 'mygraph'])).code).toBe(2);
    expect((await cli(['clusters', 'scale', 'mygraph', '--replicas', 'many'])).code).toBe(2);
    expect((await cli(['clusters', 'reconfigure', 'mygraph', 'nonsense'])).code).toBe(2);
  });

  it('follows an operation with --wait until it ends, failing when it did not succeed', async () => {
    const ok = await cli(['clusters', 'restart', 'mygraph', '--wait', '--poll-interval', '50']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/\[=*\] 2\/2 Succeed/);
    const failed = await cli(['clusters', 'restart', 'doomed', '--wait', '--poll-interval', '50']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/doomed-restart-[a-z0-9]{5} ended Failed: pod falkordb-1 crashed/);
  });

  it('gives up a --wait after --timeout with exit code 6, progress on stderr and only the result on stdout', async () => {
    const started = Date.now();
    const run = await cli(['clusters', 'restart', 'stuck', '--wait', '--timeout', '1s', '--poll-interval', '100']);
    expect(run.code, run.stderr).toBe(6);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(run.stdout).toMatch(/^stuck-restart-[a-z0-9]{5}\n$/);
    expect(run.stderr).toMatch(/stuck-restart-[a-z0-9]{5} \[/);
    expect(run.stderr).toMatch(/timed out after 1s waiting for stuck-restart-[a-z0-9]{5}/);
    const json = await cli(['clusters', 'restart', 'stuck', '--wait', '--timeout', '300ms', '-o', 'json']);
    expect(json.code).toBe(6);
    expect(JSON.parse(json.stdout)).toEqual({ operations: [expect.stringMatching(/^stuck-restart-/) as unknown] });
    const help = await cli(['clusters', 'scale', '--help']);
    expect(help.stdout).toMatch(/--timeout <duration>.*\(default: 10m\)/s);
  });

  it('manages users, and a viewer gets exit code 4 for what it may not do', async () => {
    const add = await cli(
      ['users', 'add', 'viewer@corp.example', '--role', 'viewer', '--name', 'Vera', '--password-stdin'],
      'viewer-password-1',
    );
    expect(add.code, add.stderr).toBe(0);
    expect((await cli(['users', 'set-role', 'viewer@corp.example', 'operator'])).code).toBe(0);
    expect((await cli(['users', 'set-role', 'viewer@corp.example', 'viewer'])).code).toBe(0);
    const list = await cli(['users', 'list']);
    expect(list.stdout).toMatch(/^viewer@corp\.example\s+Vera\s+viewer\s+local\s+active/m);
    expect((await cli(['users', 'list', '--role', 'viewer', '--json'])).stdout).toContain('viewer@corp.example');
    expect(JSON.parse((await cli(['users', 'list', '--role', 'operator', '--json'])).stdout)).toEqual([]);
    expect((await cli(['users', 'set-role', 'ghost@corp.example', 'viewer'])).code).toBe(5);

    expect((await cli(['logout'])).code).toBe(0);
    // The context stays (its server), its session is gone.
    expect((await cli(['whoami'])).code).toBe(3);
    expect(JSON.parse(await readFile(path.join(configDir, 'session.json'), 'utf8'))).toMatchObject({
      contexts: { default: { server } },
    });
    expect(
      (
        await cli(
          ['login', '--server', server, '--email', 'viewer@corp.example', '--password-stdin'],
          'viewer-password-1',
        )
      ).code,
    ).toBe(0);
    const denied = await cli(['clusters', 'restart', 'mygraph']);
    expect(denied.code).toBe(4);
    expect(denied.stderr).toContain('Insufficient permissions for clusters:update in namespace graphdb-system');
    expect((await cli(['users', 'list'])).code).toBe(4);

    expect(
      (await cli(['login', '--server', server, '--email', ADMIN.email, '--password-stdin'], ADMIN.password)).code,
    ).toBe(0);
    expect((await cli(['users', 'disable', 'viewer@corp.example'])).code).toBe(0);
    expect(JSON.parse((await cli(['users', 'list', '--json'])).stdout)).toContainEqual(
      expect.objectContaining({ email: 'viewer@corp.example', status: 'disabled' }),
    );
    expect((await cli(['users', 'remove', 'viewer@corp.example', '--yes'])).code).toBe(0);
    expect((await cli(['users', 'list'])).stdout).not.toContain('viewer@corp.example');
  });

  it('manages service accounts and their tokens; a token given with --token acts with its role until revoked', async () => {
    expect(
      (await cli(['login', '--server', server, '--email', ADMIN.email, '--password-stdin'], ADMIN.password)).code,
    ).toBe(0);
    const created = await cli(['serviceaccounts', 'create', 'ci-cli', '--role', 'viewer', '--description', 'reads']);
    expect(created.code, created.stderr).toBe(0);
    const minted = await cli([
      '-o',
      'json',
      'serviceaccounts',
      'tokens',
      'create',
      'ci-cli',
      '--name',
      'pipeline',
      '--expires-in-days',
      '7',
    ]);
    expect(minted.code, minted.stderr).toBe(0);
    const { key, token } = JSON.parse(minted.stdout) as { key: string; token: { id: string } };
    expect(wellFormedToken(key)).toBe(true);
    for (const args of [
      ['serviceaccounts', 'list'],
      ['serviceaccounts', 'get', 'ci-cli'],
      ['serviceaccounts', 'tokens', 'list', 'ci-cli'],
    ]) {
      const shown = await cli(args);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain(args[1] === 'tokens' ? token.id : 'ci-cli');
      expect(shown.stdout).not.toContain(key.slice(6, 38));
    }
    const asToken = await cli(['--token', key, 'clusters', 'list']);
    expect(asToken.code, asToken.stderr).toBe(0);
    expect(asToken.stdout).toContain('mygraph');
    expect((await cli(['--token', key, 'users', 'list'])).code).toBe(4);
    expect((await cli(['serviceaccounts', 'tokens', 'revoke', 'ci-cli', token.id, '--yes'])).code).toBe(0);
    expect((await cli(['--token', key, 'clusters', 'list'])).code).toBe(3);
    expect((await cli(['serviceaccounts', 'disable', 'ci-cli'])).code).toBe(0);
    expect((await cli(['serviceaccounts', 'get', 'ci-cli'])).stdout).toMatch(/disabled/);
    expect((await cli(['serviceaccounts', 'delete', 'ci-cli', '--yes'])).code).toBe(0);
    expect((await cli(['serviceaccounts', 'get', 'ci-cli'])).code).toBe(5);
    // Nothing of the token was written to the CLI's directory.
    for (const file of await readdir(configDir))
      expect(await readFile(path.join(configDir, file), 'utf8').catch(() => '')).not.toContain(key);
  });

  it('resets a password to a temporary one that must be changed before anything else', async () => {
    const add = await cli(
      ['users', 'add', 'temp@corp.example', '--role', 'viewer', '--password-stdin'],
      'temp-password-1',
    );
    expect(add.code, add.stderr).toBe(0);
    const reset = await cli(['users', 'reset-password', 'temp@corp.example', '--json', '-y']);
    expect(reset.code, reset.stderr).toBe(0);
    const { tempPassword } = JSON.parse(reset.stdout) as { tempPassword: string };
    expect(tempPassword).toMatch(/^[\w-]{24}$/);
    expect((await cli(['users', 'reset-password', 'ghost@corp.example', '--yes'])).code).toBe(5);

    const signIn = await cli(
      ['login', '--server', server, '--email', 'temp@corp.example', '--password-stdin'],
      tempPassword,
    );
    expect(signIn.code, signIn.stderr).toBe(0);
    expect(signIn.stdout).toContain('graphdb-admin change-password');
    const blocked = await cli(['clusters', 'list']);
    expect(blocked.code).toBe(4);
    expect(blocked.stderr).toContain('Password change required');
    expect((await cli(['change-password', '--password-stdin'], `wrong\ntemp-password-2\n`)).code).toBe(3);
    const changed = await cli(['change-password', '--password-stdin'], `${tempPassword}\ntemp-password-2\n`);
    expect(changed.code, changed.stderr).toBe(0);
    // The renewed session was saved: the next command works without signing in again.
    expect((await cli(['clusters', 'list'])).code).toBe(0);
    expect(JSON.parse((await cli(['whoami', '--json'])).stdout)).toMatchObject({
      user: { email: 'temp@corp.example', mustChangePassword: false },
    });
    expect(
      (await cli(['login', '--server', server, '--email', ADMIN.email, '--password-stdin'], ADMIN.password)).code,
    ).toBe(0);
    expect((await cli(['users', 'remove', 'temp@corp.example', '--yes'])).code).toBe(0);
  });

  it('documents every command with --help', async () => {
    for (const args of [
      [],
      ['login'],
      ['settings', 'set'],
      ['clusters', 'scale'],
      ['clusters', 'reconfigure'],
      ['users', 'add'],
      ['users', 'reset-password'],
      ['change-password'],
    ]) {
      const help = await cli([...args, '--help']);
      expect(help.code, args.join(' ')).toBe(0);
      expect(help.stdout).toContain('Usage: graphdb-admin');
    }
  });
});
