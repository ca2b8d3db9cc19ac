// The real CLI's command groups against the server process in embedded mode (src/main.ts, its own FalkorDB): the
// one deployment `embedded`, its restart and operations, its backups as RDB snapshots, and clear refusals (with
// their exit codes) where one embedded process has no counterpart.
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServerProcess, type ServerProcess } from '../support/server-process.js';
import { cliIn, schemaCheck } from './harness.js';

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

  it('backs up into DATA_DIR/backups and lists it; refuses what one process cannot do with its exit code', async () => {
    const created = await cli(['backups', 'create', 'embedded', '--backupName', 'before-upgrade', '-o', 'json']);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ name: 'before-upgrade' });
    const listed = await cli(['backups', 'list', 'embedded']);
    expect(listed.stdout).toMatch(/^before-upgrade\s+(completed|running|pending)/m);

    // 422 (nothing to scale, no pod log outside the server's own): exit code 1 with the server's reason.
    const scale = await cli(['deployments', 'scale', 'embedded', '--replicas', '3']);
    expect(scale.code).toBe(1);
    expect(scale.stderr).toContain('Not supported in embedded mode');
    const logs = await cli(['logs', 'get', 'embedded', 'embedded-falkordb-0']);
    expect(logs.code).toBe(1);
    expect(logs.stderr).toContain('not in a Kubernetes pod');
    const missing = await cli(['deployments', 'get', 'nope']);
    expect(missing.code).toBe(5);
  }, 60_000);
});
