// /api/rbac over both storage adapters: every operation's status and body, the predefined roles protected, the
// stored document checked behind the server's back, invalid input refused with nothing stored, and permission checks
// driven by the stored roles (a custom role, a role removed by hand, a broken hand edit). Then two replicas sharing
// the Kubernetes store and the change channel: an edit on one applies on the other at once, well within the cache.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADAPTERS,
  ADMIN,
  login,
  NAMESPACE,
  sessionsForEveryRole,
  startAdminTestApp,
  useAdminApp,
  type AdminTestApp,
} from '../support/admin.js';
import type { TestApp } from '../support/app.js';
import { realOperations, sampleOf, validatorOf } from '../support/conformance/real-operations.js';
import { setMultiClusterMode } from '../support/cluster-reads.js';
import { startKubeReplica } from '../support/kube-app.js';
import { CLUSTERS_V1, OPS_V1, standalone } from '../support/kube/kubeblocks-fixtures.js';
import { eventually } from '../support/wait.js';

/** Under `npm run test:kube` only the suite over ADAPTERS runs (against the real API server); the rest use the double. */
const doubleOnly = describe.skipIf(process.env.GRAPHDB_TEST_ADAPTERS === 'kube-apiserver');

const PREDEFINED = [
  { name: 'admin', rules: [{ resource: '*', actions: ['*'] }] },
  {
    name: 'operator',
    rules: [
      { resource: 'clusters', actions: ['*'] },
      { resource: 'clusters.backups', actions: ['*'] },
      { resource: 'clusters.restores', actions: ['*'] },
      { resource: 'settings', actions: ['list', 'get', 'read'] },
      { resource: 'system', actions: ['list', 'get', 'read'] },
    ],
  },
  {
    name: 'viewer',
    rules: [
      { resource: 'clusters', actions: ['list', 'get', 'read'] },
      { resource: 'clusters.backups', actions: ['list', 'get', 'read'] },
      { resource: 'clusters.restores', actions: ['list', 'get', 'read'] },
      { resource: 'system', actions: ['list', 'get', 'read'] },
    ],
  },
];
const predefinedRoles = () =>
  PREDEFINED.map((role) => ({ ...role, description: expect.any(String) as unknown, predefined: true }));

type StoredDocument = { roles: unknown[]; groupMappings: unknown[] };
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Gives a user a role by editing the user store behind the server's back (the users API takes shipped roles only). */
async function assignRole(t: Pick<AdminTestApp, 'backdoor'>, email: string, role: string): Promise<void> {
  const data = (await t.backdoor.secret('graphdb-admin-users'))!;
  const users = JSON.parse(data['users.json']!) as { email: string; role: string }[];
  users.find((user) => user.email === email)!.role = role;
  await t.backdoor.replaceSecretData('graphdb-admin-users', { ...data, 'users.json': JSON.stringify(users) });
}

/** Creates a user (as a viewer) through the API and returns its session cookie. */
async function createUser(t: Pick<AdminTestApp, 'app'>, admin: string, email: string): Promise<void> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/users',
    headers: { cookie: admin },
    payload: { email, name: email, role: 'viewer', password: 'user-password-1' },
  });
  expect(res.statusCode, res.body).toBe(201);
}

describe.each(ADAPTERS)('RBAC (%s stores)', (adapter) => {
  const t = useAdminApp(adapter);
  const call = (method: Method, url: string, payload?: unknown, cookie = t.sessions.admin) =>
    t.app.inject({ method, url, headers: { cookie }, ...(payload === undefined ? {} : { payload: payload as never }) });
  const stored = async () => {
    const text = await t.backdoor.rbacText();
    return text === undefined ? undefined : (JSON.parse(text) as StoredDocument);
  };
  const expectRefused = async (
    method: Method,
    url: string,
    payload: unknown,
    status: number,
    message?: string | RegExp,
  ) => {
    const before = await t.backdoor.rbacText();
    const res = await call(method, url, payload);
    expect(res.statusCode, `${method} ${url} ${JSON.stringify(payload)}: ${res.body}`).toBe(status);
    const body = res.json<{ statusCode: number; error: string; message: string }>();
    expect(body.statusCode).toBe(status);
    if (message !== undefined) expect(body.message).toMatch(message);
    expect(await t.backdoor.rbacText(), 'nothing stored').toBe(before);
    return body;
  };

  it('answers the predefined roles and no mappings before anything is stored, on both path spellings', async () => {
    expect(await stored()).toBeUndefined();
    for (const url of ['/api/rbac/', '/api/rbac']) {
      const res = await call('GET', url);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ config: { roles: predefinedRoles(), groupMappings: [] } });
    }
    for (const url of ['/api/rbac/roles', '/api/rbac/roles/']) {
      const res = await call('GET', url);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ roles: predefinedRoles() });
    }
    const viewer = await call('GET', '/api/rbac/roles/viewer');
    expect(viewer.statusCode).toBe(200);
    expect(viewer.json()).toEqual({ role: predefinedRoles()[2] });
    expect((await call('GET', '/api/rbac/group-mappings')).json()).toEqual({ mappings: [] });
    const missing = await call('GET', '/api/rbac/roles/nobody');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'Role nobody not found',
      code: 'not_found',
    });
  });

  it('asks for a session (401), then for the rbac permission (403 before the body is validated)', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/rbac/' })).statusCode).toBe(401);
    const denied: [Method, string, string, unknown?][] = [
      ['GET', '/api/rbac/', 'rbac:get'],
      ['PUT', '/api/rbac/', 'rbac:update', { config: 'nonsense' }],
      ['POST', '/api/rbac/reload', 'rbac:update'],
      ['GET', '/api/rbac/roles', 'rbac:list'],
      ['POST', '/api/rbac/roles', 'rbac:create', { name: 42 }],
      ['GET', '/api/rbac/roles/admin', 'rbac:get'],
      ['PUT', '/api/rbac/roles/x', 'rbac:update', {}],
      ['DELETE', '/api/rbac/roles/x', 'rbac:delete'],
      ['GET', '/api/rbac/group-mappings', 'rbac:list'],
      ['POST', '/api/rbac/group-mappings', 'rbac:create', {}],
      ['PUT', '/api/rbac/group-mappings/a@corp.example', 'rbac:update', {}],
      ['DELETE', '/api/rbac/group-mappings/a@corp.example', 'rbac:delete'],
    ];
    for (const role of ['operator', 'viewer'] as const)
      for (const [method, url, permission, payload] of denied) {
        const res = await call(method, url, payload, t.sessions[role]);
        expect(res.statusCode, `${role} ${method} ${url}`).toBe(403);
        expect(res.json()).toEqual({
          statusCode: 403,
          error: 'Forbidden',
          message: `Insufficient permissions for ${permission} in namespace ${NAMESPACE}`,
          code: 'forbidden',
        });
      }
    expect(await stored()).toBeUndefined();
  });

  it('creates, reads, updates and deletes a custom role, storing exactly the custom roles', async () => {
    const role = {
      name: 'auditor',
      description: 'Reads settings',
      rules: [{ resource: 'settings', actions: ['read'] }],
    };
    const created = await call('POST', '/api/rbac/roles', role);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toEqual({ success: true, message: 'Role auditor created' });
    expect(await stored()).toEqual({ roles: [role], groupMappings: [] });
    expect((await call('GET', '/api/rbac/roles/auditor')).json()).toEqual({ role });
    expect((await call('GET', '/api/rbac/roles')).json<{ roles: unknown[] }>().roles).toEqual([
      ...predefinedRoles(),
      role,
    ]);

    await expectRefused('POST', '/api/rbac/roles', role, 409, 'Role auditor already exists');
    await expectRefused('POST', '/api/rbac/roles', { ...role, name: 'AUDITOR' }, 409, 'Role auditor already exists');
    await expectRefused('POST', '/api/rbac/roles', { name: 'Operator', rules: [] }, 409, /Role operator already/);

    const rules = [
      { resource: 'clusters', actions: ['list', 'get'], namespace: 'team-a' },
      { resource: 'clusters.backups', actions: ['*'], namespace: '*' },
    ];
    const updated = await call('PUT', '/api/rbac/roles/auditor', { rules });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toEqual({ success: true, message: 'Role auditor updated' });
    // The description stays when the update leaves it out.
    expect(await stored()).toEqual({ roles: [{ ...role, rules }], groupMappings: [] });
    await expectRefused('PUT', '/api/rbac/roles/nobody', { rules }, 404, 'Role nobody not found');

    const deleted = await call('DELETE', '/api/rbac/roles/auditor');
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ success: true, message: 'Role auditor deleted' });
    expect(await stored()).toEqual({ roles: [], groupMappings: [] });
    await expectRefused('DELETE', '/api/rbac/roles/auditor', undefined, 404, 'Role auditor not found');
    expect((await call('GET', '/api/rbac/roles/auditor')).statusCode).toBe(404);
  });

  it('keeps the predefined roles: they cannot be created, changed or deleted (400 saying why)', async () => {
    for (const name of ['admin', 'operator', 'viewer']) {
      await expectRefused(
        'PUT',
        `/api/rbac/roles/${name}`,
        { rules: [] },
        400,
        `Role ${name} is predefined and cannot be changed; create a custom role instead`,
      );
      await expectRefused(
        'DELETE',
        `/api/rbac/roles/${name}`,
        undefined,
        400,
        `Role ${name} is predefined and cannot be deleted; create a custom role instead`,
      );
      await expectRefused('POST', '/api/rbac/roles', { name, rules: [] }, 409, `Role ${name} already exists`);
    }
    await expectRefused(
      'PUT',
      '/api/rbac/',
      { config: { roles: [{ name: 'viewer', rules: [{ resource: '*', actions: ['*'] }] }] } },
      400,
      /Role viewer is predefined and cannot be changed/,
    );
    await expectRefused(
      'POST',
      '/api/rbac/roles',
      { name: 'special', rules: [], predefined: true },
      400,
      'A custom role cannot be predefined: only the shipped roles are',
    );
    // Sent back as GET answers them, they are accepted (and not stored: they come from the server).
    const current = (await call('GET', '/api/rbac/')).json<{ config: unknown }>();
    const replaced = await call('PUT', '/api/rbac/', current);
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json()).toEqual({ success: true, message: 'RBAC configuration updated' });
    expect(await stored()).toEqual({ roles: [], groupMappings: [] });
    expect((await call('GET', '/api/rbac/roles')).json()).toEqual({ roles: predefinedRoles() });
  });

  it('refuses invalid input with 400 and stores nothing', async () => {
    const bad: [Method, string, unknown][] = [
      ['POST', '/api/rbac/roles', { name: 'x', rules: [{ resource: 'databases', actions: ['get'] }] }],
      ['POST', '/api/rbac/roles', { name: 'x', rules: [{ resource: 'clusters', actions: ['drop'] }] }],
      ['POST', '/api/rbac/roles', { name: 'x', rules: [{ resource: 'clusters', actions: [] }] }],
      ['POST', '/api/rbac/roles', { name: 'x', rules: [{ resource: 'clusters', actions: ['get'], namespace: 'A B' }] }],
      ['POST', '/api/rbac/roles', { name: 'x', rules: [{ resource: 'clusters', actions: ['get'], verbs: [] }] }],
      ['POST', '/api/rbac/roles', { name: 'x', rules: [], extra: true }],
      ['POST', '/api/rbac/roles', { name: 'bad name!', rules: [] }],
      ['POST', '/api/rbac/roles', { name: '', rules: [] }],
      ['POST', '/api/rbac/roles', { name: 'x' }],
      ['POST', '/api/rbac/roles', { name: 'x'.repeat(64), rules: [] }],
      ['POST', '/api/rbac/roles', { name: 'x', rules: Array.from({ length: 101 }, () => PREDEFINED[0]!.rules[0]) }],
      ['POST', '/api/rbac/group-mappings', { groupEmail: 'not-an-email', roleName: 'viewer', priority: 1 }],
      ['POST', '/api/rbac/group-mappings', { groupEmail: 'ops@corp.example', roleName: 'viewer', priority: 1.5 }],
      ['POST', '/api/rbac/group-mappings', { groupEmail: 'ops@corp.example', roleName: 'viewer' }],
      ['POST', '/api/rbac/group-mappings', { groupEmail: 'ops@corp.example', roleName: 'ghost', priority: 1 }],
      ['PUT', '/api/rbac/', { roles: [] }],
      [
        'PUT',
        '/api/rbac/',
        {
          config: {
            roles: [
              { name: 'a', rules: [] },
              { name: 'A', rules: [] },
            ],
          },
        },
      ],
      [
        'PUT',
        '/api/rbac/',
        { config: { roles: [], groupMappings: [{ groupEmail: 'ops@corp.example', roleName: 'ghost', priority: 1 }] } },
      ],
      [
        'PUT',
        '/api/rbac/',
        {
          config: {
            roles: [],
            groupMappings: [
              { groupEmail: 'ops@corp.example', roleName: 'viewer', priority: 1 },
              { groupEmail: 'OPS@corp.example', roleName: 'admin', priority: 2 },
            ],
          },
        },
      ],
      ['PUT', '/api/rbac/', { config: { roles: [{ name: 'custom', rules: [], predefined: true }] } }],
    ];
    for (const [method, url, payload] of bad) {
      const body = await expectRefused(method, url, payload, 400);
      expect(body.error).toBe('Bad Request');
    }
  });

  it('creates, updates and deletes group mappings, naming the group in any case', async () => {
    const mapping = { groupEmail: 'Ops@Corp.example', roleName: 'operator', priority: 10 };
    const created = await call('POST', '/api/rbac/group-mappings', mapping);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toEqual({ success: true, message: 'Group mapping Ops@Corp.example created' });
    expect(await stored()).toEqual({ roles: [], groupMappings: [mapping] });
    expect((await call('GET', '/api/rbac/group-mappings')).json()).toEqual({ mappings: [mapping] });
    await expectRefused(
      'POST',
      '/api/rbac/group-mappings',
      { ...mapping, groupEmail: 'ops@corp.example' },
      409,
      'Group mapping ops@corp.example already exists',
    );

    const updated = await call('PUT', '/api/rbac/group-mappings/ops%40corp.example', {
      roleName: 'viewer',
      priority: 3,
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toEqual({ success: true, message: 'Group mapping ops@corp.example updated' });
    const after = { ...mapping, roleName: 'viewer', priority: 3 };
    expect(await stored()).toEqual({ roles: [], groupMappings: [after] });
    expect((await call('GET', '/api/rbac/')).json()).toEqual({
      config: { roles: predefinedRoles(), groupMappings: [after] },
    });
    await expectRefused(
      'PUT',
      '/api/rbac/group-mappings/ops@corp.example',
      { roleName: 'ghost', priority: 3 },
      400,
      'Role ghost does not exist',
    );
    await expectRefused(
      'PUT',
      '/api/rbac/group-mappings/nobody@corp.example',
      { roleName: 'viewer', priority: 1 },
      404,
      'Group mapping nobody@corp.example not found',
    );

    const deleted = await call('DELETE', '/api/rbac/group-mappings/OPS@CORP.EXAMPLE');
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ success: true, message: 'Group mapping OPS@CORP.EXAMPLE deleted' });
    expect(await stored()).toEqual({ roles: [], groupMappings: [] });
    await expectRefused('DELETE', '/api/rbac/group-mappings/ops@corp.example', undefined, 404);
  });

  it('replaces the whole configuration, refusing to drop a role users or mappings still hold (409)', async () => {
    const config = {
      roles: [
        { name: 'reader', rules: [{ resource: 'clusters', actions: ['list'] }] },
        { name: 'writer', description: 'Writes', rules: [{ resource: 'clusters', actions: ['update'] }] },
      ],
      groupMappings: [{ groupEmail: 'writers@corp.example', roleName: 'writer', priority: 5 }],
    };
    const res = await call('PUT', '/api/rbac', { config });
    expect(res.statusCode, res.body).toBe(200);
    expect(await stored()).toEqual(config);
    expect((await call('GET', '/api/rbac/')).json()).toEqual({
      config: { roles: [...predefinedRoles(), ...config.roles], groupMappings: config.groupMappings },
    });

    await expectRefused(
      'DELETE',
      '/api/rbac/roles/writer',
      undefined,
      409,
      'Role writer cannot be deleted: 0 users and 1 group mapping still hold it',
    );
    await createUser(t, t.sessions.admin, 'reader@corp.example');
    await assignRole(t, 'reader@corp.example', 'reader');
    await expectRefused(
      'DELETE',
      '/api/rbac/roles/reader',
      undefined,
      409,
      'Role reader cannot be deleted: 1 user and 0 group mappings still hold it',
    );
    await expectRefused(
      'PUT',
      '/api/rbac/',
      { config: { roles: [config.roles[1]], groupMappings: config.groupMappings } },
      409,
      'Role reader cannot be removed: 1 user and 0 group mappings still hold it',
    );
    await assignRole(t, 'reader@corp.example', 'viewer');
    // Without the mapping, and with nobody holding them, both go.
    expect((await call('PUT', '/api/rbac/', { config: { roles: [] } })).statusCode).toBe(200);
    expect(await stored()).toEqual({ roles: [], groupMappings: [] });
  });

  it('lets a custom role granting clusters:list in team-a list there and nowhere else, as the rules say now', async () => {
    const role = { name: 'team-a-reader', rules: [{ resource: 'clusters', actions: ['list'], namespace: 'team-a' }] };
    expect((await call('POST', '/api/rbac/roles', role)).statusCode).toBe(201);
    await createUser(t, t.sessions.admin, 'dana@corp.example');
    await assignRole(t, 'dana@corp.example', 'team-a-reader');
    const dana = await login(t.app, 'dana@corp.example', 'user-password-1');
    const list = (namespace?: string) =>
      call('GET', `/api/clusters${namespace ? `?namespace=${namespace}` : ''}`, undefined, dana);

    expect((await list('team-a')).statusCode).toBe(200);
    expect((await list('team-a')).json()).toEqual({ clusters: [], total: 0 });
    for (const [namespace, shown] of [
      ['team-b', 'team-b'],
      [undefined, NAMESPACE],
    ] as const) {
      const res = await list(namespace);
      expect(res.statusCode).toBe(403);
      expect(res.json<{ message: string }>().message).toBe(
        `Insufficient permissions for clusters:list in namespace ${shown}`,
      );
    }
    expect((await call('GET', '/api/clusters/solo?namespace=team-a', undefined, dana)).statusCode).toBe(403);
    expect((await call('GET', '/api/settings/', undefined, dana)).statusCode).toBe(403);
    const me = await call('GET', '/api/auth/validate', undefined, dana);
    expect(me.json()).toMatchObject({ valid: true, user: { role: 'team-a-reader' } });

    // An edit applies to the next request.
    const moved = [{ resource: 'clusters', actions: ['list', 'get'], namespace: 'team-b' }];
    expect((await call('PUT', '/api/rbac/roles/team-a-reader', { rules: moved })).statusCode).toBe(200);
    expect((await list('team-a')).statusCode).toBe(403);
    expect((await list('team-b')).statusCode).toBe(200);

    // A role removed behind the server's back leaves its holders without permissions: 403, never 500.
    await t.backdoor.editRbac(JSON.stringify({ roles: [] }));
    expect((await list('team-b')).statusCode).toBe(403);
    expect((await call('GET', '/api/rbac/roles/team-a-reader')).statusCode).toBe(404);
    const orphan = await call('GET', '/api/auth/validate', undefined, dana);
    expect(orphan.statusCode).toBe(200);
    expect(orphan.json()).toMatchObject({ user: { role: 'team-a-reader' } });
    await assignRole(t, 'dana@corp.example', 'viewer');
  });

  it('keeps the last good configuration when a hand edit breaks the document, and says so on reload', async () => {
    const role = { name: 'keeper', rules: [{ resource: 'system', actions: ['get'] }] };
    expect((await call('POST', '/api/rbac/roles', role)).statusCode).toBe(201);
    for (const broken of [
      '{ not json',
      JSON.stringify({ roles: [{ name: 'x', rules: [{ resource: 'nope', actions: ['get'] }] }] }),
      JSON.stringify({ roles: [], groupMappings: [{ groupEmail: 'a@corp.example', roleName: 'ghost', priority: 1 }] }),
      JSON.stringify({ roles: [], surprise: true }),
    ]) {
      await t.backdoor.editRbac(broken);
      const res = await call('GET', '/api/rbac/roles/keeper');
      expect(res.statusCode, broken).toBe(200);
      const reload = await call('POST', '/api/rbac/reload');
      expect(reload.statusCode).toBe(200);
      expect(reload.json<{ success: boolean; message: string }>()).toEqual({
        success: false,
        message: expect.stringMatching(
          /^The stored RBAC configuration is invalid \(.+\); the last good one stays/,
        ) as unknown,
      });
    }
    expect(t.logs.text).toContain('ignoring invalid RBAC document');

    // A hand edit that lists a predefined role differently: that entry is ignored, the rest applies.
    await t.backdoor.editRbac(
      JSON.stringify({
        roles: [
          { name: 'admin', rules: [] },
          { name: 'by-hand', rules: [] },
        ],
        groupMappings: [],
      }),
    );
    const reload = await call('POST', '/api/rbac/reload/');
    expect(reload.json()).toEqual({ success: true, message: 'RBAC configuration reloaded' });
    expect((await call('GET', '/api/rbac/roles')).json()).toEqual({
      roles: [...predefinedRoles(), { name: 'by-hand', rules: [] }],
    });
    expect((await call('GET', '/api/rbac/roles/keeper')).statusCode).toBe(404);
    expect((await call('GET', '/api/users')).statusCode).toBe(200);
    expect(t.logs.text).toContain('the RBAC document lists predefined roles');
    expect((await call('PUT', '/api/rbac/', { config: { roles: [] } })).statusCode).toBe(200);
  });
});

doubleOnly('the cluster list filtered by a custom role (Kubernetes, multi_cluster_mode on)', () => {
  let t: AdminTestApp;
  let admin: string;
  beforeAll(async () => {
    t = await startAdminTestApp('kubernetes', { kubeBlocks: true, crds: [CLUSTERS_V1, OPS_V1] });
    admin = (await sessionsForEveryRole(t.app)).admin;
    for (const [name, namespace] of [
      ['home', NAMESPACE],
      ['alpha', 'team-a'],
      ['beta', 'team-b'],
    ] as const)
      t.kube!.put(CLUSTERS_V1, namespace, standalone(name, namespace));
    await setMultiClusterMode(t.app, admin, true);
  });
  afterAll(() => t.close());

  it('shows the clusters of the namespaces the role may list, and all to a wildcard role', async () => {
    const create = (name: string, rules: unknown[]) =>
      t.app.inject({ method: 'POST', url: '/api/rbac/roles', headers: { cookie: admin }, payload: { name, rules } });
    expect(
      (
        await create('two-teams', [
          { resource: 'clusters', actions: ['list'], namespace: NAMESPACE },
          { resource: 'clusters', actions: ['list'], namespace: 'team-a' },
        ])
      ).statusCode,
    ).toBe(201);
    expect((await create('everywhere', [{ resource: 'clusters', actions: ['list'], namespace: '*' }])).statusCode).toBe(
      201,
    );
    const names = async (role: string) => {
      const email = `${role}@corp.example`;
      await createUser(t, admin, email);
      await assignRole(t, email, role);
      const cookie = await login(t.app, email, 'user-password-1');
      const res = await t.app.inject({ method: 'GET', url: '/api/clusters', headers: { cookie } });
      expect(res.statusCode, res.body).toBe(200);
      return res
        .json<{ clusters: { name: string }[] }>()
        .clusters.map((cluster) => cluster.name)
        .sort();
    };
    expect(await names('two-teams')).toEqual(['alpha', 'home']);
    expect(await names('everywhere')).toEqual(['alpha', 'beta', 'home']);
  });
});

doubleOnly('two replicas sharing the Kubernetes store and the change channel', () => {
  const REFRESH_MS = '60000';
  let a: AdminTestApp;
  let b: TestApp | undefined;
  afterAll(async () => {
    // B borrows A's FalkorDB (the shared token store), so it closes first.
    await b?.close();
    await a?.close();
  });

  it('applies an RBAC edit made on one replica on the other at once, well within the cache interval', async () => {
    a = await startAdminTestApp('kubernetes', { env: { SETTINGS_REFRESH_MS: REFRESH_MS } });
    const adminOnA = await login(a.app, ADMIN.email, ADMIN.password);
    const create = await a.app.inject({
      method: 'POST',
      url: '/api/rbac/roles',
      headers: { cookie: adminOnA },
      payload: { name: 'reader', rules: [{ resource: 'clusters', actions: ['list'], namespace: 'team-a' }] },
    });
    expect(create.statusCode, create.body).toBe(201);
    await createUser(a, adminOnA, 'erin@corp.example');
    await assignRole(a, 'erin@corp.example', 'reader');
    // B starts after the edits above, so it reads them; from then on it trusts its copies for a minute.
    b = await startKubeReplica(a.kube!, { falkordb: a.falkordb, env: { SETTINGS_REFRESH_MS: REFRESH_MS } });
    const erin = await login(b.app, 'erin@corp.example', 'user-password-1');
    const listOnB = (namespace: string) =>
      b!.app.inject({ method: 'GET', url: `/api/clusters?namespace=${namespace}`, headers: { cookie: erin } });
    const rbacReads = () =>
      a.kube!.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/configmaps/graphdb-rbac')).length;

    expect((await listOnB('team-a')).statusCode).toBe(200);
    expect((await listOnB('team-b')).statusCode).toBe(403);
    const readsBefore = rbacReads();
    for (let i = 0; i < 5; i++) expect((await listOnB('team-a')).statusCode).toBe(200);
    expect(rbacReads(), 'B serves permission checks from its copy').toBe(readsBefore);

    const edit = await a.app.inject({
      method: 'PUT',
      url: '/api/rbac/roles/reader',
      headers: { cookie: adminOnA },
      payload: { rules: [{ resource: 'clusters', actions: ['list'], namespace: 'team-b' }] },
    });
    expect(edit.statusCode, edit.body).toBe(200);
    const started = Date.now();
    await eventually(async () => (await listOnB('team-b')).statusCode === 200, 5000);
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await listOnB('team-a')).statusCode).toBe(403);
  });
});

doubleOnly('every /api/rbac operation against the FalkorDB Enterprise admin API’s request and response schemas', () => {
  const t = useAdminApp('embedded');
  const operations = realOperations().filter((operation) => operation.path.startsWith('/api/rbac'));
  const operation = (method: string, path: string) => {
    const found = operations.find((candidate) => candidate.method === method && candidate.path === path);
    expect(found, `${method} ${path}`).toBeDefined();
    return found!;
  };

  it('answers a declared status with a body its schema accepts, for bodies built from the request schemas', async () => {
    expect(operations.length).toBe(12);
    const role = 'conformance-role';
    const group = 'conformance-group@corp.example';
    const steps: [method: Method, path: string, url: string, overrides?: Record<string, unknown>][] = [
      ['GET', '/api/rbac/', '/api/rbac/'],
      ['POST', '/api/rbac/roles', '/api/rbac/roles', { name: role }],
      ['GET', '/api/rbac/roles', '/api/rbac/roles'],
      ['GET', '/api/rbac/roles/{roleName}', `/api/rbac/roles/${role}`],
      ['PUT', '/api/rbac/roles/{roleName}', `/api/rbac/roles/${role}`],
      ['POST', '/api/rbac/group-mappings', '/api/rbac/group-mappings', { groupEmail: group, roleName: role }],
      ['GET', '/api/rbac/group-mappings', '/api/rbac/group-mappings'],
      ['PUT', '/api/rbac/group-mappings/{groupEmail}', `/api/rbac/group-mappings/${group}`, { roleName: 'viewer' }],
      ['DELETE', '/api/rbac/group-mappings/{groupEmail}', `/api/rbac/group-mappings/${group}`],
      ['DELETE', '/api/rbac/roles/{roleName}', `/api/rbac/roles/${role}`],
      ['GET', '/api/rbac/roles/{roleName}', `/api/rbac/roles/${role}`],
      ['PUT', '/api/rbac/', '/api/rbac/'],
      ['POST', '/api/rbac/reload', '/api/rbac/reload'],
    ];
    const statuses: string[] = [];
    for (const [method, path, url, overrides] of steps) {
      const real = operation(method, path);
      const schema = real.requestBody?.content['application/json'];
      const payload = schema ? sampleOf(schema, overrides) : undefined;
      const res = await t.as('admin').inject({ method, url, payload });
      const status = String(res.statusCode);
      const declared = real.responses[status]?.['application/json'];
      expect(declared, `${method} ${url} answered ${status} (not declared): ${res.body}`).toBeDefined();
      const validate = validatorOf(declared!);
      expect(validate(res.json()), `${method} ${url}: ${JSON.stringify(validate.errors)}`).toBe(true);
      statuses.push(`${method} ${path} ${status}`);
    }
    expect(statuses).toEqual([
      'GET /api/rbac/ 200',
      'POST /api/rbac/roles 201',
      'GET /api/rbac/roles 200',
      'GET /api/rbac/roles/{roleName} 200',
      'PUT /api/rbac/roles/{roleName} 200',
      'POST /api/rbac/group-mappings 201',
      'GET /api/rbac/group-mappings 200',
      'PUT /api/rbac/group-mappings/{groupEmail} 200',
      'DELETE /api/rbac/group-mappings/{groupEmail} 200',
      'DELETE /api/rbac/roles/{roleName} 200',
      'GET /api/rbac/roles/{roleName} 404',
      'PUT /api/rbac/ 200',
      'POST /api/rbac/reload 200',
    ]);
  });
});
