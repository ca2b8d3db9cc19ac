// The FalkorDB Enterprise admin CLI's command groups: deployments, operations, logs, run as the compiled
// graphdb-admin against the admin API with KubeBlocks (clusters, OpsRequests, pods, pod logs, account Secrets): over
// the Kubernetes API double here, and over the real kube-apiserver with the real KubeBlocks CRDs under
// `npm run test:kube` (the server holding only the chart's RBAC). Exit codes, tables, `-o json` checked against the
// API's own response schemas, and what reached Kubernetes read back from it.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTERS_V1, OPS_V1 } from '../support/kube/kubeblocks-fixtures.js';
import {
  KUBEBLOCKS_CLI_ADAPTER,
  KUBEBLOCKS_CLI_NAMESPACE as NS,
  startKubeBlocksCli,
  type KubeBlocksCli,
} from '../support/kubeblocks-cli.js';
import type { ObjectStore } from '../support/kube/object-store.js';
import { eventually } from '../support/wait.js';
import { schemaCheck } from './harness.js';

const DOUBLE = KUBEBLOCKS_CLI_ADAPTER === 'kubernetes';
let fixture: KubeBlocksCli | undefined;
let t: KubeBlocksCli['t'];
let server: string;
let cli: KubeBlocksCli['cli'];
let workDir: string;
let objects: ObjectStore;

beforeAll(async () => {
  fixture = await startKubeBlocksCli({
    workDirPrefix: 'graphdb-admin-deployments-',
    prepare: async ({ t, putCore }) => {
      t.kube?.setPodLog(NS, 'orders-falkordb-0', ['Ready to accept connections tcp', 'DB saved on disk'], 'falkordb');
      await putCore('secrets', {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'orders-falkordb-account-default', namespace: NS },
        data: {
          username: Buffer.from('default').toString('base64'),
          password: Buffer.from('s3cret-pw').toString('base64'),
        },
      });
    },
  });
  ({ t, server, cli, workDir, objects } = fixture);
});
afterAll(async () => {
  await fixture?.close();
});

describe('graphdb-admin deployments', () => {
  it('lists, gets, creates from JSON and YAML, shows pods and credentials, deletes', async () => {
    const list = await cli(['deployments', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/graphdb-system\s+orders\s+replication\s+Running/);
    (await schemaCheck('get', '/api/clusters/{clusterName}', '200'))(
      JSON.parse((await cli(['deployments', 'get', 'orders', '-n', NS, '-o', 'json'])).stdout),
    );

    const spec = path.join(workDir, 'deployment.json');
    await writeFile(spec, JSON.stringify({ name: 'fresh', namespace: NS, spec: { topology: 'standalone' } }));
    const created = await cli(['deployments', 'create', '--file', spec, '-o', 'json']);
    expect(created.code, created.stderr).toBe(0);
    (await schemaCheck('post', '/api/clusters/', '201'))(JSON.parse(created.stdout));
    expect(await objects.get(CLUSTERS_V1, NS, 'fresh')).toBeDefined();

    const manifest = path.join(workDir, 'cluster.yaml');
    await writeFile(
      manifest,
      [
        'apiVersion: apps.kubeblocks.io/v1',
        'kind: Cluster',
        'metadata:',
        '  name: from-yaml',
        `  namespace: ${NS}`,
        'spec:',
        '  clusterDef: falkordb',
        '  topology: standalone',
        '  terminationPolicy: Delete',
        '  componentSpecs:',
        '    - name: falkordb',
        '      replicas: 1',
      ].join('\n'),
    );
    const applied = await cli(['deployments', 'apply-yaml', '--file', manifest]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`${NS}/from-yaml created`);
    expect(await objects.get(CLUSTERS_V1, NS, 'from-yaml')).toBeDefined();

    const pods = await cli(['deployments', 'pods', 'orders', '-n', NS]);
    expect(pods.stdout).toMatch(/^NAME\s+STATUS\s+READY\s+RESTARTS\s+AGE\s+ROLE$/m);
    expect(pods.stdout).toContain('orders-falkordb-0');
    const credentials = await cli(['deployments', 'credentials', 'orders', '-n', NS, '-o', 'json']);
    (await schemaCheck('get', '/api/clusters/{clusterName}/credentials', '200'))(JSON.parse(credentials.stdout));
    expect(JSON.parse(credentials.stdout)).toMatchObject({ username: 'default', password: 's3cret-pw' });

    expect((await cli(['deployments', 'delete', 'fresh', '-n', NS, '--yes'])).code).toBe(0);
    await eventually(async () => (await objects.get(CLUSTERS_V1, NS, 'fresh')) === undefined, 10_000);
    const missing = await cli(['deployments', 'get', 'fresh', '-n', NS]);
    expect(missing.code).toBe(5);
    expect((await cli(['deployments', 'create'])).code).toBe(2);
    const notJson = await cli(['deployments', 'create', '--file', manifest]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('is not JSON');
  });

  it('scales to a total with --wait, the server turning it into the CRD form', async () => {
    const run = await cli([
      'deployments',
      'scale',
      'orders',
      '-n',
      NS,
      '--replicas',
      '3',
      '--wait',
      '--poll-interval',
      '50',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const name = run.stdout.trim();
    expect((await objects.get(OPS_V1, NS, name))!.spec).toMatchObject({
      type: 'HorizontalScaling',
      horizontalScaling: [expect.objectContaining({ componentName: 'falkordb', scaleOut: { replicaChanges: 1 } })],
    });
    expect((await cli(['deployments', 'scale', 'orders', '--replicas', 'lots'])).code).toBe(2);
  });
});

describe('graphdb-admin operations', () => {
  it('restarts, stops, starts, switches over and expands a volume at the real paths, then lists and cancels', async () => {
    for (const args of [
      ['restart', 'orders'],
      ['switchover', 'orders', '--replicaName', 'orders-falkordb-1'],
      ['volume-expand', 'orders', '--size', '50Gi'],
    ]) {
      const run = await cli(['operations', ...args, '-n', NS, '--wait', '--poll-interval', '50']);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
    }
    expect((await cli(['operations', 'stop', 'orders', '-n', NS])).code).toBe(0);
    // The double's cluster stays Running (no controller moves it): Start is refused before anything is created.
    const start = await cli(['operations', 'start', 'orders', '-n', NS]);
    expect(start.code).toBe(1);
    expect(start.stderr).toContain('Cluster orders is Running; Start needs it to be Stopped');
    const opsRequests = await objects.list(OPS_V1);
    const switchover = opsRequests.find((ops) => (ops.spec as { type: string }).type === 'Switchover')!;
    expect(switchover.spec).toMatchObject({
      switchover: [expect.objectContaining({ instanceName: 'orders-falkordb-1' })],
    });
    const expansion = opsRequests.find((ops) => (ops.spec as { type: string }).type === 'VolumeExpansion')!;
    expect(JSON.stringify(expansion.spec)).toContain('50Gi');

    const listed = await cli(['operations', 'list', 'orders', '-n', NS, '-o', 'json']);
    expect(listed.code, listed.stderr).toBe(0);
    const operations = JSON.parse(listed.stdout) as { name: string; phase: string }[];
    expect(operations.length).toBeGreaterThanOrEqual(3);
    operations.forEach(
      await schemaCheck('get', '/api/clusters/{clusterName}/ops', '200', '/properties/operations/items'),
    );
    const table = await cli(['operations', 'list', 'orders', '-n', NS]);
    expect(table.stdout).toMatch(/^NAME\s+TYPE\s+PHASE\s+PROGRESS$/m);

    // Only a running scaling can be cancelled: a finished one is a 409 (exit code 1) with the server's reason.
    const done = operations.find((op) => op.phase === 'Succeed')!;
    const refused = await cli(['operations', 'cancel', 'orders', done.name, '-n', NS]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.length).toBeGreaterThan(0);
    expect((await cli(['operations', 'switchover', 'orders'])).code).toBe(2);
  });
});

describe('graphdb-admin logs', () => {
  // No kubelet runs beside the real API server: an unscheduled pod's log is empty there, and cannot be followed.
  const lines = DOUBLE ? ['Ready to accept connections tcp', 'DB saved on disk'] : [];

  it("prints a pod's last lines; an unknown pod is exit code 5", async () => {
    const read = await cli(['logs', 'get', 'orders', 'orders-falkordb-0', '-n', NS, '--tailLines', '1']);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toBe(
      lines
        .slice(-1)
        .map((line) => `${line}\n`)
        .join(''),
    );
    const json = await cli(['logs', 'get', 'orders', 'orders-falkordb-0', '-n', NS, '-o', 'json']);
    expect(json.code, json.stderr).toBe(0);
    (await schemaCheck('get', '/api/clusters/{clusterName}/pods/{podName}/logs', '200'))(JSON.parse(json.stdout));
    expect(JSON.parse(json.stdout)).toEqual({ podName: 'orders-falkordb-0', logs: lines });
    expect((await cli(['logs', 'get', 'orders', 'nobody-0', '-n', NS])).code).toBe(5);
  });

  if (DOUBLE)
    it('follows new lines until the stream ends', async () => {
      const following = cli(['logs', 'get', 'orders', 'orders-falkordb-0', '-n', NS, '--follow']);
      // The line is added once the follow has reached the API (a busy machine starts the CLI slowly), then ended.
      await eventually(() => t.kube!.openLogFollows() > 0, 20_000);
      t.kube!.appendPodLog(NS, 'orders-falkordb-0', ['a new line'], 'falkordb');
      t.kube!.endPodLog(NS, 'orders-falkordb-0');
      const followed = await following;
      expect(followed.code, followed.stderr).toBe(0);
      expect(followed.stdout).toBe('Ready to accept connections tcp\nDB saved on disk\na new line\n');
    });
});

describe('graphdb-admin version', () => {
  it("shows the client's version, the server's and that they work together", async () => {
    const health = (await (await fetch(`${server}/health`)).json()) as { version: string };
    const run = await cli(['version', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      server: { url: server, version: health.version },
      compatible: true,
    });
    expect((await cli(['version'])).stdout).toContain(`Server: ${health.version} at ${server}`);
  });
});
