// The operations groups beside deployments and backups, run as the compiled graphdb-admin against the admin API
// with KubeBlocks: one operation (get, delete), upgrade with --wait, a deployment's events and metrics, the system
// lists, diagnostics and the license. Over the Kubernetes API double here, and over the real kube-apiserver with the
// real KubeBlocks CRDs under `npm run test:kube`. Exit codes, tables, `-o json` checked against the API's own
// response schemas, and what reached Kubernetes read back from it.
import { KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, ADMIN, startAdminTestApp, type AdminTestApp } from '../support/admin.js';
import { advanceOpsRequest, CLUSTERS_V1, OPS_V1, replication } from '../support/kube/kubeblocks-fixtures.js';
import type { KubeObject } from '../support/kube/kube-api-double.js';
import { objectStoreOf, type ObjectStore } from '../support/kube/object-store.js';
import { advanceOpsRequest as advanceRealOpsRequest } from '../support/kube/real-kubeblocks.js';
import { eventually } from '../support/wait.js';
import { BIN, cliIn, schemaCheck } from './harness.js';

const NS = 'graphdb-system';
const POD = 'orders-falkordb-0';
// The API double, or under `npm run test:kube` the real kube-apiserver with the real KubeBlocks CRDs.
const ADAPTER = ADAPTERS.includes('kube-apiserver') ? 'kube-apiserver' : 'kubernetes';
const DOUBLE = ADAPTER === 'kubernetes';
let t: AdminTestApp;
let server: string;
let cli: ReturnType<typeof cliIn>;
let workDir: string;
let controller: NodeJS.Timeout;
let objects: ObjectStore;

async function putCore(resource: 'pods', object: KubeObject): Promise<void> {
  if (t.kube) t.kube.put(resource, NS, object);
  else await KubernetesObjectApi.makeApiClient(t.real!.api.admin).create(object as KubernetesObject);
}

beforeAll(async () => {
  t = await startAdminTestApp(ADAPTER, { kubeBlocks: true, crds: [CLUSTERS_V1, OPS_V1] });
  objects = objectStoreOf(t);
  await objects.put(CLUSTERS_V1, NS, replication('orders', NS));
  await putCore('pods', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: POD,
      namespace: NS,
      labels: { 'app.kubernetes.io/instance': 'orders', 'app.kubernetes.io/managed-by': 'kubeblocks' },
    },
    spec: {
      containers: [
        {
          name: 'falkordb',
          image: 'falkordb/falkordb',
          resources: { limits: { cpu: '500m', memory: '1Gi' } },
        },
      ],
    },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  server = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  workDir = await mkdtemp(path.join(os.tmpdir(), 'graphdb-admin-operations-'));
  cli = cliIn(workDir);
  // The simulated KubeBlocks controller: every OpsRequest advances a phase every 50 ms (one pass at a time).
  let passing = false;
  controller = setInterval(() => {
    if (passing) return;
    passing = true;
    void (async () => {
      for (const ops of await objects.list(OPS_V1)) {
        const phase = (ops.status as { phase?: string } | undefined)?.phase;
        if (phase === 'Succeed' || phase === 'Failed' || phase === 'Cancelled') continue;
        const name = ops.metadata.name!;
        if (t.kube) advanceOpsRequest(t.kube, OPS_V1, NS, name);
        else
          await advanceRealOpsRequest(t.real!.api.admin, {
            apiVersion: 'operations.kubeblocks.io/v1alpha1',
            namespace: NS,
            name,
          });
      }
    })()
      .catch(() => {
        // An OpsRequest changed between the read and the write: the next pass sees the new state.
      })
      .finally(() => (passing = false));
  }, 50);
  const login = await cli(['login', '--server', server, '--email', ADMIN.email, '--password-stdin'], ADMIN.password);
  expect(login.code, login.stderr).toBe(0);
});
afterAll(async () => {
  clearInterval(controller);
  await t?.close();
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
    expect(await eventually(async () => (await objects.get(OPS_V1, NS, name)) === undefined, 10_000)).toBe(true);
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
        expect(await eventually(() => out.split('\n').filter(Boolean).length >= 2, 20_000)).toBe(true);
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
