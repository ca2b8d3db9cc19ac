// The operations groups beside deployments and backups, run as the compiled graphdb-admin against the admin API
// with KubeBlocks: one operation (get, delete), upgrade with --wait, a deployment's events and metrics, the system
// lists, diagnostics and the license. Over the Kubernetes API double here, and over the real kube-apiserver with the
// real KubeBlocks CRDs under `npm run test:kube`. Exit codes, tables, `-o json` checked against the API's own
// response schemas, and what reached Kubernetes read back from it.
import { spawn } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN } from '../support/admin.js';
import { CLUSTERS_V1, OPS_V1 } from '../support/kube/kubeblocks-fixtures.js';
import {
  KUBEBLOCKS_CLI_ADAPTER,
  KUBEBLOCKS_CLI_NAMESPACE as NS,
  ORDERS_POD as POD,
  startKubeBlocksCli,
  type KubeBlocksCli,
} from '../support/kubeblocks-cli.js';
import type { ObjectStore } from '../support/kube/object-store.js';
import { eventually } from '../support/wait.js';
import { BIN, schemaCheck } from './harness.js';

const DOUBLE = KUBEBLOCKS_CLI_ADAPTER === 'kubernetes';
let fixture: KubeBlocksCli | undefined;
let t: KubeBlocksCli['t'];
let cli: KubeBlocksCli['cli'];
let workDir: string;
let objects: ObjectStore;

beforeAll(async () => {
  fixture = await startKubeBlocksCli({
    workDirPrefix: 'graphdb-admin-operations-',
    podResources: { limits: { cpu: '500m', memory: '1Gi' } },
    // The FalkorDB parameters as KubeBlocks renders them for the data component.
    prepare: ({ putCore }) =>
      putCore('configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'orders-falkordb-falkordb-replication-config',
          namespace: NS,
          labels: { 'app.kubernetes.io/instance': 'orders' },
        },
        data: { 'redis.conf': 'TIMEOUT 1000\nMAX_QUEUED_QUERIES 50\n' },
      }),
  });
  ({ t, cli, workDir, objects } = fixture);
});
afterAll(async () => {
  await fixture?.close();
});

describe('graphdb-admin operations get, delete and upgrade', () => {
  it('shows one operation, and deletes it only with --yes when there is no terminal', async () => {
    const restart = await cli(['operations', 'restart', 'orders', '-n', NS, '--wait', '--poll-interval', '50']);
    expect(restart.code, restart.stderr).toBe(0);
    const name = restart.stdout.trim();

    const json = await cli(['operations', 'get', 'orders', name, '-n', NS, '-o', 'json']);
    expect(json.code, json.stderr).toBe(0);
    (await schemaCheck('get', '/api/clusters/{clusterName}/ops/{opsName}', '200'))(JSON.parse(json.stdout));
    expect(JSON.parse(json.stdout)).toMatchObject({ name, namespace: NS, type: 'Restart', phase: 'Succeed' });
    const table = await cli(['operations', 'get', 'orders', name, '-n', NS]);
    expect(table.stdout).toMatch(/^NAME\s+TYPE\s+PHASE\s+PROGRESS\s+AGE$/m);
    expect(table.stdout).toMatch(new RegExp(`^${name}\\s+Restart\\s+Succeed`, 'm'));
    expect((await cli(['operations', 'get', 'orders', 'orders-nothing-0', '-n', NS])).code).toBe(5);

    // No terminal and no --yes: a usage error, and the OpsRequest is still there.
    const refused = await cli(['operations', 'delete', 'orders', name, '-n', NS]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect(await objects.get(OPS_V1, NS, name)).toBeDefined();
    const deleted = await cli(['operations', 'delete', 'orders', name, '-n', NS, '--yes', '-o', 'json']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(JSON.parse(deleted.stdout)).toEqual({ deleted: name });
    await eventually(async () => (await objects.get(OPS_V1, NS, name)) === undefined, 10_000);
    expect((await cli(['operations', 'get', 'orders', name, '-n', NS])).code).toBe(5);
  });

  it('upgrades to a service version with --wait, following the Upgrade OpsRequest it created', async () => {
    const run = await cli([
      'operations',
      'upgrade',
      'orders',
      '-n',
      NS,
      '--service-version',
      '4.14.0',
      '--wait',
      '--poll-interval',
      '50',
      '-o',
      'json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const accepted = JSON.parse(run.stdout) as { opsName: string };
    (await schemaCheck('post', '/api/clusters/{clusterName}/upgrade', '200'))(accepted);
    expect(accepted).toMatchObject({ clusterName: 'orders', version: '4.14.0' });
    const ops = await objects.get(OPS_V1, NS, accepted.opsName);
    expect(ops!.spec).toMatchObject({
      type: 'Upgrade',
      upgrade: { components: [expect.objectContaining({ componentName: 'falkordb', serviceVersion: '4.14.0' })] },
    });
    expect((ops!.status as { phase: string }).phase).toBe('Succeed');

    const nothing = await cli(['operations', 'upgrade', 'orders', '-n', NS]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('give --service-version or --component-def');
    expect((await cli(['operations', 'upgrade', 'nobody', '-n', NS, '--service-version', '4.14.0'])).code).toBe(5);
  });
});

describe('graphdb-admin deployments events and metrics', () => {
  it('lists what was done to a deployment, finding its namespace when -n is not given', async () => {
    const restart = await cli(['operations', 'restart', 'orders', '-n', NS]);
    expect(restart.code, restart.stderr).toBe(0);
    const json = await cli(['deployments', 'events', 'orders', '-o', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const page = JSON.parse(json.stdout) as { logs: { action: string; resourceName?: string }[]; total: number };
    (await schemaCheck('get', '/api/clusters/{clusterName}/events', '200'))(page);
    expect(page.logs.length).toBeGreaterThan(0);
    expect(page.logs.map((entry) => entry.action)).toEqual(expect.arrayContaining([expect.stringMatching(/restart/i)]));
    const table = await cli(['deployments', 'events', 'orders', '-n', NS, '--limit', '1']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^AGE\s+USER\s+ACTION\s+RESOURCE\s+RESULT$/m);
    expect(table.stdout.trim().split('\n')).toHaveLength(2);
    expect((await cli(['deployments', 'events', 'nobody'])).code).toBe(5);
    expect((await cli(['deployments', 'events', 'orders', '--limit', '0'])).code).toBe(2);
  });

  if (DOUBLE) {
    it("shows a deployment's and a pod's usage, and --watch prints a snapshot per interval", async () => {
      t.kube!.setMetricsApi(true);
      t.kube!.put('metrics.k8s.io/v1beta1/pods', NS, {
        apiVersion: 'metrics.k8s.io/v1beta1',
        kind: 'PodMetrics',
        metadata: {
          name: POD,
          labels: { 'app.kubernetes.io/instance': 'orders', 'app.kubernetes.io/managed-by': 'kubeblocks' },
        },
        timestamp: '2026-11-24T08:00:00Z',
        window: '30s',
        containers: [{ name: 'falkordb', usage: { cpu: '250m', memory: '256Mi' } }],
      });
      const json = await cli(['deployments', 'metrics', 'orders', '-n', NS, '-o', 'json']);
      expect(json.code, json.stderr).toBe(0);
      (await schemaCheck('get', '/api/clusters/{clusterName}/metrics', '200'))(JSON.parse(json.stdout));
      expect(JSON.parse(json.stdout)).toMatchObject({ clusterName: 'orders', usedCpu: '250m', usedMemory: '256Mi' });
      const table = await cli(['deployments', 'metrics', 'orders', '-n', NS]);
      expect(table.stdout).toMatch(/^AGE\s+CPU\s+CPU LIMIT\s+MEMORY\s+MEMORY LIMIT$/m);
      expect(table.stdout).toMatch(/\s250m\s+\S+\s+256Mi\s/);

      const families = await cli(['deployments', 'metrics', 'orders', POD, '-n', NS, '-o', 'json']);
      expect(families.code, families.stderr).toBe(0);
      (await schemaCheck('get', '/api/clusters/{clusterName}/pods/{podName}/metrics', '200'))(
        JSON.parse(families.stdout),
      );
      const podTable = await cli(['deployments', 'metrics', 'orders', POD, '-n', NS]);
      expect(podTable.stdout).toMatch(/^container_cpu_usage_cores\s+\S*container=falkordb\S*\s+0\.25$/m);
      expect((await cli(['deployments', 'metrics', 'orders', 'nobody-0', '-n', NS])).code).toBe(5);

      // --watch -o json: one snapshot a line, every --interval seconds, until interrupted.
      const watch = spawn(
        process.execPath,
        [BIN, 'deployments', 'metrics', 'orders', '-n', NS, '--watch', '--interval', '1', '-o', 'json'],
        { env: { PATH: process.env.PATH ?? '', HOME: workDir, GRAPHDB_ADMIN_CONFIG_DIR: workDir } },
      );
      let out = '';
      watch.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => watch.on('close', resolve));
      try {
        await eventually(() => out.split('\n').filter(Boolean).length >= 2, 20_000);
      } finally {
        watch.kill('SIGINT');
      }
      await exited;
      const check = await schemaCheck('get', '/api/clusters/{clusterName}/metrics', '200');
      for (const line of out.split('\n').filter(Boolean)) check(JSON.parse(line));
    });
  } else {
    it('says metrics-server is missing where the metrics API is not served (exit code 1)', async () => {
      for (const args of [
        ['orders', '-n', NS],
        ['orders', POD, '-n', NS],
      ]) {
        const run = await cli(['deployments', 'metrics', ...args]);
        expect(run.code, run.stderr).toBe(1);
        expect(run.stderr).toContain('install metrics-server');
      }
    });
  }
});

describe('graphdb-admin system, diagnostics and license', () => {
  it('lists namespaces, StorageClasses, FalkorDB versions and cluster resources as the API answers them', async () => {
    for (const [command, route, header] of [
      ['namespaces', '/api/system/namespaces', /^NAME\s+STATUS\s+CREATED$/m],
      [
        'storage-classes',
        '/api/system/storage-classes',
        /^NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE$/m,
      ],
      ['falkordb-versions', '/api/system/falkordb-versions', /^NAME\s+VERSION\s+STABLE\s+RELEASED/m],
      ['cluster-resources', '/api/system/cluster-resources', /^RESOURCE\s+TOTAL\s+DEPLOYMENTS\s+SUPPORT\s+AVAILABLE$/m],
    ] as const) {
      const json = await cli(['system', command, '-o', 'json']);
      expect(json.code, `${command}: ${json.stderr}`).toBe(0);
      (await schemaCheck('get', route, '200'))(JSON.parse(json.stdout));
      const table = await cli(['system', command]);
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout, command).toMatch(header);
    }
    // The deployment's version is in the list.
    const versions = JSON.parse((await cli(['system', 'versions', '-o', 'json'])).stdout) as {
      versions: { releases: { version: string }[] }[];
    };
    expect(versions.versions.flatMap((v) => v.releases.map((r) => r.version)).length).toBeGreaterThan(0);
  });

  it('shows diagnostics, and exports them to a private file (never without -f)', async () => {
    const json = await cli(['diagnostics', 'get', '-o', 'json']);
    expect(json.code, json.stderr).toBe(0);
    (await schemaCheck('get', '/api/admin/diagnostics/', '200'))(JSON.parse(json.stdout));
    const table = await cli(['diagnostics', 'get']);
    expect(table.stdout).toMatch(/^Server \S+ \(Node /m);
    expect(table.stdout).toMatch(/^Health: (healthy|degraded|unhealthy);/m);

    const file = path.join(workDir, 'diagnostics.json');
    const exported = await cli(['diagnostics', 'export', '-f', file]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(new RegExp(`^Wrote ${file} \\(\\d`));
    const document = JSON.parse(await readFile(file, 'utf8')) as { timestamp: string };
    (await schemaCheck('get', '/api/admin/diagnostics/export', '200'))(document);
    expect(Date.parse(document.timestamp)).not.toBeNaN();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const piped = await cli(['diagnostics', 'export', '--output-file', '-']);
    expect(piped.code, piped.stderr).toBe(0);
    (await schemaCheck('get', '/api/admin/diagnostics/export', '200'))(JSON.parse(piped.stdout));
    expect((await cli(['diagnostics', 'export'])).code).toBe(2);
  });

  it('activate: this server needs no license, so it is not supported (exit code 7); a key is required', async () => {
    const run = await cli(['license', 'activate', '--license', 'FDB-LIC-0123456789ABCDEF']);
    expect(run.code).toBe(7);
    expect(run.stderr).toContain('needs no licence');
    const fromStdin = await cli(['license', 'activate', '--license-file', '-'], 'FDB-LIC-0123456789ABCDEF\n');
    expect(fromStdin.code).toBe(7);
    expect((await cli(['license', 'activate'])).code).toBe(2);
    expect((await cli(['license', 'activate', '--license-file', path.join(workDir, 'missing')])).code).toBe(2);
  });
});

describe('graphdb-admin deployments yaml, replace-yaml, update, config and schema', () => {
  it('prints the stored manifest and replaces it from a file; a manifest naming another deployment is refused', async () => {
    const yaml = await cli(['deployments', 'yaml', 'orders', '-n', NS]);
    expect(yaml.code, yaml.stderr).toBe(0);
    expect(yaml.stdout).toMatch(/^kind: Cluster$/m);
    expect(yaml.stdout).toMatch(/^ {2}name: orders$/m);
    const json = await cli(['deployments', 'yaml', 'orders', '-n', NS, '-o', 'json']);
    (await schemaCheck('get', '/api/clusters/{clusterName}/yaml', '200'))(JSON.parse(json.stdout));

    // JSON is YAML: the stored object with one label more.
    const stored = (await objects.get(CLUSTERS_V1, NS, 'orders'))!;
    const manifest = {
      apiVersion: stored.apiVersion,
      kind: stored.kind,
      metadata: { name: 'orders', namespace: NS, labels: { ...stored.metadata.labels, team: 'payments' } },
      spec: stored.spec,
    };
    const file = path.join(workDir, 'orders.json');
    await writeFile(file, JSON.stringify(manifest));
    const replaced = await cli(['deployments', 'replace-yaml', 'orders', '-n', NS, '-f', file]);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stdout).toBe('orders replaced\n');
    expect((await objects.get(CLUSTERS_V1, NS, 'orders'))!.metadata.labels).toMatchObject({ team: 'payments' });

    const other = path.join(workDir, 'other.json');
    await writeFile(other, JSON.stringify({ ...manifest, metadata: { name: 'someone-else', namespace: NS } }));
    const refused = await cli(['deployments', 'replace-yaml', 'orders', '-n', NS, '-f', other]);
    expect(refused.code, refused.stderr).toBe(2);
    expect((await cli(['deployments', 'replace-yaml', 'orders', '-f', path.join(workDir, 'none')])).code).toBe(2);
  });

  it('updates from a partial spec, shows the parameters and the create schema', async () => {
    const file = path.join(workDir, 'update.json');
    await writeFile(file, JSON.stringify({ replicas: 2 }));
    const updated = await cli(['deployments', 'update', 'orders', '-n', NS, '-f', file, '-o', 'json']);
    expect(updated.code, updated.stderr).toBe(0);
    (await schemaCheck('patch', '/api/clusters/{clusterName}', '200'))(JSON.parse(updated.stdout));
    await writeFile(file, JSON.stringify({ replicas: 0 }));
    expect((await cli(['deployments', 'update', 'orders', '-n', NS, '-f', file])).code).toBe(2);

    const config = await cli(['deployments', 'config', 'orders', '-n', NS, '-o', 'json']);
    expect(config.code, config.stderr).toBe(0);
    (await schemaCheck('get', '/api/clusters/{clusterName}/config', '200'))(JSON.parse(config.stdout));
    expect(JSON.parse(config.stdout)).toMatchObject({
      parameters: expect.arrayContaining([{ key: 'TIMEOUT', value: '1000' }]) as unknown,
    });
    expect((await cli(['deployments', 'config', 'orders', '-n', NS])).stdout).toMatch(/^PARAMETER\s+VALUE$/m);

    const schema = await cli(['deployments', 'schema', '-o', 'json']);
    expect(schema.code, schema.stderr).toBe(0);
    (await schemaCheck('get', '/api/clusters/schema', '200'))(JSON.parse(schema.stdout));
    expect(JSON.parse((await cli(['deployments', 'schema'])).stdout)).toMatchObject({ type: 'object' });
  });
});

describe('graphdb-admin users get, audit mine, rbac roles update and config, search, system metrics', () => {
  it('shows one user and your own audit entries', async () => {
    const user = await cli(['users', 'get', ADMIN.email, '-o', 'json']);
    expect(user.code, user.stderr).toBe(0);
    (await schemaCheck('get', '/api/users/{email}', '200'))(JSON.parse(user.stdout));
    expect((await cli(['users', 'get', ADMIN.email])).stdout).toMatch(/^EMAIL\s+NAME\s+ROLE/m);
    expect((await cli(['users', 'get', 'nobody@corp.example'])).code).toBe(5);

    const mine = await cli(['audit', 'mine', '-o', 'json']);
    expect(mine.code, mine.stderr).toBe(0);
    const page = JSON.parse(mine.stdout) as { activities: { action: string }[] };
    (await schemaCheck('get', '/api/users/me/activity', '200'))(page);
    expect(page.activities.map((entry) => entry.action)).toContain('auth.login');
    expect((await cli(['audit', 'mine', '--limit', '101'])).code).toBe(2);
  });

  it("replaces a role's rules, and gets, replaces (only with --yes) and reloads the whole configuration", async () => {
    expect((await cli(['rbac', 'roles', 'create', 'reader', '--rule', 'system:list'])).code).toBe(0);
    const updated = await cli([
      'rbac',
      'roles',
      'update',
      'reader',
      '--rule',
      'clusters:list,get@graphdb-system',
      '--description',
      'reads deployments',
    ]);
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse((await cli(['rbac', 'roles', 'get', 'reader', '-o', 'json'])).stdout)).toMatchObject({
      description: 'reads deployments',
      rules: [{ resource: 'clusters', actions: ['list', 'get'], namespace: 'graphdb-system' }],
    });
    expect((await cli(['rbac', 'roles', 'update', 'reader'])).code).toBe(2);
    expect((await cli(['rbac', 'roles', 'update', 'nobody', '--rule', 'system:list'])).code).toBe(5);

    const config = await cli(['rbac', 'config', 'get', '-o', 'json']);
    expect(config.code, config.stderr).toBe(0);
    const document = JSON.parse(config.stdout) as {
      config: { roles: { name: string; predefined?: boolean }[]; groupMappings: unknown[] };
    };
    (await schemaCheck('get', '/api/rbac/', '200'))(document);
    expect(document.config.roles.map((role) => role.name)).toContain('reader');
    // The same configuration without the custom role: refused without --yes, done with it.
    const file = path.join(workDir, 'rbac.json');
    const custom = document.config.roles.filter((role) => !role.predefined && role.name !== 'reader');
    await writeFile(file, JSON.stringify({ config: { roles: custom, groupMappings: document.config.groupMappings } }));
    expect((await cli(['rbac', 'config', 'replace', '-f', file])).code).toBe(2);
    expect((await cli(['rbac', 'roles', 'get', 'reader'])).code).toBe(0);
    const replaced = await cli(['rbac', 'config', 'replace', '-f', file, '--yes']);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect((await cli(['rbac', 'roles', 'get', 'reader'])).code).toBe(5);
    const reload = await cli(['rbac', 'config', 'reload', '-o', 'json']);
    expect(reload.code, reload.stderr).toBe(0);
    (await schemaCheck('post', '/api/rbac/reload', '200'))(JSON.parse(reload.stdout));
  });

  it('searches by name and shows the host metrics', async () => {
    const found = await cli(['search', 'orders', '--type', 'cluster', '-o', 'json']);
    expect(found.code, found.stderr).toBe(0);
    const answer = JSON.parse(found.stdout) as { items: { type: string; name: string }[] };
    (await schemaCheck('get', '/api/search/', '200'))(answer);
    expect(answer.items).toEqual([expect.objectContaining({ type: 'cluster', name: 'orders', namespace: NS })]);
    expect((await cli(['search', 'orders'])).stdout).toMatch(/^cluster\s+graphdb-system\s+orders/m);
    expect((await cli(['search', '--type', 'bogus'])).code).toBe(2);

    const metrics = await cli(['system', 'metrics', '-o', 'json']);
    expect(metrics.code, metrics.stderr).toBe(0);
    (await schemaCheck('get', '/api/metrics/', '200'))(JSON.parse(metrics.stdout));
    expect((await cli(['system', 'metrics'])).stdout).toMatch(/^CPU\s+CPUS\s+MEMORY/m);
  });
});
