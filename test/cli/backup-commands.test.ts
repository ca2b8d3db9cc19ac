// graphdb-admin backups and restores against the admin API over the Kubernetes API double with the KubeBlocks data
// protection resources: every data-protection operation the API serves as a command, `-o json` checked against the
// API's own response schemas, over the Kubernetes API double here and the real kube-apiserver with the real KubeBlocks
// CRDs under `npm run test:kube`, `--wait` following a backup, a restore and a cloned deployment to their end, and what
// reached Kubernetes read back from the store.
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, ADMIN, useAdminApp } from '../support/admin.js';
import {
  BACKUPS,
  DATA_PROTECTION_CRDS,
  POLICIES,
  REPOS,
  RESTORES,
  SCHEDULES,
  backupObject,
  policyObject,
  repoObject,
} from '../support/backup-scenarios.js';
import { setMultiClusterMode } from '../support/cluster-reads.js';
import { CLUSTERS_V1, OPS_V1, replication } from '../support/kube/kubeblocks-fixtures.js';
import type { KubeObject } from '../support/kube/kube-api-double.js';
import { objectStoreOf, type ObjectStore } from '../support/kube/object-store.js';
import { cliIn, schemaCheck } from './harness.js';

const NS = 'graphdb-system';
// The API double, or under `npm run test:kube` the real kube-apiserver with the real KubeBlocks CRDs.
const ADAPTER = ADAPTERS.includes('kube-apiserver') ? 'kube-apiserver' : 'kubernetes';
// Only the admin's session at start, to switch multi-cluster mode on; the CLI signs in itself.
const t = useAdminApp({
  adapter: ADAPTER,
  kubeBlocks: true,
  crds: [CLUSTERS_V1, OPS_V1, ...DATA_PROTECTION_CRDS],
  // BackupRepos are cluster-scoped: the chart grants them with multiClusterRbac only.
  chartValues: { 'adminServer.multiClusterRbac': 'true' },
  listen: true,
  roles: ['admin'],
});
let cli: ReturnType<typeof cliIn>;
let workDir: string;
let controller: NodeJS.Timeout;
let objects: ObjectStore;

const completed = (at: string, totalSize = '12Mi') => ({
  phase: 'Completed',
  backupRepoName: 's3-main',
  totalSize,
  startTimestamp: at,
  completionTimestamp: at,
});
const json = (run: { stdout: string }) => JSON.parse(run.stdout) as Record<string, unknown>;

beforeAll(async () => {
  objects = objectStoreOf(t);
  await objects.put(CLUSTERS_V1, NS, replication('orders', NS));
  await objects.put(REPOS, '', repoObject('s3-main', 'Ready', true));
  await objects.put(POLICIES, NS, policyObject('orders', NS, 's3-main'));
  await objects.put(BACKUPS, NS, backupObject('orders-nightly', 'orders', NS, completed('2026-11-20T03:00:00Z')));
  await objects.put(
    BACKUPS,
    NS,
    backupObject('orders-raw', 'orders', NS, completed('2026-11-21T03:00:00Z', '1572864')),
  );
  await setMultiClusterMode(t.app, t.sessions.admin, true);
  const server = t.baseUrl;
  workDir = await mkdtemp(path.join(os.tmpdir(), 'graphdb-admin-backups-'));
  cli = cliIn(workDir);
  // The simulated KubeBlocks controller: new backups and restores complete, new clusters start running (their status
  // written as the controller writes it; one pass at a time).
  const phase = (object: KubeObject) => (object.status as { phase?: string } | undefined)?.phase;
  let passing = false;
  controller = setInterval(() => {
    if (passing) return;
    passing = true;
    void (async () => {
      for (const backup of await objects.list(BACKUPS))
        if (!phase(backup))
          await objects.put(BACKUPS, NS, { ...backup, status: completed(new Date().toISOString(), '2048') });
      for (const restore of await objects.list(RESTORES))
        if (!phase(restore)) await objects.put(RESTORES, NS, { ...restore, status: { phase: 'Completed' } });
      for (const cluster of await objects.list(CLUSTERS_V1))
        if (phase(cluster) !== 'Running')
          await objects.put(CLUSTERS_V1, NS, { ...cluster, status: { ...(cluster.status ?? {}), phase: 'Running' } });
    })()
      .catch(() => {
        // An object deleted between the list and the write: the next pass sees the new state.
      })
      .finally(() => (passing = false));
  }, 100);
  const login = await cli(['login', '--server', server, '--email', ADMIN.email, '--password-stdin'], ADMIN.password);
  expect(login.code, login.stderr).toBe(0);
});
afterAll(() => {
  clearInterval(controller);
});

describe('graphdb-admin backups', () => {
  it('lists with sizes and ages for people and exact values for scripts, gets one, and filters by status', async () => {
    const list = await cli(['backups', 'list', 'orders', '-n', NS]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^NAME\s+STATUS\s+METHOD\s+SIZE\s+AGE\s+REPOSITORY$/m);
    expect(list.stdout).toMatch(/^orders-nightly\s+completed\s+datafile\s+12Mi\s+\d+[smhdy]\s+s3-main$/m);
    expect(list.stdout).toMatch(/^orders-raw\s+completed\s+datafile\s+1\.5 MiB\s/m);
    const listed = JSON.parse((await cli(['backups', 'list', 'orders', '-n', NS, '-o', 'json'])).stdout) as {
      name: string;
      size: string;
    }[];
    listed.forEach(
      await schemaCheck('get', '/api/clusters/{clusterName}/backups/', '200', '/properties/backups/items'),
    );
    expect(listed.find((b) => b.name === 'orders-raw')!.size).toBe('1572864');
    const wide = await cli(['backups', 'list', 'orders', '-n', NS, '-o', 'wide']);
    expect(wide.stdout).toContain('2026-11-20T03:00:00Z');

    const one = await cli(['backups', 'get', 'orders', 'orders-nightly', '-n', NS, '-o', 'json']);
    expect(one.code, one.stderr).toBe(0);
    (await schemaCheck('get', '/api/clusters/{clusterName}/backups/{backupName}'))(json(one));
    expect((await cli(['backups', 'get', 'orders', 'nope', '-n', NS])).code).toBe(5);
    const failed = await cli(['backups', 'list', 'orders', '-n', NS, '--status', 'failed', '-o', 'json']);
    expect(JSON.parse(failed.stdout)).toEqual([]);
    expect((await cli(['backups', 'list', 'orders', '--status', 'broken'])).code).toBe(2);
  });

  it('creates a backup and --wait follows it until it completed', async () => {
    const created = await cli([
      'backups',
      'create',
      'orders',
      '-n',
      NS,
      '--backupName',
      'before-upgrade',
      '--retentionPeriod',
      '7d',
      '--wait',
      '--poll-interval',
      '50',
      '-o',
      'json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    (await schemaCheck('get', '/api/clusters/{clusterName}/backups/{backupName}'))(json(created));
    expect(json(created)).toMatchObject({ name: 'before-upgrade', status: 'completed' });
    expect(created.stderr).toContain('backup before-upgrade: completed');
    expect((await objects.get(BACKUPS, NS, 'before-upgrade'))!.spec).toMatchObject({ retentionPeriod: '7d' });
  });

  it('restores in place (dry run first) and --wait follows the restore; restores list, get and delete', async () => {
    const dry = await cli(['backups', 'restore', 'orders', 'orders-nightly', '-n', NS, '--dry-run', '-o', 'json']);
    expect(dry.code, dry.stderr).toBe(0);
    (await schemaCheck('post', '/api/clusters/{clusterName}/restores/', '201'))(json(dry));
    expect(await objects.list(RESTORES)).toHaveLength(0);

    const restored = await cli([
      'backups',
      'restore',
      'orders',
      'orders-nightly',
      '-n',
      NS,
      '--yes',
      '--wait',
      '--poll-interval',
      '50',
      '-o',
      'json',
    ]);
    expect(restored.code, restored.stderr).toBe(0);
    const restore = json(restored) as { name: string; status: string };
    expect(restore.status).toBe('completed');
    expect((await objects.get(RESTORES, NS, restore.name))!.spec).toMatchObject({ backup: { name: 'orders-nightly' } });

    const list = await cli(['restores', 'list', 'orders', '-n', NS]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^${restore.name}\\s+orders-nightly\\s+completed\\s+\\d+[smh]$`, 'm'));
    const realForm = await cli(['backups', 'restores', 'orders', 'list', '-n', NS, '-o', 'json']);
    (JSON.parse(realForm.stdout) as unknown[]).forEach(
      await schemaCheck('get', '/api/clusters/{clusterName}/restores/', '200', '/properties/restores/items'),
    );
    const got = await cli(['restores', 'get', 'orders', restore.name, '-n', NS, '-o', 'json']);
    (await schemaCheck('get', '/api/clusters/{clusterName}/restores/{restoreName}'))(json(got));
    expect((await cli(['restores', 'delete', 'orders', restore.name, '-n', NS, '--yes'])).code).toBe(0);
    expect(await objects.get(RESTORES, NS, restore.name)).toBeUndefined();
    expect((await cli(['backups', 'restores', 'orders', 'get', restore.name, '-n', NS])).code).toBe(5);
    // A backup that does not exist: 404, exit code 5, nothing created.
    expect((await cli(['backups', 'restore', 'orders', 'ghost', '-n', NS, '--yes'])).code).toBe(5);
  });

  it('clones a backup into a new deployment and --wait follows it until Running', async () => {
    const cloned = await cli([
      'backups',
      'clone',
      'orders',
      'orders-nightly',
      '-n',
      NS,
      '--newClusterName',
      'orders-copy',
      '--wait',
      '--poll-interval',
      '50',
      '-o',
      'json',
    ]);
    expect(cloned.code, cloned.stderr).toBe(0);
    (await schemaCheck('get', '/api/clusters/{clusterName}'))(json(cloned));
    expect(json(cloned)).toMatchObject({ name: 'orders-copy', phase: 'Running' });
    expect(JSON.stringify((await objects.get(CLUSTERS_V1, NS, 'orders-copy'))!.metadata.annotations)).toContain(
      'orders-nightly',
    );
    const taken = await cli(['backups', 'clone', 'orders', 'orders-nightly', '-n', NS, '--newClusterName', 'orders']);
    expect(taken.code).toBe(1);
    expect((await cli(['backups', 'clone', 'orders', 'orders-nightly'])).code).toBe(2);
  });

  it('manages policies, schedules and repositories', async () => {
    const policy = await cli(['backups', 'policies', 'orders', 'create', 'orders-weekly', '-n', NS, '-o', 'json']);
    expect(policy.code, policy.stderr).toBe(0);
    (await schemaCheck('post', '/api/clusters/{clusterName}/backups/policies/', '201'))(json(policy));
    expect(await objects.get(POLICIES, NS, 'orders-weekly')).toBeDefined();
    const got = await cli(['backups', 'policies', 'orders', 'get', 'orders-weekly', '-n', NS, '-o', 'json']);
    (await schemaCheck('get', '/api/clusters/{clusterName}/backups/policies/{policyName}'))(json(got));
    expect((await cli(['backups', 'policies', 'orders', 'list', '-n', NS])).stdout).toMatch(
      /^orders-weekly\s+s3-main\s/m,
    );
    expect((await cli(['backups', 'policies', 'orders', 'delete', 'orders-weekly', '-n', NS, '--yes'])).code).toBe(0);
    expect(await objects.get(POLICIES, NS, 'orders-weekly')).toBeUndefined();
    expect((await cli(['backups', 'policies', 'orders', 'get'])).code).toBe(2);
    expect((await cli(['backups', 'policies', 'orders', 'rename', 'x'])).code).toBe(2);

    const schedule = await cli([
      'backups',
      'schedules',
      'orders',
      'create',
      'nightly',
      '-n',
      NS,
      '--frequency',
      '0 3 * * *',
      '--backupMethod',
      'datafile',
      '-o',
      'json',
    ]);
    expect(schedule.code, schedule.stderr).toBe(0);
    (await schemaCheck('post', '/api/clusters/{clusterName}/backups/schedules/', '201'))(json(schedule));
    const updated = await cli([
      'backups',
      'schedules',
      'orders',
      'update',
      'nightly',
      '-n',
      NS,
      '--disable',
      '--retentionPeriod',
      '14d',
      '-o',
      'json',
    ]);
    expect(updated.code, updated.stderr).toBe(0);
    (await schemaCheck('patch', '/api/clusters/{clusterName}/backups/schedules/{scheduleName}'))(json(updated));
    expect(json(updated)).toMatchObject({ enabled: false, retentionPeriod: '14d' });
    expect((await cli(['backups', 'schedules', 'orders', 'list', '-n', NS])).stdout).toMatch(
      /^nightly\s+0 3 \* \* \*\s+datafile\s+14d\s+false/m,
    );
    expect((await cli(['backups', 'schedules', 'orders', 'create', 'x', '-n', NS])).code).toBe(2);
    expect((await cli(['backups', 'schedules', 'orders', 'delete', 'nightly', '-n', NS, '-y'])).code).toBe(0);
    expect(await objects.get(SCHEDULES, NS, 'nightly')).toBeUndefined();

    const repoFile = path.join(workDir, 'repo.json');
    await writeFile(
      repoFile,
      JSON.stringify({
        name: 'archive',
        type: 's3',
        storageProviderRef: 's3',
        config: { bucket: 'archive', region: 'eu-west-1' },
        credentials: { accessKeyId: 'AKIA-test', secretAccessKey: 'never-printed' },
      }),
    );
    const repo = await cli(['backups', 'repos', 'create', '-f', repoFile, '-o', 'json']);
    expect(repo.code, repo.stderr).toBe(0);
    (await schemaCheck('post', '/api/backups/repositories/', '201'))(json(repo));
    expect(repo.stdout).not.toContain('never-printed');
    const repoGet = await cli(['backups', 'repositories', 'get', 'archive', '-o', 'json']);
    (await schemaCheck('get', '/api/backups/repositories/{name}'))(json(repoGet));
    const made = await cli(['backups', 'repos', 'update', 'archive', '--default', '-o', 'json']);
    expect(made.code, made.stderr).toBe(0);
    expect(json(made)).toMatchObject({ isDefault: true });
    expect((await cli(['backups', 'repos', 'update', 'archive'])).code).toBe(2);
    expect((await cli(['backups', 'repos', 'list'])).stdout).toMatch(/^archive\s+s3\s+\S+\s+true/m);
    expect((await cli(['backups', 'repos', 'delete', 'archive', '--yes'])).code).toBe(0);
    expect(await objects.get(REPOS, '', 'archive')).toBeUndefined();
  });

  it('deletes a backup and cleans up expired ones (dry run first)', async () => {
    await objects.put(
      BACKUPS,
      NS,
      backupObject('orders-expired', 'orders', NS, {
        ...completed('2025-01-01T03:00:00Z'),
        expiration: '2025-02-01T03:00:00Z',
      }),
    );
    const dry = await cli(['backups', 'cleanup', 'orders', '-n', NS, '--dry-run', '-o', 'json']);
    expect(dry.code, dry.stderr).toBe(0);
    (await schemaCheck('post', '/api/clusters/{clusterName}/cleanup/'))(json(dry));
    expect(json(dry).deletedBackups).toEqual(['orders-expired']);
    expect(await objects.get(BACKUPS, NS, 'orders-expired')).toBeDefined();
    expect((await cli(['backups', 'cleanup', 'orders', '-n', NS, '--yes'])).code).toBe(0);
    expect(await objects.get(BACKUPS, NS, 'orders-expired')).toBeUndefined();

    const deleted = await cli(['backups', 'delete', 'orders', 'orders-raw', '-n', NS, '--yes', '-o', 'json']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(json(deleted)).toEqual({ deleted: 'orders-raw' });
    expect((await cli(['backups', 'delete', 'orders', 'orders-raw', '-n', NS, '--yes'])).code).toBe(5);
  });
});
