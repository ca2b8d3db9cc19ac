// The FalkorDB Enterprise admin CLI's command groups against the server process in embedded mode (src/main.ts, its own FalkorDB): the
// one deployment `embedded`, its restart and operations, its backups as RDB snapshots, and clear refusals (with
// their exit codes) where one embedded process has no counterpart.
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServerProcess, type ServerProcess } from '../support/server-process.js';
import { cliIn, ROOT, schemaCheck } from './harness.js';

let server: ServerProcess;
let cli: ReturnType<typeof cliIn>;
const ADMIN = { email: 'root@example.com', password: 'embedded-cli-password' };

beforeAll(async () => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-cli-embedded-'));
  server = await runServerProcess({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
  });
  await server.waitForLine((l) => typeof l.msg === 'string' && l.msg.startsWith('Server listening at'), 60_000);
  cli = cliIn(await mkdtemp(path.join(os.tmpdir(), 'graphdb-admin-embedded-')));
  const login = await cli(
    ['login', '--server', server.baseUrl, '--email', ADMIN.email, '--password-stdin'],
    ADMIN.password,
  );
  expect(login.code, login.stderr).toBe(0);
}, 90_000);
afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
});

describe('graphdb-admin against embedded mode', () => {
  it('shows the one deployment, restarts it with --wait and lists the operation', async () => {
    const list = await cli(['deployments', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^\S+\s+embedded\s+standalone\s+Running/m);
    (await schemaCheck('get', '/api/clusters/{clusterName}', '200'))(
      JSON.parse((await cli(['deployments', 'get', 'embedded', '-o', 'json'])).stdout),
    );
    const restart = await cli(['operations', 'restart', 'embedded', '--wait', '--poll-interval', '100']);
    expect(restart.code, restart.stderr).toBe(0);
    const operations = await cli(['operations', 'list', 'embedded', '-o', 'json']);
    expect(JSON.parse(operations.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'Restart', phase: 'Succeed' })]),
    );
    // The FalkorDB is back: the deployment answers again.
    expect((await cli(['deployments', 'pods', 'embedded'])).stdout).toMatch(/embedded-falkordb-0\s+Running\s+true/);
  }, 60_000);

  it('reconfigures a dynamic parameter on the embedded FalkorDB and refuses a static one', async () => {
    const reconfigure = await cli(['clusters', 'reconfigure', 'embedded', 'MAX_QUEUED_QUERIES=77']);
    expect(reconfigure.code, reconfigure.stderr).toBe(0);
    const operations = JSON.parse((await cli(['operations', 'list', 'embedded', '-o', 'json'])).stdout) as {
      name: string;
      phase: string;
    }[];
    // The GRAPH.CONFIG SET went through: a failed command would leave the operation Failed.
    expect(operations.find((operation) => operation.name === reconfigure.stdout.trim())).toMatchObject({
      phase: 'Succeed',
    });
    const refused = await cli(['clusters', 'reconfigure', 'embedded', 'THREAD_COUNT=2']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('THREAD_COUNT can only be set at start-up');
  }, 60_000);

  it('backs up into DATA_DIR/backups and lists it; refuses what one process cannot do with its exit code', async () => {
    const created = await cli(['backups', 'create', 'embedded', '--backupName', 'before-upgrade', '-o', 'json']);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ name: 'before-upgrade' });
    const listed = await cli(['backups', 'list', 'embedded']);
    expect(listed.stdout).toMatch(/^before-upgrade\s+(completed|running|pending)/m);

    // 422 (nothing to scale, no pod log, no account Secret, no second deployment): exit code 7, "not supported by
    // this server", with the server's reason.
    const scale = await cli(['deployments', 'scale', 'embedded', '--replicas', '3']);
    expect(scale.code).toBe(7);
    expect(scale.stderr).toContain('Not supported in embedded mode');
    const logs = await cli(['logs', 'get', 'embedded', 'embedded-falkordb-0']);
    expect(logs.code).toBe(7);
    expect(logs.stderr).toContain('a child process the server runs on its own machine, not a Kubernetes pod');
    const credentials = await cli(['deployments', 'credentials', 'embedded']);
    expect(credentials.code).toBe(7);
    expect(credentials.stderr).toContain("falkordb-admin-password in the server's DATA_DIR");
    const clone = await cli(['backups', 'clone', 'embedded', 'before-upgrade', '--newClusterName', 'copy']);
    expect(clone.code, clone.stderr).toBe(7);
    const policy = await cli(['backups', 'policies', 'embedded', 'create', 'extra']);
    expect(policy.code, policy.stderr).toBe(7);
    const missing = await cli(['deployments', 'get', 'nope']);
    expect(missing.code).toBe(5);
  }, 120_000);

  it('gets a backup, restores it in place with --wait, and lists, gets and deletes the restore', async () => {
    const created = await cli(['backups', 'create', 'embedded', '--backupName', 'restorable', '--wait']);
    expect(created.code, created.stderr).toBe(0);
    const got = await cli(['backups', 'get', 'embedded', 'restorable', '-o', 'json']);
    expect(got.code, got.stderr).toBe(0);
    (await schemaCheck('get', '/api/clusters/{clusterName}/backups/{backupName}'))(JSON.parse(got.stdout));
    expect(JSON.parse(got.stdout)).toMatchObject({ status: 'completed', canRestore: true });
    // No terminal, no --yes: refused before anything is sent.
    expect((await cli(['backups', 'restore', 'embedded', 'restorable'])).code).toBe(2);
    const dry = await cli(['backups', 'restore', 'embedded', 'restorable', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('dry run: nothing was changed');
    const restored = await cli([
      'backups',
      'restore',
      'embedded',
      'restorable',
      '--yes',
      '--wait',
      '--poll-interval',
      '200',
      '-o',
      'json',
    ]);
    expect(restored.code, restored.stderr).toBe(0);
    const restore = JSON.parse(restored.stdout) as { name: string; status: string };
    (await schemaCheck('get', '/api/clusters/{clusterName}/restores/{restoreName}'))(restore);
    expect(restore.status).toBe('completed');
    const listed = await cli(['restores', 'list', 'embedded', '-o', 'json']);
    expect(JSON.parse(listed.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: restore.name })]),
    );
    expect((await cli(['restores', 'get', 'embedded', restore.name])).code).toBe(0);
    expect((await cli(['restores', 'delete', 'embedded', restore.name, '--yes'])).code).toBe(0);
    expect((await cli(['backups', 'delete', 'embedded', 'restorable', '--yes'])).code).toBe(0);
    expect((await cli(['backups', 'get', 'embedded', 'restorable'])).code).toBe(5);
  }, 180_000);

  it('answers the operations groups for the one embedded deployment; refuses what has no pod, version or license', async () => {
    // One operation: get and delete (the restart of the first test, or a new one).
    const restart = await cli(['operations', 'restart', 'embedded', '--wait', '--poll-interval', '100']);
    expect(restart.code, restart.stderr).toBe(0);
    const name = restart.stdout.trim();
    const got = await cli(['operations', 'get', 'embedded', name, '-o', 'json']);
    expect(got.code, got.stderr).toBe(0);
    (await schemaCheck('get', '/api/clusters/{clusterName}/ops/{opsName}'))(JSON.parse(got.stdout));
    expect(JSON.parse(got.stdout)).toMatchObject({ name, type: 'Restart', phase: 'Succeed' });
    expect((await cli(['operations', 'delete', 'embedded', name])).code).toBe(2);
    expect((await cli(['operations', 'delete', 'embedded', name, '--yes'])).code).toBe(0);
    expect((await cli(['operations', 'get', 'embedded', name])).code).toBe(5);

    // Events: the audit log's entries about the deployment.
    const events = await cli(['deployments', 'events', 'embedded', '-o', 'json']);
    expect(events.code, events.stderr).toBe(0);
    (await schemaCheck('get', '/api/clusters/{clusterName}/events'))(JSON.parse(events.stdout));
    expect(JSON.parse(events.stdout)).toMatchObject({ total: expect.any(Number) as unknown });

    // The system lists answer what one process knows: its namespace, its module version, no StorageClasses (with a
    // note on stderr), the host's capacity.
    for (const [command, route] of [
      ['namespaces', '/api/system/namespaces'],
      ['storage-classes', '/api/system/storage-classes'],
      ['falkordb-versions', '/api/system/falkordb-versions'],
      ['cluster-resources', '/api/system/cluster-resources'],
    ] as const) {
      const json = await cli(['system', command, '-o', 'json']);
      expect(json.code, `${command}: ${json.stderr}`).toBe(0);
      (await schemaCheck('get', route))(JSON.parse(json.stdout));
    }
    const classes = await cli(['system', 'storage-classes']);
    expect(classes.stdout).toMatch(/^NAME\s+PROVISIONER/m);
    expect(classes.stderr).toMatch(/^note: .*Embedded/im);
    const versions = JSON.parse((await cli(['system', 'falkordb-versions', '-o', 'json'])).stdout) as {
      versions: { componentDefinitions: { name: string }[] }[];
    };
    expect(versions.versions[0]!.componentDefinitions[0]!.name).toBe('falkordb-embedded');

    // Diagnostics work as anywhere.
    const diagnostics = await cli(['diagnostics', 'get', '-o', 'json']);
    expect(diagnostics.code, diagnostics.stderr).toBe(0);
    (await schemaCheck('get', '/api/admin/diagnostics/'))(JSON.parse(diagnostics.stdout));
    const exported = await cli(['diagnostics', 'export', '-f', '-']);
    expect(exported.code, exported.stderr).toBe(0);
    (await schemaCheck('get', '/api/admin/diagnostics/export'))(JSON.parse(exported.stdout));

    // No pod to measure, no version to move to, no license to activate: exit code 7 with the server's reason.
    const metrics = await cli(['deployments', 'metrics', 'embedded']);
    expect(metrics.code).toBe(7);
    expect(metrics.stderr).toContain('not a Kubernetes pod');
    expect((await cli(['deployments', 'metrics', 'embedded', 'embedded-falkordb-0'])).code).toBe(7);
    // No version applies, listed or not: the reason comes before any check of the version asked for.
    for (const version of ['4.14.1', 'no-such-version']) {
      const upgrade = await cli(['operations', 'upgrade', 'embedded', '--service-version', version, '--wait']);
      expect(upgrade.code, upgrade.stderr).toBe(7);
      expect(upgrade.stderr).toContain("runs the server's own module version (Upgrade does not apply)");
    }
    expect((await cli(['operations', 'upgrade', 'embedded', '--component-def', 'falkordb-2'])).code).toBe(7);
    expect((await cli(['license', 'activate', '--license', 'FDB-LIC-0123456789ABCDEF'])).code).toBe(7);

    // The rest of the deployment's views: its parameters (CONFIG GET), the create schema, search and host metrics;
    // no manifest (exit code 7).
    const config = await cli(['deployments', 'config', 'embedded', '-o', 'json']);
    expect(config.code, config.stderr).toBe(0);
    (await schemaCheck('get', '/api/clusters/{clusterName}/config'))(JSON.parse(config.stdout));
    expect(JSON.parse(config.stdout)).toMatchObject({ configMapName: '' });
    expect((await cli(['deployments', 'schema', '-o', 'json'])).code).toBe(0);
    expect((await cli(['deployments', 'yaml', 'embedded'])).code).toBe(7);
    const found = await cli(['search', 'embedded', '--type', 'cluster', '-o', 'json']);
    expect(found.code, found.stderr).toBe(0);
    (await schemaCheck('get', '/api/search/'))(JSON.parse(found.stdout));
    expect(JSON.parse(found.stdout)).toMatchObject({ items: [{ type: 'cluster', name: 'embedded' }] });
    const host = await cli(['system', 'metrics', '-o', 'json']);
    expect(host.code, host.stderr).toBe(0);
    (await schemaCheck('get', '/api/metrics/'))(JSON.parse(host.stdout));
    expect(JSON.parse(host.stdout)).toMatchObject({ clusters: { total: 1, healthy: 1 } });
  }, 120_000);

  it('version: the client, the server (GET /health) and whether they work together', async () => {
    const manifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const health = (await (await fetch(`${server.baseUrl}/health`)).json()) as { version: string };
    const run = await cli(['version', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      client: { version: manifest.version },
      server: { url: server.baseUrl, version: health.version },
      compatible: true,
    });
    const table = await cli(['version']);
    expect(table.stdout).toContain(`Client: ${manifest.version}`);
    expect(table.stdout).toContain(`Server: ${health.version} at ${server.baseUrl}`);
    expect(JSON.parse((await cli(['version', '--client', '-o', 'json'])).stdout)).toEqual({
      client: { version: manifest.version, node: process.versions.node },
    });
    const unreachable = await cli(['version', '--server', 'http://127.0.0.1:9', '-o', 'json']);
    expect(unreachable.code).toBe(1);
    expect(JSON.parse(unreachable.stdout)).toMatchObject({ client: { version: manifest.version } });
    expect(unreachable.stderr).toContain('cannot reach http://127.0.0.1:9');
  }, 60_000);
});
