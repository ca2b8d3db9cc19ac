// Backups, policies, schedules, repositories and restores on KubeBlocks, the same on the Kubernetes API
// double and on a real API server with the real dataprotection.kubeblocks.io CRDs: every operation of the real
// product's five data-protection tags is called at its real path and its answer checked against the real response
// schema; what the server asked Kubernetes for is read back from the store; the KubeBlocks controller's status
// transitions (New → Running → Completed/Failed) are played through the store and the API's report is checked.
import type { FastifyInstance } from 'fastify';
import { expect, it } from 'vitest';
import type { KubeObject } from './kube/kube-api-double.js';
import { setMultiClusterMode } from './cluster-reads.js';
import { eventually } from './wait.js';
import {
  realOperations,
  sampleOf,
  validatorOf,
  type JsonSchema,
  type RealOperation,
} from './conformance/real-operations.js';

export const DP = 'dataprotection.kubeblocks.io/v1alpha1';
export const REPOS = `${DP}/backuprepos`;
export const BACKUPS = `${DP}/backups`;
export const POLICIES = `${DP}/backuppolicies`;
export const SCHEDULES = `${DP}/backupschedules`;
export const RESTORES = `${DP}/restores`;
export const DATA_PROTECTION_CRDS = [REPOS, BACKUPS, POLICIES, SCHEDULES, RESTORES];

const TAGS = new Set(['Backup Repositories', 'Backups', 'Backup Policies', 'Backup Schedules', 'Restores']);
export const BACKUP_OPERATIONS = realOperations().filter((operation) => TAGS.has(operation.tag));

export interface BackupContext {
  app: FastifyInstance;
  sessions: Record<'admin' | 'operator' | 'viewer', string>;
  namespace: string;
  /** Adds an object as KubeBlocks (or kubectl) would, status included; namespace '' for a cluster-scoped one. */
  apply: (resource: string, object: KubeObject) => Promise<void>;
  /** Replaces an object's status, as its controller does through the status subresource. */
  setStatus: (resource: string, namespace: string, name: string, status: Record<string, unknown>) => Promise<void>;
  /** An object as stored, or undefined. */
  stored: (resource: string, namespace: string, name: string) => Promise<KubeObject | undefined>;
  /** A Secret of the server's namespace, decoded; undefined when there is none. */
  secret: (name: string) => Promise<Record<string, string> | undefined>;
  /** The server's Prometheus page. */
  metrics: () => Promise<string>;
}

/** The value of one series (`name` or `name{labels}` exactly as printed) on a Prometheus page; undefined when absent. */
export function seriesValue(page: string, series: string): number | undefined {
  const line = page.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const successOf = (operation: RealOperation) => Object.keys(operation.responses).find((code) => code.startsWith('2'))!;
const schemaOf = (operation: RealOperation, status: string) => operation.responses[status]?.['application/json'];
const operationOf = (method: string, path: string) =>
  BACKUP_OPERATIONS.find((operation) => operation.method === method && operation.path === path)!;

export function expectConforms(schema: JsonSchema, body: unknown, what: string): void {
  const validate = validatorOf(schema);
  expect(validate(body), `${what}: ${JSON.stringify(validate.errors)} in ${JSON.stringify(body)}`).toBe(true);
}

const policyName = (cluster: string) => `${cluster}-falkordb-backup-policy`;

export function repoObject(name: string, phase: string, isDefault = false): KubeObject {
  return {
    apiVersion: DP,
    kind: 'BackupRepo',
    metadata: {
      name,
      annotations: {
        'graphdb.falkordb.com/repository-type': 's3',
        ...(isDefault ? { 'dataprotection.kubeblocks.io/is-default-repo': 'true' } : {}),
      },
    },
    spec: {
      storageProviderRef: 's3',
      pvReclaimPolicy: 'Retain',
      config: { bucket: 'graph-backups', region: 'eu-west-1' },
    },
    status: { phase },
  };
}

export function policyObject(cluster: string, namespace: string, repo: string): KubeObject {
  return {
    apiVersion: DP,
    kind: 'BackupPolicy',
    metadata: { name: policyName(cluster), namespace, labels: { 'app.kubernetes.io/instance': cluster } },
    spec: {
      backupRepoName: repo,
      backupMethods: [
        { name: 'datafile', snapshotVolumes: false, actionSetName: 'falkordb-physical-br' },
        { name: 'aof', snapshotVolumes: false, actionSetName: 'falkordb-for-pitr' },
        { name: 'volume-snapshot', snapshotVolumes: true },
      ],
      target: { podSelector: { matchLabels: { 'app.kubernetes.io/instance': cluster } } },
    },
    status: { phase: 'Available' },
  };
}

export function backupObject(
  name: string,
  cluster: string,
  namespace: string,
  status: Record<string, unknown>,
  method = 'datafile',
): KubeObject {
  return {
    apiVersion: DP,
    kind: 'Backup',
    metadata: { name, namespace, labels: { 'app.kubernetes.io/instance': cluster } },
    spec: { backupPolicyName: policyName(cluster), backupMethod: method, deletionPolicy: 'Delete' },
    status,
  };
}

const completed = (at: string) => ({
  phase: 'Completed',
  backupRepoName: 'primary',
  totalSize: '12Mi',
  startTimestamp: at,
  completionTimestamp: at,
});

/**
 * What the suites seed besides the clusters of cluster-reads.ts: a ready default repo, policies, backups; and
 * multi_cluster_mode on, since BackupRepos are cluster-scoped and managed only then.
 */
export async function seedDataProtection(context: BackupContext): Promise<void> {
  const { namespace } = context;
  await setMultiClusterMode(context.app, context.sessions.admin, true);
  await context.apply(REPOS, repoObject('primary', 'Ready', true));
  await context.apply(REPOS, repoObject('checking', 'PreChecking'));
  for (const cluster of ['solo', 'pair']) await context.apply(POLICIES, policyObject(cluster, namespace, 'primary'));
  await context.apply(BACKUPS, backupObject('solo-full', 'solo', namespace, completed('2026-01-10T03:00:00Z')));
  await context.apply(BACKUPS, backupObject('solo-aof', 'solo', namespace, completed('2026-01-11T03:00:00Z'), 'aof'));
  await context.apply(
    BACKUPS,
    backupObject('solo-old', 'solo', namespace, {
      ...completed('2025-01-01T03:00:00Z'),
      expiration: '2025-02-01T03:00:00Z',
    }),
  );
}

type Method = 'GET' | 'POST' | 'DELETE' | 'PATCH';

export function sharedBackupScenarios(context: () => BackupContext): void {
  const call = (method: Method, url: string, payload?: unknown, as: 'operator' | 'viewer' | 'admin' = 'operator') =>
    context().app.inject({
      method,
      url,
      headers: { cookie: context().sessions[as] },
      ...(payload === undefined ? {} : { payload: payload as never }),
    });
  const ns = () => context().namespace;
  let counter = 0;
  const fresh = (prefix: string) => `${prefix}-${++counter}`;

  /** How each operation is called: path values, query and body made for it (its fixtures first). */
  const scenarios: Record<string, () => Promise<{ path: Record<string, string>; body?: Record<string, unknown> }>> = {
    'GET /api/backups/repositories/': () => Promise.resolve({ path: {} }),
    'POST /api/backups/repositories/': () =>
      Promise.resolve({
        path: {},
        body: {
          name: fresh('repo'),
          storageProviderRef: 's3',
          type: 's3',
          config: { bucket: 'b', region: 'eu-west-1' },
          credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'walk-secret-key' },
        },
      }),
    'GET /api/backups/repositories/{name}': () => Promise.resolve({ path: { name: 'primary' } }),
    'PATCH /api/backups/repositories/{name}': async () => {
      const name = fresh('patched');
      await context().apply(REPOS, repoObject(name, 'Ready'));
      return { path: { name }, body: { config: { endpoint: 'https://s3.example' } } };
    },
    'DELETE /api/backups/repositories/{name}': async () => {
      const name = fresh('gone');
      await context().apply(REPOS, repoObject(name, 'Ready'));
      return { path: { name } };
    },
    'POST /api/clusters/{clusterName}/cleanup/': () => Promise.resolve({ path: { clusterName: 'pair' } }),
    'GET /api/clusters/{clusterName}/backups/': () => Promise.resolve({ path: { clusterName: 'solo' } }),
    'POST /api/clusters/{clusterName}/backups/': () =>
      Promise.resolve({
        path: { clusterName: 'solo' },
        body: { backupName: fresh('manual'), backupMethod: 'datafile' },
      }),
    'GET /api/clusters/{clusterName}/backups/{backupName}': () =>
      Promise.resolve({ path: { clusterName: 'solo', backupName: 'solo-full' } }),
    'DELETE /api/clusters/{clusterName}/backups/{backupName}': async () => {
      const name = fresh('doomed');
      await context().apply(BACKUPS, backupObject(name, 'solo', ns(), completed('2026-01-12T03:00:00Z')));
      return { path: { clusterName: 'solo', backupName: name } };
    },
    'GET /api/clusters/{clusterName}/backups/policies/': () => Promise.resolve({ path: { clusterName: 'solo' } }),
    'POST /api/clusters/{clusterName}/backups/policies/': () =>
      Promise.resolve({
        path: { clusterName: 'pair' },
        body: { policyName: fresh('policy'), backupRepoName: 'primary' },
      }),
    'GET /api/clusters/{clusterName}/backups/policies/{policyName}': () =>
      Promise.resolve({ path: { clusterName: 'solo', policyName: policyName('solo') } }),
    'DELETE /api/clusters/{clusterName}/backups/policies/{policyName}': async () => {
      const name = fresh('old-policy');
      await context().apply(POLICIES, {
        ...policyObject('pair', ns(), 'primary'),
        metadata: { name, namespace: ns(), labels: { 'app.kubernetes.io/instance': 'pair' } },
      });
      return { path: { clusterName: 'pair', policyName: name } };
    },
    'GET /api/clusters/{clusterName}/backups/schedules/': () => Promise.resolve({ path: { clusterName: 'solo' } }),
    'POST /api/clusters/{clusterName}/backups/schedules/': () =>
      Promise.resolve({
        path: { clusterName: 'solo' },
        body: {
          scheduleName: fresh('nightly'),
          frequency: '0 3 * * *',
          backupMethod: 'datafile',
          retentionPeriod: '7d',
        },
      }),
    'GET /api/clusters/{clusterName}/backups/schedules/{scheduleName}': async () => ({
      path: { clusterName: 'solo', scheduleName: await madeSchedule() },
    }),
    'PATCH /api/clusters/{clusterName}/backups/schedules/{scheduleName}': async () => ({
      path: { clusterName: 'solo', scheduleName: await madeSchedule() },
      body: { frequency: '30 1 * * 0', enabled: false },
    }),
    'DELETE /api/clusters/{clusterName}/backups/schedules/{scheduleName}': async () => ({
      path: { clusterName: 'solo', scheduleName: await madeSchedule() },
    }),
    'GET /api/clusters/{clusterName}/restores/': () => Promise.resolve({ path: { clusterName: 'solo' } }),
    'POST /api/clusters/{clusterName}/restores/': () =>
      Promise.resolve({ path: { clusterName: 'solo' }, body: { backup: { name: 'solo-full' } } }),
    'GET /api/clusters/{clusterName}/restores/{restoreName}': async () => ({
      path: { clusterName: 'solo', restoreName: await madeRestore() },
    }),
    'DELETE /api/clusters/{clusterName}/restores/{restoreName}': async () => ({
      path: { clusterName: 'solo', restoreName: await madeRestore() },
    }),
    'POST /api/clusters/{clusterName}/restores/clone': () =>
      Promise.resolve({
        path: { clusterName: 'solo' },
        body: { newClusterName: fresh('solo-copy'), backupName: 'solo-full' },
      }),
  };

  async function madeSchedule(): Promise<string> {
    const name = fresh('sched');
    const res = await call('POST', `/api/clusters/solo/backups/schedules/?namespace=${ns()}`, {
      scheduleName: name,
      frequency: '0 3 * * *',
      backupMethod: 'datafile',
    });
    expect(res.statusCode, res.body).toBe(201);
    return name;
  }
  async function madeRestore(): Promise<string> {
    const res = await call('POST', `/api/clusters/solo/restores/?namespace=${ns()}`, { backup: { name: 'solo-full' } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ name: string }>().name;
  }

  it('serves every data-protection operation of the real reference', () => {
    expect(BACKUP_OPERATIONS.map((operation) => `${operation.method} ${operation.path}`).sort()).toEqual(
      Object.keys(scenarios).sort(),
    );
  });

  it.each(BACKUP_OPERATIONS.map((operation) => [`${operation.method} ${operation.path}`, operation] as const))(
    '%s answers the real success status with a body the real schema accepts',
    async (key, operation) => {
      const scenario = await scenarios[key]!();
      let url = operation.path;
      for (const [name, value] of Object.entries(scenario.path)) url = url.replace(`{${name}}`, value);
      const payload =
        operation.method === 'POST' || operation.method === 'PATCH'
          ? sampleOf(operation.requestBody?.content['application/json'] ?? { type: 'object' }, scenario.body ?? {})
          : undefined;
      const res = await call(operation.method as Method, `${url}?namespace=${ns()}`, payload);
      const status = successOf(operation);
      expect(res.statusCode, `${key}: ${res.body}`).toBe(Number(status));
      const schema = schemaOf(operation, status);
      if (schema) expectConforms(schema, res.json(), key);
      else expect(res.body, key).toBe('');
    },
  );

  it('writes a repository the real schema accepts, its credentials to a Secret, and never returns them', async () => {
    const res = await call('POST', '/api/backups/repositories/', {
      name: 'vault',
      storageProviderRef: 'minio',
      type: 'minio',
      config: { bucket: 'graphs', endpoint: 'http://minio.storage:9000', insecure: true },
      credentials: { accessKeyId: 'minio-user', secretAccessKey: 'minio-secret-value' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.body).not.toContain('minio-secret-value');
    expect(res.json()).toMatchObject({
      name: 'vault',
      type: 'minio',
      isDefault: false,
      status: 'pending',
      config: { bucket: 'graphs', endpoint: 'http://minio.storage:9000', insecure: true },
    });
    const stored = await context().stored(REPOS, '', 'vault');
    expect(stored?.spec).toMatchObject({
      storageProviderRef: 'minio',
      config: { bucket: 'graphs', endpoint: 'http://minio.storage:9000', insecure: 'true' },
      credential: { name: 'graphdb-backup-repo-vault', namespace: 'graphdb-system' },
    });
    expect(await context().secret('graphdb-backup-repo-vault')).toEqual({
      accessKeyId: 'minio-user',
      secretAccessKey: 'minio-secret-value',
    });
    const read = await call('GET', '/api/backups/repositories/vault');
    expect(read.body).not.toContain('minio-secret-value');
    // A new default takes the mark from the old one: one default repository.
    const made = await call('PATCH', '/api/backups/repositories/vault', { isDefault: true });
    expect(made.json()).toMatchObject({ isDefault: true });
    const list = await call('GET', '/api/backups/repositories/');
    expect(
      list.json<{ repositories: { name: string; isDefault: boolean }[] }>().repositories.filter((r) => r.isDefault),
    ).toEqual([expect.objectContaining({ name: 'vault' })]);
    await call('PATCH', '/api/backups/repositories/primary', { isDefault: true });
    const taken = await call('POST', '/api/backups/repositories/', {
      name: 'vault',
      storageProviderRef: 's3',
      type: 's3',
      config: { bucket: 'b', region: 'r' },
    });
    expect(taken.statusCode).toBe(409);
  });

  it('refuses to delete a repository that backup policies still use (409 naming them), and deletes it once unused', async () => {
    const { namespace } = context();
    await context().apply(REPOS, repoObject('in-use', 'Ready'));
    const base = policyObject('solo', namespace, 'in-use');
    await context().apply(POLICIES, { ...base, metadata: { ...base.metadata, name: 'solo-extra-policy' } });
    const refused = await call('DELETE', '/api/backups/repositories/in-use');
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json<{ message: string }>().message).toBe(
      `Backup repository in-use is used by backup policies ${namespace}/solo-extra-policy`,
    );
    expect(await context().stored(REPOS, '', 'in-use')).toBeDefined();
    const policyDeleted = await call(
      'DELETE',
      `/api/clusters/solo/backups/policies/solo-extra-policy?namespace=${namespace}`,
    );
    expect(policyDeleted.statusCode, policyDeleted.body).toBe(204);
    const deleted = await call('DELETE', '/api/backups/repositories/in-use');
    expect(deleted.statusCode, deleted.body).toBe(204);
  });

  it('creates a Backup the real schema accepts, and reports the controller moving it New → Running → Completed', async () => {
    const res = await call('POST', `/api/clusters/solo/backups/?namespace=${ns()}`, {
      backupName: 'tracked',
      backupMethod: 'datafile',
      retentionPeriod: '14d',
      deletionPolicy: 'Retain',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ status: 'pending', source: 'manual', repository: 'primary', canRestore: false });
    const stored = await context().stored(BACKUPS, ns(), 'tracked');
    expect(stored?.spec).toMatchObject({
      backupPolicyName: 'solo-falkordb-backup-policy',
      backupMethod: 'datafile',
      retentionPeriod: '14d',
      deletionPolicy: 'Retain',
    });
    expect(stored?.metadata.labels).toMatchObject({ 'app.kubernetes.io/instance': 'solo' });
    const read = async () =>
      (await call('GET', `/api/clusters/solo/backups/tracked?namespace=${ns()}`)).json<Record<string, unknown>>();
    await context().setStatus(BACKUPS, ns(), 'tracked', { phase: 'New' });
    expect(await read()).toMatchObject({ status: 'pending', canRestore: false });
    await context().setStatus(BACKUPS, ns(), 'tracked', {
      phase: 'Running',
      backupRepoName: 'primary',
      startTimestamp: '2026-02-01T03:00:00Z',
    });
    expect(await read()).toMatchObject({ status: 'running', startTime: '2026-02-01T03:00:00Z', canRestore: false });
    // Not yet Completed: a restore from it is refused, creating nothing.
    const early = await call('POST', `/api/clusters/solo/restores/?namespace=${ns()}`, { backup: { name: 'tracked' } });
    expect(early.statusCode).toBe(409);
    expect(early.json<{ message: string }>().message).toBe(
      'Backup tracked is Running; only a Completed backup can be restored',
    );
    await context().setStatus(BACKUPS, ns(), 'tracked', {
      phase: 'Completed',
      backupRepoName: 'primary',
      startTimestamp: '2026-02-01T03:00:00Z',
      completionTimestamp: '2026-02-01T03:02:00Z',
      expiration: '2026-02-15T03:02:00Z',
      totalSize: '3Gi',
    });
    const done = await read();
    expectConforms(
      schemaOf(operationOf('GET', '/api/clusters/{clusterName}/backups/{backupName}'), '200')!,
      done,
      'completed',
    );
    expect(done).toMatchObject({
      status: 'completed',
      canRestore: true,
      size: '3Gi',
      completionTime: '2026-02-01T03:02:00Z',
      expirationDate: '2026-02-15T03:02:00Z',
    });
    const filtered = await call('GET', `/api/clusters/solo/backups/?namespace=${ns()}&status=completed`);
    expect(filtered.json<{ backups: { name: string }[] }>().backups.map((b) => b.name)).toContain('tracked');
    const failedBefore = seriesValue(await context().metrics(), 'graphdb_backups{status="failed"}');
    expect(failedBefore).toBeDefined();
    // Failed: reported with the reason.
    await context().setStatus(BACKUPS, ns(), 'tracked', {
      phase: 'Failed',
      failureReason: 'pod evicted',
      startTimestamp: '2026-02-01T03:00:00Z',
    });
    expect(await read()).toMatchObject({
      status: 'failed',
      canRestore: false,
      restoreNotReadyReason: 'The backup failed: pod evicted',
    });
    // The backup metrics count it (one scrape may still show the look before), and say when it failed (started,
    // as it has no completion time).
    let page = '';
    await eventually(
      async () => {
        page = await context().metrics();
        return seriesValue(page, 'graphdb_backups{status="failed"}') === failedBefore! + 1;
      },
      10_000,
      { detail: () => page },
    );
    expect(seriesValue(page, 'graphdb_backup_last_failure_timestamp_seconds')).toBe(
      Date.parse('2026-02-01T03:00:00Z') / 1000,
    );
    expect(seriesValue(page, 'graphdb_backups{status="completed"}')).toBeGreaterThan(0);
  });

  it('creates a Restore the real schema accepts and reports its phases; a clone carries the restore annotation', async () => {
    const res = await call('POST', `/api/clusters/solo/restores/?namespace=${ns()}`, {
      backup: { name: 'solo-aof' },
      restoreTime: '2026-01-11T02:30:00Z',
    });
    expect(res.statusCode, res.body).toBe(201);
    const name = res.json<{ name: string }>().name;
    const stored = await context().stored(RESTORES, ns(), name);
    expect(stored?.spec).toMatchObject({
      backup: { name: 'solo-aof', namespace: ns() },
      restoreTime: '2026-01-11T02:30:00Z',
    });
    const read = async () =>
      (await call('GET', `/api/clusters/solo/restores/${name}?namespace=${ns()}`)).json<Record<string, unknown>>();
    expect(await read()).toMatchObject({ status: 'pending', backupRef: { name: 'solo-aof', namespace: ns() } });
    await context().setStatus(RESTORES, ns(), name, { phase: 'Running', startTimestamp: '2026-02-02T10:00:00Z' });
    expect(await read()).toMatchObject({ status: 'running', startTime: '2026-02-02T10:00:00Z' });
    await context().setStatus(RESTORES, ns(), name, {
      phase: 'Completed',
      startTimestamp: '2026-02-02T10:00:00Z',
      completionTimestamp: '2026-02-02T10:05:00Z',
    });
    expect(await read()).toMatchObject({ status: 'completed', completionTime: '2026-02-02T10:05:00Z' });

    // A point in time needs a continuous backup.
    const pitr = await call('POST', `/api/clusters/solo/restores/?namespace=${ns()}`, {
      backup: { name: 'solo-full' },
      restoreTime: '2026-01-10T02:00:00Z',
    });
    expect(pitr.statusCode).toBe(422);

    const clone = await call('POST', `/api/clusters/solo/restores/clone?namespace=${ns()}`, {
      newClusterName: 'solo-restored',
      backupName: 'solo-full',
    });
    expect(clone.statusCode, clone.body).toBe(201);
    expect(clone.json()).toMatchObject({ name: 'solo-restored', namespace: ns() });
    const cluster = await context().stored('apps.kubeblocks.io/v1/clusters', ns(), 'solo-restored');
    expect(
      JSON.parse((cluster?.metadata.annotations as Record<string, string>)['kubeblocks.io/restore-from-backup']!),
    ).toEqual({
      falkordb: { name: 'solo-full', namespace: ns(), volumeRestorePolicy: 'Parallel' },
    });
    // Point in time: from the continuous (aof) backup, carried in the annotation; refused for a full one.
    const pointInTime = await call('POST', `/api/clusters/solo/restores/clone?namespace=${ns()}`, {
      newClusterName: 'solo-at-0230',
      backupName: 'solo-aof',
      restoreTime: '2026-01-11T02:30:00Z',
      volumeRestorePolicy: 'Serial',
    });
    expect(pointInTime.statusCode, pointInTime.body).toBe(201);
    const timed = await context().stored('apps.kubeblocks.io/v1/clusters', ns(), 'solo-at-0230');
    expect(
      JSON.parse((timed?.metadata.annotations as Record<string, string>)['kubeblocks.io/restore-from-backup']!),
    ).toEqual({
      falkordb: {
        name: 'solo-aof',
        namespace: ns(),
        volumeRestorePolicy: 'Serial',
        restoreTime: '2026-01-11T02:30:00Z',
      },
    });
    const fullAtTime = await call('POST', `/api/clusters/solo/restores/clone?namespace=${ns()}`, {
      newClusterName: 'solo-never',
      backupName: 'solo-full',
      restoreTime: '2026-01-10T02:00:00Z',
    });
    expect(fullAtTime.statusCode).toBe(422);
    expect(await context().stored('apps.kubeblocks.io/v1/clusters', ns(), 'solo-never')).toBeUndefined();
    const again = await call('POST', `/api/clusters/solo/restores/clone?namespace=${ns()}`, {
      newClusterName: 'solo-restored',
      backupName: 'solo-full',
    });
    expect(again.statusCode).toBe(409);
    expect(again.json<{ message: string }>().message).toBe(`Cluster solo-restored already exists in namespace ${ns()}`);
  });

  it('creates a BackupSchedule the real schema accepts and refuses a bad cron, retention or repository first', async () => {
    const res = await call('POST', `/api/clusters/pair/backups/schedules/?namespace=${ns()}`, {
      scheduleName: 'pair-hourly',
      frequency: '15 * * * *',
      backupMethod: 'aof',
      retentionPeriod: '3d',
      startingDeadlineMinutes: 10,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      frequency: '15 * * * *',
      backupMethod: 'aof',
      enabled: true,
      retentionPeriod: '3d',
    });
    expect(res.json<{ nextRun: string }>().nextRun).toMatch(/:15:00\.000Z$/);
    expect((await context().stored(SCHEDULES, ns(), 'pair-hourly'))?.spec).toMatchObject({
      backupPolicyName: 'pair-falkordb-backup-policy',
      startingDeadlineMinutes: 10,
      schedules: [{ backupMethod: 'aof', cronExpression: '15 * * * *', enabled: true, retentionPeriod: '3d' }],
    });
    await context().setStatus(SCHEDULES, ns(), 'pair-hourly', {
      phase: 'Available',
      schedules: {
        aof: { phase: 'Running', lastScheduleTime: '2026-02-03T01:15:00Z', lastSuccessfulTime: '2026-02-03T01:15:00Z' },
      },
    });
    expect(
      (await call('GET', `/api/clusters/pair/backups/schedules/pair-hourly?namespace=${ns()}`)).json(),
    ).toMatchObject({
      status: 'Available',
      lastRun: '2026-02-03T01:15:00Z',
      lastStatus: 'success',
    });

    const refusals: [url: string, body: unknown, status: number, message: string][] = [
      [
        `/api/clusters/pair/backups/schedules/?namespace=${ns()}`,
        { scheduleName: 'bad-cron', frequency: '0 25 * * *', backupMethod: 'datafile' },
        400,
        'frequency is not a cron expression: hour: "25" is outside 0-23 or inverted',
      ],
      [
        `/api/clusters/pair/backups/schedules/?namespace=${ns()}`,
        { scheduleName: 'bad-keep', frequency: '0 3 * * *', backupMethod: 'datafile', retentionPeriod: '30 days' },
        400,
        'retentionPeriod must be a duration such as 7d, 30d, 1y or 12h (got "30 days")',
      ],
      [
        `/api/clusters/pair/backups/schedules/?namespace=${ns()}`,
        { scheduleName: 'pair-hourly', frequency: '0 3 * * *', backupMethod: 'datafile' },
        409,
        `Backup schedule pair-hourly already exists in namespace ${ns()}`,
      ],
      [
        `/api/clusters/solo/backups/?namespace=${ns()}`,
        { backupName: 'to-nowhere', backupMethod: 'datafile', backupRepoName: 'nowhere' },
        404,
        'Backup repository nowhere not found',
      ],
      [
        `/api/clusters/solo/backups/?namespace=${ns()}`,
        { backupName: 'to-checking', backupMethod: 'datafile', backupRepoName: 'checking' },
        409,
        'Backup repository checking is not ready (PreChecking)',
      ],
      [
        `/api/clusters/shards/backups/?namespace=${ns()}`,
        { backupName: 'no-policy', backupMethod: 'datafile' },
        404,
        `Backup policy shards-shard-backup-policy not found for cluster shards in namespace ${ns()}`,
      ],
      [
        `/api/clusters/solo/backups/?namespace=${ns()}`,
        { backupName: 'solo-full', backupMethod: 'datafile' },
        409,
        `Backup solo-full already exists in namespace ${ns()}`,
      ],
      [
        `/api/clusters/solo/restores/?namespace=${ns()}`,
        { backup: { name: 'nothing' } },
        404,
        `Backup nothing not found in namespace ${ns()}`,
      ],
    ];
    for (const [url, body, status, message] of refusals) {
      const refused = await call('POST', url, body);
      expect(refused.statusCode, `${url}: ${refused.body}`).toBe(status);
      expect(refused.json()).toMatchObject({ statusCode: status, message });
    }
    for (const name of ['bad-cron', 'bad-keep']) expect(await context().stored(SCHEDULES, ns(), name)).toBeUndefined();
    for (const name of ['to-nowhere', 'to-checking', 'no-policy'])
      expect(await context().stored(BACKUPS, ns(), name)).toBeUndefined();
  });

  it('cleans up expired backups (dry run first), leaving the others', async () => {
    const dry = await call('POST', `/api/clusters/solo/cleanup/?namespace=${ns()}&dryRun=true`);
    expect(dry.json()).toMatchObject({ success: true, deletedBackups: ['solo-old'] });
    expect(await context().stored(BACKUPS, ns(), 'solo-old')).toBeDefined();
    const done = await call('POST', `/api/clusters/solo/cleanup/?namespace=${ns()}`);
    expect(done.json()).toMatchObject({ success: true, deletedBackups: ['solo-old'] });
    expect(await context().stored(BACKUPS, ns(), 'solo-old')).toBeUndefined();
    expect(await context().stored(BACKUPS, ns(), 'solo-full')).toBeDefined();
  });

  it('adds the default schedule to a new deployment while backup_auto_schedule is on, and not once it is off', async () => {
    const setAuto = async (on: boolean) => {
      const saved = await call('PATCH', '/api/settings/', { features: { backup_auto_schedule: on } }, 'admin');
      expect(saved.statusCode, saved.body).toBe(200);
    };
    await setAuto(true);
    try {
      const created = await call('POST', '/api/clusters/', { name: 'auto-one', namespace: ns(), spec: {} }, 'admin');
      expect(created.statusCode, created.body).toBe(201);
      const schedule = await context().stored(SCHEDULES, ns(), 'auto-one-falkordb-backup-schedule');
      expect(schedule?.spec).toMatchObject({
        backupPolicyName: 'auto-one-falkordb-backup-policy',
        schedules: [{ backupMethod: 'datafile', cronExpression: '0 3 * * *', retentionPeriod: '30d', enabled: true }],
      });
    } finally {
      await setAuto(false);
    }
    const later = await call('POST', '/api/clusters/', { name: 'auto-two', namespace: ns(), spec: {} }, 'admin');
    expect(later.statusCode, later.body).toBe(201);
    expect(await context().stored(SCHEDULES, ns(), 'auto-two-falkordb-backup-schedule')).toBeUndefined();
    // The existing schedule stays.
    expect(await context().stored(SCHEDULES, ns(), 'auto-one-falkordb-backup-schedule')).toBeDefined();
  });

  it('leaves repositories alone while multi_cluster_mode is off (they are cluster-wide), and backs up all the same', async () => {
    await setMultiClusterMode(context().app, context().sessions.admin, false);
    try {
      const list = await call('GET', '/api/backups/repositories/');
      expect(list.statusCode).toBe(422);
      expect(list.json<{ message: string }>().message).toMatch(/only in multi-cluster mode/);
      // The repository cannot be read: KubeBlocks judges it when it runs the backup.
      const made = await call('POST', `/api/clusters/solo/backups/?namespace=${ns()}`, {
        backupName: 'single-namespace',
        backupMethod: 'datafile',
        backupRepoName: 'checking',
      });
      expect(made.statusCode, made.body).toBe(201);
      expect(made.json()).toMatchObject({ repository: 'checking', status: 'pending' });
    } finally {
      await setMultiClusterMode(context().app, context().sessions.admin, true);
    }
  });

  it('finds backups and repositories through the search', async () => {
    const found = await call('GET', '/api/search/?types=backup,backup-repository&q=solo-full');
    expect(found.statusCode, found.body).toBe(200);
    expect(found.json()).toMatchObject({
      total: 1,
      items: [
        {
          type: 'backup',
          name: 'solo-full',
          namespace: ns(),
          id: `${ns()}/solo-full`,
          meta: { cluster: 'solo', status: 'completed', method: 'datafile' },
        },
      ],
    });
    const repositories = await call('GET', '/api/search/?types=backup-repository&q=primary');
    expect(repositories.json()).toMatchObject({
      total: 1,
      items: [{ type: 'backup-repository', name: 'primary', meta: { isDefault: true, phase: 'Ready' } }],
    });
  });

  it('checks clusters.backups and clusters.restores in the cluster namespace', async () => {
    expect((await call('GET', `/api/clusters/solo/backups/?namespace=${ns()}`, undefined, 'viewer')).statusCode).toBe(
      200,
    );
    for (const [method, url, body, permission] of [
      [
        'POST',
        `/api/clusters/solo/backups/?namespace=${ns()}`,
        { backupName: 'v', backupMethod: 'datafile' },
        'clusters.backups:create',
      ],
      ['DELETE', `/api/clusters/solo/backups/solo-full?namespace=${ns()}`, undefined, 'clusters.backups:delete'],
      [
        'POST',
        `/api/clusters/solo/restores/?namespace=${ns()}`,
        { backup: { name: 'solo-full' } },
        'clusters.restores:create',
      ],
      [
        'POST',
        '/api/backups/repositories/',
        { name: 'x', storageProviderRef: 's3', type: 's3', config: {} },
        'clusters.backups:create',
      ],
    ] as const) {
      const res = await call(method, url, body, 'viewer');
      expect(res.statusCode, url).toBe(403);
      expect(res.json()).toEqual({
        statusCode: 403,
        error: 'Forbidden',
        message: `Insufficient permissions for ${permission} in namespace ${ns()}`,
        code: 'forbidden',
      });
    }
    expect(await context().stored(BACKUPS, ns(), 'solo-full')).toBeDefined();
  });
}
