// Backups in embedded mode, through the admin API against a real FalkorDB with a data directory: a backup
// is the server's RDB snapshot under the backups directory; graphs are then changed and deleted, the backup restored
// (stop, replace, start), and the original graphs and data are back. A schedule fires on an injected clock. Every
// answer is checked against the FalkorDB Enterprise admin API's response schema.
import { mkdtemp, readdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedBackups, type EmbeddedBackups } from '../../src/platform/backups/embedded-backups.js';
import {
  binaryCommands,
  closeRedisConnection,
  createRedisConnection,
  type RedisClientConnection,
} from '../../src/platform/redis/redis-connection.js';
import { useAdminApp } from '../support/admin.js';
import { realOperations, validatorOf, type JsonSchema } from '../support/conformance/real-operations.js';
import {
  startTestFalkorDB,
  testEmbeddedDeployment,
  type TestEmbeddedDeployment,
  type TestFalkorDB,
} from '../support/falkordb.js';
import { eventually } from '../support/wait.js';

const NS = 'graphdb-system';
const BACKUP_TAGS = new Set(['Backup Repositories', 'Backups', 'Backup Policies', 'Backup Schedules', 'Restores']);
const OPERATIONS = realOperations().filter((operation) => BACKUP_TAGS.has(operation.tag));
const schemaOf = (method: string, suffix: string, status: string): JsonSchema => {
  const operation = OPERATIONS.find((o) => o.method === method && o.path === suffix);
  const schema = operation?.responses[status]?.['application/json'];
  if (!schema) throw new Error(`no ${status} schema for ${method} ${suffix}`);
  return schema;
};
function expectConforms(schema: JsonSchema, body: unknown, what: string): void {
  const validate = validatorOf(schema);
  expect(validate(body), `${what}: ${JSON.stringify(validate.errors)} in ${JSON.stringify(body)}`).toBe(true);
}

describe('backups and restores in embedded mode', () => {
  let falkordb: TestFalkorDB;
  let control: ReturnType<typeof createClient>;
  let deployment: TestEmbeddedDeployment | undefined;
  // Database 1, which a restore must leave as it is (the token store's in main's embedded mode).
  let tokenDatabase: RedisClientConnection;
  let backups: EmbeddedBackups;
  let backupsDir: string;
  // The schedules' clock: moved by the test.
  let clock = Date.parse('2026-03-01T12:00:00Z');

  const query = (graph: string, cypher: string) => control.sendCommand(['GRAPH.QUERY', graph, cypher, '--compact']);
  const count = async (graph: string) => {
    const reply: unknown[][] = await control.sendCommand(['GRAPH.QUERY', graph, 'MATCH (n) RETURN count(n)']);
    return Number((reply[1] as unknown[][])[0]![0]);
  };
  const graphs = async () => (await control.sendCommand<string[]>(['GRAPH.LIST'])).sort();

  beforeAll(async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-embedded-backups-'));
    falkordb = await startTestFalkorDB({ dataDir: path.join(dataDir, 'falkordb') });
    control = createClient({ url: falkordb.url });
    control.on('error', () => undefined);
    await control.connect();
    const logger = pino({ level: 'silent' });
    tokenDatabase = createRedisConnection(`${falkordb.url}/1`, logger);
    await tokenDatabase.connect();
    deployment = testEmbeddedDeployment(falkordb, NS);
    backupsDir = path.join(dataDir, 'backups');
    backups = await createEmbeddedBackups({
      falkordb,
      dir: backupsDir,
      namespace: NS,
      cluster: 'embedded',
      command: (args) => control.sendCommand(args),
      keepDatabases: [{ database: 1, command: binaryCommands(tokenDatabase) }],
      logger,
      now: () => clock,
      tickMs: 0,
    });
  });
  afterAll(async () => {
    await control?.quit().catch(() => undefined);
    await deployment?.close();
    if (tokenDatabase) await closeRedisConnection(tokenDatabase);
    await falkordb?.stop();
  });

  const t = useAdminApp(() => ({ falkordb, clusters: deployment!.clusters, backups }));
  const call = (method: string, url: string, payload?: unknown, cookie = t.sessions.operator) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: { cookie },
      ...(payload === undefined ? {} : { payload: payload as never }),
    });

  it('backs up, then after graphs are changed and deleted restores them, data included', async () => {
    await query('social', "CREATE (:Person {name: 'Ada'})-[:KNOWS]->(:Person {name: 'Grace'})");
    await query('films', "CREATE (:Film {title: 'Metropolis'}), (:Film {title: 'Nosferatu'}), (:Film {title: 'M'})");
    await tokenDatabase.set('token:revoked', 'no');

    const created = await call('POST', `/api/clusters/embedded/backups/?namespace=${NS}`, {
      backupName: 'before-changes',
      backupMethod: 'datafile',
      retentionPeriod: '7d',
    });
    expect(created.statusCode, created.body).toBe(201);
    expectConforms(schemaOf('POST', '/api/clusters/{clusterName}/backups/', '201'), created.json(), 'create backup');
    expect(created.json()).toMatchObject({
      name: 'before-changes',
      cluster: 'embedded',
      namespace: NS,
      source: 'manual',
      repository: 'local',
      backupMethodName: 'datafile',
    });
    await eventually(
      async () =>
        (await call('GET', `/api/clusters/embedded/backups/before-changes?namespace=${NS}`)).json<{ status: string }>()
          .status === 'completed',
      15_000,
    );
    const done = await call('GET', `/api/clusters/embedded/backups/before-changes?namespace=${NS}`);
    expectConforms(schemaOf('GET', '/api/clusters/{clusterName}/backups/{backupName}', '200'), done.json(), 'get');
    expect(done.json()).toMatchObject({ status: 'completed', canRestore: true, retentionPeriod: '7d' });
    expect(Number(done.json<{ size: string }>().size)).toBeGreaterThan(0);
    expect(await readdir(backupsDir)).toEqual(expect.arrayContaining(['before-changes.rdb', 'before-changes.json']));
    for (const file of ['before-changes.rdb', 'before-changes.json'])
      expect((await stat(path.join(backupsDir, file))).mode & 0o777, file).toBe(0o600);
    expect((await stat(backupsDir)).mode & 0o777).toBe(0o700);

    // Database 1 changes after the backup too (a token revoked, another issued): the restore must keep that.
    await tokenDatabase.set('token:revoked', 'yes');
    await tokenDatabase.set('token:issued', 'fresh', { PX: 600_000 });
    // Change one graph, delete another, add a third.
    await query('social', "CREATE (:Person {name: 'Linus'})");
    await control.sendCommand(['GRAPH.DELETE', 'films']);
    await query('scratch', 'CREATE (:Temp)');
    // GRAPH.DELETE frees the graph in the background: wait until it is gone from the list.
    await eventually(async () => JSON.stringify(await graphs()) === JSON.stringify(['scratch', 'social']), 5_000);
    expect(await count('social')).toBe(3);

    const restore = await call('POST', `/api/clusters/embedded/restores/?namespace=${NS}`, {
      backup: { name: 'before-changes' },
    });
    expect(restore.statusCode, restore.body).toBe(201);
    expectConforms(schemaOf('POST', '/api/clusters/{clusterName}/restores/', '201'), restore.json(), 'restore');
    const restoreName = restore.json<{ name: string }>().name;
    await eventually(
      async () =>
        (await call('GET', `/api/clusters/embedded/restores/${restoreName}?namespace=${NS}`)).json<{ status: string }>()
          .status === 'completed',
      20_000,
    );
    const finished = await call('GET', `/api/clusters/embedded/restores/${restoreName}?namespace=${NS}`);
    expectConforms(
      schemaOf('GET', '/api/clusters/{clusterName}/restores/{restoreName}', '200'),
      finished.json(),
      'get restore',
    );
    expect(finished.json(), finished.body).toMatchObject({
      backupRef: { name: 'before-changes', namespace: NS },
      status: 'completed',
    });

    // The graphs as they were at the backup: films back with its 3 nodes, social without Linus, scratch gone.
    await eventually(async () => (await graphs().catch(() => [])).length > 0, 10_000);
    expect(await graphs()).toEqual(['films', 'social']);
    expect(await count('films')).toBe(3);
    expect(await count('social')).toBe(2);
    // Database 1 as it was just before the restore, not as in the backup (expiry included).
    await eventually(() => Promise.resolve(tokenDatabase.isReady), 10_000);
    expect(await tokenDatabase.get('token:revoked')).toBe('yes');
    expect(await tokenDatabase.get('token:issued')).toBe('fresh');
    expect(await tokenDatabase.pTTL('token:issued')).toBeGreaterThan(500_000);

    const list = await call('GET', `/api/clusters/embedded/restores/?namespace=${NS}`);
    expectConforms(schemaOf('GET', '/api/clusters/{clusterName}/restores/', '200'), list.json(), 'list restores');
    expect(list.json<{ total: number }>().total).toBe(1);
    expect((await call('DELETE', `/api/clusters/embedded/restores/${restoreName}?namespace=${NS}`)).statusCode).toBe(
      204,
    );
    expect((await call('GET', `/api/clusters/embedded/restores/${restoreName}?namespace=${NS}`)).statusCode).toBe(404);
  });

  it('fires a scheduled backup when its time comes on the injected clock', async () => {
    const created = await call('POST', `/api/clusters/embedded/backups/schedules/?namespace=${NS}`, {
      scheduleName: 'nightly',
      frequency: '0 3 * * *',
      backupMethod: 'datafile',
      retentionPeriod: '30d',
    });
    expect(created.statusCode, created.body).toBe(201);
    expectConforms(
      schemaOf('POST', '/api/clusters/{clusterName}/backups/schedules/', '201'),
      created.json(),
      'create schedule',
    );
    expect(created.json()).toMatchObject({
      name: 'nightly',
      frequency: '0 3 * * *',
      enabled: true,
      nextRun: '2026-03-02T03:00:00.000Z',
    });
    const scheduled = async () =>
      (await call('GET', `/api/clusters/embedded/backups/?namespace=${NS}`))
        .json<{ backups: { name: string; source: string; status: string }[] }>()
        .backups.filter((backup) => backup.source === 'scheduled');

    // Before 03:00 nothing runs.
    clock = Date.parse('2026-03-02T02:59:00Z');
    await backups.tick();
    expect(await scheduled()).toEqual([]);
    clock = Date.parse('2026-03-02T03:00:20Z');
    await backups.tick();
    const made = await scheduled();
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ status: 'completed' });
    expect(made[0]!.name).toMatch(/^nightly-20260302030020/);
    // The same minute does not fire twice.
    await backups.tick();
    expect(await scheduled()).toHaveLength(1);

    const schedule = await call('GET', `/api/clusters/embedded/backups/schedules/nightly?namespace=${NS}`);
    expectConforms(
      schemaOf('GET', '/api/clusters/{clusterName}/backups/schedules/{scheduleName}', '200'),
      schedule.json(),
      'get schedule',
    );
    expect(schedule.json()).toMatchObject({
      lastRun: '2026-03-02T03:00:20.000Z',
      lastStatus: 'success',
      nextRun: '2026-03-03T03:00:00.000Z',
    });

    // Disabled, it does not fire.
    const patched = await call('PATCH', `/api/clusters/embedded/backups/schedules/nightly?namespace=${NS}`, {
      enabled: false,
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expectConforms(
      schemaOf('PATCH', '/api/clusters/{clusterName}/backups/schedules/{scheduleName}', '200'),
      patched.json(),
      'patch schedule',
    );
    clock = Date.parse('2026-03-03T03:00:30Z');
    await backups.tick();
    expect(await scheduled()).toHaveLength(1);

    // 31 days later the scheduled backup has expired: cleanup lists it (dry run), then deletes it.
    clock = Date.parse('2026-04-03T04:00:00Z');
    // dryRun is a boolean: `true` or `false`, nothing looser (the word `1` would otherwise delete).
    const loose = await call('POST', `/api/clusters/embedded/cleanup/?namespace=${NS}&dryRun=1`);
    expect(loose.statusCode, loose.body).toBe(400);
    expect(await scheduled()).toHaveLength(1);
    const dry = await call('POST', `/api/clusters/embedded/cleanup/?namespace=${NS}&dryRun=true`);
    expect(dry.statusCode, dry.body).toBe(200);
    expectConforms(schemaOf('POST', '/api/clusters/{clusterName}/cleanup/', '200'), dry.json(), 'cleanup');
    expect(dry.json<{ deletedBackups: string[] }>().deletedBackups).toEqual([made[0]!.name, 'before-changes']);
    expect(await scheduled()).toHaveLength(1);
    const cleaned = await call('POST', `/api/clusters/embedded/cleanup/?namespace=${NS}`);
    expect(cleaned.json<{ deletedBackups: string[] }>().deletedBackups).toHaveLength(2);
    expect(await scheduled()).toEqual([]);
    expect(await readdir(backupsDir)).not.toContain('before-changes.rdb');

    // Without a cleanup, the schedules' clock deletes a backup once its retention has run out, as KubeBlocks does.
    const shortLived = await call('POST', `/api/clusters/embedded/backups/?namespace=${NS}`, {
      backupName: 'short-lived',
      backupMethod: 'datafile',
      retentionPeriod: '1h',
    });
    expect(shortLived.statusCode, shortLived.body).toBe(201);
    await backups.idle();
    clock += 59 * 60_000;
    await backups.tick();
    expect((await call('GET', `/api/clusters/embedded/backups/short-lived?namespace=${NS}`)).statusCode).toBe(200);
    clock += 2 * 60_000;
    await backups.tick();
    expect((await call('GET', `/api/clusters/embedded/backups/short-lived?namespace=${NS}`)).statusCode).toBe(404);
    expect(await readdir(backupsDir)).not.toContain('short-lived.rdb');

    expect((await call('DELETE', `/api/clusters/embedded/backups/schedules/nightly?namespace=${NS}`)).statusCode).toBe(
      204,
    );
  });

  it('refuses what is invalid or impossible here, with the reason, and creates nothing', async () => {
    const before = (await readdir(backupsDir)).length;
    const refusals: [method: string, url: string, body: unknown, status: number, message: RegExp][] = [
      [
        'POST',
        '/api/clusters/embedded/backups/schedules/',
        { scheduleName: 'bad', frequency: '61 * * * *', backupMethod: 'datafile' },
        400,
        /frequency is not a cron expression: minute/,
      ],
      [
        'POST',
        '/api/clusters/embedded/backups/schedules/',
        { scheduleName: 'bad', frequency: '0 3 * * *', backupMethod: 'datafile', retentionPeriod: 'forever' },
        400,
        /retentionPeriod must be a duration/,
      ],
      [
        'POST',
        '/api/clusters/embedded/backups/',
        { backupName: 'snap', backupMethod: 'volume-snapshot' },
        422,
        /volume-snapshot is not available/,
      ],
      ['POST', '/api/clusters/embedded/restores/', { backup: { name: 'nothing' } }, 404, /Backup nothing not found/],
      [
        'POST',
        '/api/clusters/embedded/restores/clone',
        { newClusterName: 'copy', backupName: 'nothing' },
        422,
        /embedded mode cannot/,
      ],
      [
        'POST',
        '/api/backups/repositories/',
        { name: 'r1', storageProviderRef: 's3', type: 's3', config: { bucket: 'b', region: 'eu-west-1' } },
        422,
        /not managed in embedded mode/,
      ],
      [
        'POST',
        '/api/clusters/elsewhere/backups/',
        { backupName: 'x', backupMethod: 'datafile' },
        404,
        /Cluster elsewhere not found/,
      ],
    ];
    for (const [method, url, body, status, message] of refusals) {
      const res = await call(method, `${url}?namespace=${NS}`, body);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(status);
      expect(res.json<{ message: string }>().message).toMatch(message);
    }
    expect((await readdir(backupsDir)).length).toBe(before);
    // The repository list is empty here; the built-in policy is listed.
    const repositories = await call('GET', '/api/backups/repositories/');
    expectConforms(schemaOf('GET', '/api/backups/repositories/', '200'), repositories.json(), 'repositories');
    expect(repositories.json()).toEqual({ repositories: [], total: 0 });
    const policies = await call('GET', `/api/clusters/embedded/backups/policies/?namespace=${NS}`);
    expectConforms(
      schemaOf('GET', '/api/clusters/{clusterName}/backups/policies/', '200'),
      policies.json(),
      'policies',
    );
    expect(policies.json()).toMatchObject({ total: 1, policies: [{ name: 'embedded-falkordb-backup-policy' }] });
  });

  it('checks clusters.backups and clusters.restores, and audits every write', async () => {
    const denied = await call(
      'POST',
      `/api/clusters/embedded/backups/?namespace=${NS}`,
      { backupName: 'viewer-try', backupMethod: 'datafile' },
      t.sessions.viewer,
    );
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      message: `Insufficient permissions for clusters.backups:create in namespace ${NS}`,
      code: 'forbidden',
    });
    const restoreDenied = await call(
      'POST',
      `/api/clusters/embedded/restores/?namespace=${NS}`,
      { backup: { name: 'x' } },
      t.sessions.viewer,
    );
    expect(restoreDenied.json<{ message: string }>().message).toBe(
      `Insufficient permissions for clusters.restores:create in namespace ${NS}`,
    );
    expect(
      (await call('GET', `/api/clusters/embedded/backups/?namespace=${NS}`, undefined, t.sessions.viewer)).statusCode,
    ).toBe(200);
    // Audited like every admin write (the embedded FalkorDB keeps the audit log too, so a restore rolls it back:
    // these writes come after the restore of the first test).
    const made = await call('POST', `/api/clusters/embedded/backups/schedules/?namespace=${NS}`, {
      scheduleName: 'audited',
      frequency: '@daily',
      backupMethod: 'datafile',
    });
    expect(made.statusCode, made.body).toBe(201);
    expect((await call('DELETE', `/api/clusters/embedded/backups/schedules/audited?namespace=${NS}`)).statusCode).toBe(
      204,
    );
    await eventually(async () => {
      const audit = await call('GET', '/api/audit/?limit=200', undefined, t.sessions.admin);
      const actions = audit
        .json<{ logs: { action: string; resourceName?: string; result: string }[] }>()
        .logs.map((entry) => `${entry.action} ${entry.resourceName ?? ''} ${entry.result}`);
      return [
        'backup_schedule.create audited success',
        'backup_schedule.delete audited success',
        'backup.create  failure',
      ].every((wanted) => actions.includes(wanted));
    }, 5_000);
  });
});
