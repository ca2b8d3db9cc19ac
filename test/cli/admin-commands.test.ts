// whoami, rbac roles/mappings, system namespaces, diagnostics health/support-package, license status, audit list and
// raw, run as the compiled CLI against the real server (embedded mode and over the Kubernetes API double); `-o json` is checked against the API's
// response schemas (openapi/openapi.json).
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, ADMIN, useAdminApp } from '../support/admin.js';
import { cliIn, schemaCheck, type Run } from './harness.js';

let server: string;
let configDir: string;
let cli: (args: string[], stdin?: string, env?: Record<string, string>) => Promise<Run>;

const json = (run: Run): unknown => {
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as unknown;
};

describe.each(ADAPTERS)('graphdb-admin admin commands (%s)', (adapter) => {
  // No session at start: the CLI signs in itself, and the audit it lists holds only its own sign-ins.
  const t = useAdminApp({ adapter, listen: true, roles: [] });
  beforeAll(async () => {
    server = t.baseUrl;
    configDir = await mkdtemp(path.join(os.tmpdir(), 'graphdb-admin-commands-'));
    cli = cliIn(configDir);
    const signIn = await cli(['login', '--server', server, '--email', ADMIN.email, '--password-stdin'], ADMIN.password);
    expect(signIn.code, signIn.stderr).toBe(0);
  });

  it('whoami', async () => {
    const who = await cli(['whoami']);
    expect(who.stdout).toContain(`${ADMIN.email} (`);
    expect(who.stdout).toContain('role admin');
    const value = json(await cli(['whoami', '-o', 'json'])) as { user: unknown };
    (await schemaCheck('get', '/api/auth/validate', '200', '/properties/user'))(value.user);
  });

  it('rbac roles list, get, create, delete', async () => {
    const roleItem = await schemaCheck('get', '/api/rbac/roles', '200', '/properties/roles/items');
    const list = json(await cli(['rbac', 'roles', 'list', '-o', 'json'])) as { name: string }[];
    list.forEach(roleItem);
    expect(list.map((r) => r.name)).toEqual(expect.arrayContaining(['admin', 'operator', 'viewer']));
    const table = await cli(['rbac', 'roles', 'list']);
    expect(table.stdout).toMatch(/^NAME\s+PREDEFINED\s+RULES\s+DESCRIPTION$/m);
    expect(table.stdout).toMatch(/^viewer\s+true\s+\d+/m);

    const created = await cli([
      'rbac',
      'roles',
      'create',
      'team-a-operator',
      '--rule',
      'clusters:list,get,update@team-a',
      '--rule',
      'system:list',
      '--description',
      'Operates team A',
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toBe('Created role team-a-operator\n');
    const role = json(await cli(['rbac', 'roles', 'get', 'team-a-operator', '-o', 'json']));
    (await schemaCheck('get', '/api/rbac/roles/{roleName}', '200', '/properties/role'))(role);
    expect(role).toMatchObject({
      name: 'team-a-operator',
      description: 'Operates team A',
      rules: [
        { resource: 'clusters', actions: ['list', 'get', 'update'], namespace: 'team-a' },
        { resource: 'system', actions: ['list'] },
      ],
    });
    const shown = await cli(['rbac', 'roles', 'get', 'team-a-operator']);
    expect(shown.stdout).toMatch(/^clusters\s+list,get,update\s+team-a$/m);
    expect(shown.stdout).toMatch(/^system\s+list\s+\*$/m);

    // From a file; the name on the command line wins.
    const file = path.join(configDir, 'role.json');
    await writeFile(file, JSON.stringify({ name: 'ignored', rules: [{ resource: 'users', actions: ['list'] }] }));
    expect((await cli(['rbac', 'roles', 'create', 'from-file', '-f', file])).code).toBe(0);
    expect(json(await cli(['rbac', 'roles', 'get', 'from-file', '--json']))).toMatchObject({
      name: 'from-file',
      rules: [{ resource: 'users', actions: ['list'] }],
    });

    const duplicate = await cli(['rbac', 'roles', 'create', 'team-a-operator', '--rule', 'system:list']);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/team-a-operator/);
    expect((await cli(['rbac', 'roles', 'create', 'x', '--rule', 'nonsense'])).code).toBe(2);
    expect((await cli(['rbac', 'roles', 'create', 'x'])).code).toBe(2);
    const badResource = await cli(['rbac', 'roles', 'create', 'x', '--rule', 'planets:list']);
    expect(badResource.code).toBe(2);
    expect((await cli(['rbac', 'roles', 'get', 'nope'])).code).toBe(5);

    expect(json(await cli(['rbac', 'roles', 'delete', 'from-file', '-o', 'json', '--yes']))).toMatchObject({
      success: true,
    });
    expect((await cli(['rbac', 'roles', 'get', 'from-file'])).code).toBe(5);
    expect((await cli(['rbac', 'roles', 'delete', 'from-file', '--yes'])).code).toBe(5);
  });

  it('rbac mappings list, set (create, then change), delete', async () => {
    const set = await cli(['rbac', 'mappings', 'set', 'sre@corp.example', '--role', 'operator', '--priority', '10']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toBe('sre@corp.example → operator (priority 10)\n');
    const mappingItem = await schemaCheck('get', '/api/rbac/group-mappings', '200', '/properties/mappings/items');
    let list = json(await cli(['rbac', 'mappings', 'list', '-o', 'json'])) as unknown[];
    list.forEach(mappingItem);
    expect(list).toEqual([{ groupEmail: 'sre@corp.example', roleName: 'operator', priority: 10 }]);
    const changed = await cli([
      'rbac',
      'group-mappings',
      'set',
      'SRE@corp.example',
      '--role',
      'viewer',
      '--priority',
      '-5',
    ]);
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toContain('updated');
    list = json(await cli(['rbac', 'mappings', 'list', '--json'])) as unknown[];
    expect(list).toEqual([{ groupEmail: 'sre@corp.example', roleName: 'viewer', priority: -5 }]);
    expect((await cli(['rbac', 'mappings', 'list'])).stdout).toMatch(/^sre@corp\.example\s+viewer\s+-5$/m);
    expect((await cli(['rbac', 'mappings', 'set', 'ops@corp.example', '--role', 'no-such-role'])).code).not.toBe(0);
    expect((await cli(['rbac', 'mappings', 'delete', 'sre@corp.example', '--yes'])).code).toBe(0);
    expect(json(await cli(['rbac', 'mappings', 'list', '-o', 'json']))).toEqual([]);
    expect((await cli(['rbac', 'mappings', 'delete', 'sre@corp.example', '--yes'])).code).toBe(5);
  });

  it('system namespaces', async () => {
    const answer = json(await cli(['system', 'namespaces', '-o', 'json']));
    (await schemaCheck('get', '/api/system/namespaces'))(answer);
    const table = await cli(['system', 'namespaces']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^NAME\s+STATUS\s+CREATED$/m);
    for (const ns of (answer as { namespaces: { name: string }[] }).namespaces) expect(table.stdout).toContain(ns.name);
  });

  it('diagnostics health', async () => {
    const run = await cli(['diagnostics', 'health', '-o', 'json']);
    const health = JSON.parse(run.stdout) as { status: string };
    (await schemaCheck('get', '/api/admin/diagnostics/health'))(health);
    expect(run.code).toBe(health.status === 'unhealthy' ? 1 : 0);
    const table = await cli(['diagnostics', 'health']);
    expect(table.stdout).toMatch(new RegExp(`^${health.status} at `, 'm'));
    expect(table.stdout).toMatch(/^database\s+healthy$/m);
  });

  it('diagnostics support-package -f out.zip', async () => {
    const file = path.join(configDir, 'out.zip');
    const run = await cli([
      'diagnostics',
      'support-package',
      '-f',
      file,
      '--issue',
      'restarts hang',
      '--log-tail-lines',
      '10',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Wrote .*out\.zip \(\d+ bytes\)\n$/);
    expect(run.stderr).toContain('Building the support package');
    const zip = await readFile(file);
    expect(zip.subarray(0, 4)).toEqual(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // Entry names are stored uncompressed.
    expect(zip.toString('latin1')).toContain('manifest.json');
    expect(zip.toString('latin1')).toContain('logs/server.log');
    const noLogs = path.join(configDir, 'no-logs.zip');
    expect((await cli(['diagnostics', 'support-package', '-f', noLogs, '--no-logs', '--no-metrics'])).code).toBe(0);
    expect((await readFile(noLogs)).toString('latin1')).not.toContain('logs/server.log');
    const meta = json(await cli(['diagnostics', 'support-package', '-f', file, '-o', 'json']));
    expect(meta).toMatchObject({
      file,
      bytes: expect.any(Number) as unknown,
      serverFilename: expect.stringMatching(/\.zip$/) as unknown,
    });
    expect((await cli(['diagnostics', 'support-package', '-f', file, '--cluster', 'no-slash'])).code).toBe(2);
    expect((await cli(['diagnostics', 'support-package', '-f', file, '--log-tail-lines', '5000'])).code).toBe(2);
    expect((await cli(['diagnostics', 'support-package'])).code).toBe(2);
  });

  it('license status', async () => {
    const license = json(await cli(['license', 'status', '-o', 'json'])) as { state: string; edition: string };
    (await schemaCheck('get', '/api/admin/licensing/status'))(license);
    const table = await cli(['license', 'status']);
    expect(table.stdout).toContain(`${license.edition}: ${license.state}`);
    expect(table.stdout).toMatch(/^LIMIT\s+USED\s+ALLOWED$/m);
  });

  it('audit list with filters', async () => {
    const page = json(
      await cli(['audit', 'list', '--action', 'auth.login', '--result', 'success', '--limit', '5', '-o', 'json']),
    ) as { logs: { action: string; result: string; userId: string }[]; total: number; limit: number };
    (await schemaCheck('get', '/api/audit/'))(page);
    expect(page.limit).toBe(5);
    expect(page.logs.length).toBeGreaterThan(0);
    for (const entry of page.logs) expect(entry).toMatchObject({ action: 'auth.login', result: 'success' });
    const byUser = json(
      await cli(['audit', 'list', '--user', ADMIN.email, '--resource-type', 'rbac', '-o', 'json']),
    ) as {
      logs: { userId: string }[];
    };
    for (const entry of byUser.logs) expect(entry.userId.toLowerCase()).toBe(ADMIN.email);
    const none = json(await cli(['audit', 'list', '--since', '2000-01-01', '--until', '2000-01-02', '-o', 'json']));
    expect(none).toMatchObject({ logs: [], total: 0 });
    const table = await cli(['audit', 'list', '--limit', '3']);
    expect(table.stdout).toMatch(/^TIME\s+USER\s+ACTION\s+RESOURCE\s+RESULT$/m);
    expect((await cli(['audit', 'list', '-o', 'wide', '--limit', '1'])).stdout).toMatch(/RESULT\s+IP\s+MESSAGE$/m);
    expect((await cli(['audit', 'list', '--result', 'maybe'])).code).toBe(2);
    expect((await cli(['audit', 'list', '--since', 'yesterday'])).code).toBe(2);
  });

  it('raw sends the stored session and prints the body; error answers give their exit code', async () => {
    const namespaces = json(await cli(['raw', 'GET', '/api/system/namespaces']));
    (await schemaCheck('get', '/api/system/namespaces'))(namespaces);
    const patched = json(
      await cli(['raw', 'patch', '/api/settings/', '--data', '{"features":{"metrics_collection":false}}']),
    ) as { features: { metrics_collection: boolean } };
    expect(patched.features.metrics_collection).toBe(false);
    const fromStdin = json(
      await cli(['raw', 'PATCH', '/api/settings/', '--data', '-'], '{"features":{"metrics_collection":true}}'),
    ) as { features: { metrics_collection: boolean } };
    expect(fromStdin.features.metrics_collection).toBe(true);
    const yaml = await cli(['raw', 'GET', '/api/rbac/group-mappings', '-o', 'yaml']);
    expect(yaml.stdout).toBe('mappings: []\n');
    const missing = await cli(['raw', 'GET', '/api/users/ghost@corp.example']);
    expect(missing.code).toBe(5);
    expect(JSON.parse(missing.stdout)).toMatchObject({ statusCode: 404 });
    expect(missing.stderr).toContain('GET /api/users/ghost@corp.example: 404');
    expect((await cli(['raw', 'FETCH', '/api/users/'])).code).toBe(2);
    expect((await cli(['raw', 'GET', 'api/users/'])).code).toBe(2);
    expect((await cli(['raw', 'POST', '/api/rbac/roles', '--data', '{not json'])).code).toBe(2);
    const invalid = await cli(['raw', 'POST', '/api/rbac/roles', '--data', '{"name":"x"}']);
    expect(invalid.code).toBe(2);
    expect(JSON.parse(invalid.stdout)).toMatchObject({ statusCode: 400 });
  });

  it('a viewer gets exit code 4 where its role stops it', async () => {
    expect(
      (await cli(['users', 'add', 'vera@corp.example', '--role', 'viewer', '--password-stdin'], 'vera-password-1'))
        .code,
    ).toBe(0);
    const viewer = cliIn(await mkdtemp(path.join(os.tmpdir(), 'graphdb-admin-viewer-')));
    expect(
      (
        await viewer(
          ['login', '--server', server, '--email', 'vera@corp.example', '--password-stdin'],
          'vera-password-1',
        )
      ).code,
    ).toBe(0);
    const denied = await viewer(['rbac', 'roles', 'create', 'x', '--rule', 'system:list']);
    expect(denied.code).toBe(4);
    expect(denied.stderr).toContain('Insufficient permissions for rbac:create');
    expect((await viewer(['audit', 'list'])).code).toBe(4);
    expect((await viewer(['raw', 'DELETE', '/api/users/root@corp.example'])).code).toBe(4);
    expect((await viewer(['whoami'])).code).toBe(0);
  });
});
