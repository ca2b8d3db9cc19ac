// The tenancy model on a real API server with the real KubeBlocks CRDs, multi_cluster_mode on: custom roles scoped to
// team-a or team-b hold where they are granted and nowhere else (docs/security.md, "Tenancy model"). Each refusal is
// checked both ways (allowed where granted, 403 naming the missing permission elsewhere) and for what it leaves
// behind (nothing is created where the request was refused).
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../support/actor.js';
import { ADMIN, login, sessionsForEveryRole, startAdminTestApp, type AdminTestApp } from '../support/admin.js';
import { setMultiClusterMode } from '../support/cluster-reads.js';
import {
  BACKUPS,
  DATA_PROTECTION_CRDS,
  POLICIES,
  REPOS,
  RESTORES,
  backupObject,
  policyObject,
  repoObject,
} from '../support/backup-scenarios.js';
import { CLUSTERS_V1, standalone, standaloneManifest } from '../support/kube/kubeblocks-fixtures.js';
import { applyWithStatus, createWithStatus, readObject } from '../support/kube/real-kubeblocks.js';
import { actorFor } from '../support/actor.js';
import { eventually } from '../support/wait.js';

const NS = 'graphdb-system';
const RELEASE = 'graphdb-admin-server';
const completed = {
  phase: 'Completed',
  backupRepoName: 'primary',
  startTimestamp: '2026-01-10T03:00:00Z',
  completionTimestamp: '2026-01-10T03:05:00Z',
};

/** Custom roles, each scoped as its name says. */
const ROLES = {
  'team-a-operator': [
    { resource: 'clusters', actions: ['*'], namespace: 'team-a' },
    { resource: 'clusters.backups', actions: ['*'], namespace: 'team-a' },
    { resource: 'clusters.restores', actions: ['*'], namespace: 'team-a' },
  ],
  'team-a-operator-reading-b': [
    { resource: 'clusters', actions: ['*'], namespace: 'team-a' },
    { resource: 'clusters.backups', actions: ['*'], namespace: 'team-a' },
    { resource: 'clusters.restores', actions: ['*'], namespace: 'team-a' },
    { resource: 'clusters.backups', actions: ['get'], namespace: 'team-b' },
  ],
  'system-creator': [{ resource: 'clusters', actions: ['create'], namespace: NS }],
  'rbac-editor': [{ resource: 'rbac', actions: ['*'] }],
  'user-editor': [{ resource: 'users', actions: ['list', 'get', 'update'] }],
  nothing: [],
} as const;
type RoleName = keyof typeof ROLES;

describe('namespace-scoped roles on a real API server (multi_cluster_mode, team-a and team-b)', () => {
  let t: AdminTestApp;
  let admin: Actor;
  let operator: Actor;
  const as: Partial<Record<RoleName, Actor>> = {};
  const actor = (role: RoleName) => as[role]!;
  const custom = () => t.real!.api.admin.makeApiClient(CustomObjectsApi);
  const core = () => t.real!.api.admin.makeApiClient(CoreV1Api);
  const stored = (resource: string, namespace: string, name: string) =>
    readObject(t.real!.api.admin, resource, namespace, name);
  const count = async (resource: string, namespace: string) => {
    const [group, version, plural] = resource.split('/') as [string, string, string];
    const list = (await custom().listNamespacedCustomObject({ group, version, plural, namespace })) as {
      items: unknown[];
    };
    return list.items.length;
  };
  const expectRefused = (res: { statusCode: number; body: string }, message: string | RegExp) => {
    expect(res.statusCode, res.body).toBe(403);
    const body = JSON.parse(res.body) as { statusCode: number; error: string; message: string };
    expect(body).toMatchObject({ statusCode: 403, error: 'Forbidden' });
    if (typeof message === 'string') expect(body.message).toBe(message);
    else expect(body.message).toMatch(message);
  };

  beforeAll(async () => {
    t = await startAdminTestApp('kube-apiserver', {
      kubeBlocks: true,
      namespaces: ['team-a', 'team-b'],
      chartValues: { 'adminServer.multiClusterRbac': 'true' },
      crds: [CLUSTERS_V1, 'operations.kubeblocks.io/v1alpha1/opsrequests', ...DATA_PROTECTION_CRDS],
      env: { MANAGED_NAMESPACES: `${NS}|team-a|team-b`, RELEASE_NAME: RELEASE },
    });
    const sessions = await sessionsForEveryRole(t.app);
    const actorOf = (cookie: string) => actorFor({ app: () => t.app, identity: () => ({ cookie }), baseUrl: () => '' });
    admin = actorOf(sessions.admin);
    operator = actorOf(sessions.operator);
    await setMultiClusterMode(t.app, sessions.admin, true);
    for (const [name, rules] of Object.entries(ROLES)) {
      const role = await admin.inject({ method: 'POST', url: '/api/rbac/roles', payload: { name, rules } });
      expect(role.statusCode, role.body).toBe(201);
      const email = `${name}@corp.example`;
      const user = await admin.inject({
        method: 'POST',
        url: '/api/users/',
        payload: { email, name, role: name, password: `${name}-password-1` },
      });
      expect(user.statusCode, user.body).toBe(201);
      as[name as RoleName] = actorOf(await login(t.app, email, `${name}-password-1`));
    }
    const kube = t.real!.api.admin;
    for (const namespace of ['team-a', 'team-b']) await createWithStatus(kube, standalone('solo', namespace));
    await applyWithStatus(kube, REPOS, repoObject('primary', 'Ready', true));
    for (const namespace of ['team-a', 'team-b'])
      await applyWithStatus(kube, POLICIES, policyObject('solo', namespace, 'primary'));
    await applyWithStatus(kube, BACKUPS, backupObject('a-full', 'solo', 'team-a', completed));
    await applyWithStatus(kube, BACKUPS, backupObject('b-full', 'solo', 'team-b', completed));
  });
  afterAll(() => t?.close());

  describe('a create is checked in the namespace it creates in', () => {
    it('refuses a role that may create only in the server namespace to create in team-a, on both create routes', async () => {
      const res = await actor('system-creator').inject({
        method: 'POST',
        url: `/api/clusters/?namespace=${NS}`,
        payload: { name: 'sneaky', namespace: 'team-a', spec: {} },
      });
      expectRefused(res, 'Insufficient permissions for clusters:create in namespace team-a');
      const yaml = await actor('system-creator').inject({
        method: 'POST',
        url: '/api/clusters/yaml',
        payload: { yaml: standaloneManifest('sneaky-yaml', 'team-a') },
      });
      expectRefused(yaml, 'Insufficient permissions for clusters:create in namespace team-a');
      expect(await stored(CLUSTERS_V1, 'team-a', 'sneaky')).toBeUndefined();
      expect(await stored(CLUSTERS_V1, 'team-a', 'sneaky-yaml')).toBeUndefined();
      // Where it is granted, it creates.
      const own = await actor('system-creator').inject({
        method: 'POST',
        url: '/api/clusters/',
        payload: { name: 'sys-made', namespace: NS, spec: {} },
      });
      expect(own.statusCode, own.body).toBe(201);
      expect(await stored(CLUSTERS_V1, NS, 'sys-made')).toBeDefined();
    });

    it('lets a team-a role create in team-a (both routes) and refuses it team-b, creating nothing there', async () => {
      const created = await actor('team-a-operator').inject({
        method: 'POST',
        url: '/api/clusters/',
        payload: { name: 'a-made', namespace: 'team-a', spec: {} },
      });
      expect(created.statusCode, created.body).toBe(201);
      const fromYaml = await actor('team-a-operator').inject({
        method: 'POST',
        url: '/api/clusters/yaml',
        payload: { yaml: standaloneManifest('a-yaml', 'team-a') },
      });
      expect(fromYaml.statusCode, fromYaml.body).toBe(201);
      expect(await stored(CLUSTERS_V1, 'team-a', 'a-made')).toBeDefined();
      expect(await stored(CLUSTERS_V1, 'team-a', 'a-yaml')).toBeDefined();
      const before = await count(CLUSTERS_V1, 'team-b');
      expectRefused(
        await actor('team-a-operator').inject({
          method: 'POST',
          url: '/api/clusters/?namespace=team-a',
          payload: { name: 'b-made', namespace: 'team-b', spec: {} },
        }),
        'Insufficient permissions for clusters:create in namespace team-b',
      );
      expectRefused(
        await actor('team-a-operator').inject({
          method: 'POST',
          url: '/api/clusters/yaml?namespace=team-a',
          payload: { yaml: standaloneManifest('b-yaml', 'team-b') },
        }),
        'Insufficient permissions for clusters:create in namespace team-b',
      );
      expect(await count(CLUSTERS_V1, 'team-b')).toBe(before);
    });

    it('records in the audit entry the namespace the handler acted on, not ?namespace=', async () => {
      type Line = {
        userId?: string;
        resourceType?: string;
        namespace?: string;
        result?: string;
        resourceName?: string;
      };
      const entriesOf = (role: RoleName) =>
        t.logs.text
          .split('\n')
          .filter((line) => line.includes('"audit":true'))
          .map((line) => JSON.parse(line) as Line)
          .filter((line) => line.userId === `${role}@corp.example` && line.resourceType === 'cluster');
      // Written beside the answer, not before it.
      await eventually(() => Promise.resolve(entriesOf('system-creator').length >= 3), 5000);
      const refused = (role: RoleName) =>
        entriesOf(role)
          .filter((line) => line.result === 'failure')
          .map((line) => line.namespace);
      // The body's and the manifest's namespace, though the query named the server namespace or nothing.
      expect(refused('system-creator')).toEqual(['team-a', 'team-a']);
      expect(refused('team-a-operator')).toEqual(['team-b', 'team-b']);
      expect(entriesOf('system-creator').find((line) => line.resourceName === 'sys-made')?.namespace).toBe(NS);
      expect(
        entriesOf('team-a-operator')
          .filter((line) => line.result === 'success')
          .map((line) => line.namespace),
      ).toEqual(['team-a', 'team-a']);
    });
  });

  describe('restores and clones read a backup of another namespace only with the right to read it there', () => {
    it('refuses a team-a role a restore or a clone from team-b, and creates no Restore and no Cluster', async () => {
      const restoresBefore = await count(RESTORES, 'team-a');
      const clustersBefore = await count(CLUSTERS_V1, 'team-a');
      // It cannot even list team-b's backups.
      expectRefused(
        await actor('team-a-operator').inject({ method: 'GET', url: '/api/clusters/solo/backups/?namespace=team-b' }),
        'Insufficient permissions for clusters.backups:list in namespace team-b',
      );
      expectRefused(
        await actor('team-a-operator').inject({
          method: 'POST',
          url: '/api/clusters/solo/restores/?namespace=team-a',
          payload: { backup: { name: 'b-full', namespace: 'team-b' } },
        }),
        'Insufficient permissions for clusters.backups:get in namespace team-b',
      );
      expectRefused(
        await actor('team-a-operator').inject({
          method: 'POST',
          url: '/api/clusters/solo/restores/clone?namespace=team-a',
          payload: { newClusterName: 'stolen', backupName: 'b-full', backupNamespace: 'team-b' },
        }),
        'Insufficient permissions for clusters.backups:get in namespace team-b',
      );
      // Nor through the manifest: KubeBlocks' restore annotation is not a caller's to set.
      const annotated = await actor('team-a-operator').inject({
        method: 'POST',
        url: '/api/clusters/yaml',
        payload: {
          yaml: standaloneManifest('stolen-yaml', 'team-a', {
            metadata: [
              '  annotations:',
              `    kubeblocks.io/restore-from-backup: '{"falkordb":{"name":"b-full","namespace":"team-b"}}'`,
            ],
          }),
        },
      });
      expect(annotated.statusCode, annotated.body).toBe(400);
      expect(await count(RESTORES, 'team-a')).toBe(restoresBefore);
      expect(await count(CLUSTERS_V1, 'team-a')).toBe(clustersBefore);
    });

    it("restores and clones its own namespace's backup, and team-b's once it may read team-b's backups", async () => {
      const own = await actor('team-a-operator').inject({
        method: 'POST',
        url: '/api/clusters/solo/restores/?namespace=team-a',
        payload: { backup: { name: 'a-full' } },
      });
      expect(own.statusCode, own.body).toBe(201);
      const granted = await actor('team-a-operator-reading-b').inject({
        method: 'POST',
        url: '/api/clusters/solo/restores/?namespace=team-a',
        payload: { backup: { name: 'b-full', namespace: 'team-b' } },
      });
      expect(granted.statusCode, granted.body).toBe(201);
      const restore = await stored(RESTORES, 'team-a', granted.json<{ name: string }>().name);
      expect(restore?.spec).toMatchObject({ backup: { name: 'b-full', namespace: 'team-b' } });
      const clone = await actor('team-a-operator-reading-b').inject({
        method: 'POST',
        url: '/api/clusters/solo/restores/clone?namespace=team-a',
        payload: { newClusterName: 'solo-copy', backupName: 'b-full', backupNamespace: 'team-b' },
      });
      expect(clone.statusCode, clone.body).toBe(201);
      expect(await stored(CLUSTERS_V1, 'team-a', 'solo-copy')).toBeDefined();
    });

    it("passes the restore job's service account, env, resources and prepareDataConfig only with clusters.restores:escalate", async () => {
      const before = await count(RESTORES, 'team-a');
      for (const field of [
        { serviceAccountName: 'kubeblocks-dataprotection-worker' },
        { env: [{ name: 'PATH', value: '/tmp' }] },
        { containerResources: { limits: { cpu: '64' } } },
        { prepareDataConfig: { dataSourceRef: { volumeSource: 'data' } } },
      ])
        expectRefused(
          await actor('team-a-operator').inject({
            method: 'POST',
            url: '/api/clusters/solo/restores/?namespace=team-a',
            payload: { backup: { name: 'a-full' }, ...field },
          }),
          'Insufficient permissions for clusters.restores:escalate in namespace team-a',
        );
      expect(await count(RESTORES, 'team-a')).toBe(before);
      // The shipped operator's `*` actions do not grant it either; the admin's `*`:`*` does.
      expectRefused(
        await operator.inject({
          method: 'POST',
          url: '/api/clusters/solo/restores/?namespace=team-a',
          payload: { backup: { name: 'a-full' }, serviceAccountName: 'restore-runner' },
        }),
        'Insufficient permissions for clusters.restores:escalate in namespace team-a',
      );
      const escalated = await admin.inject({
        method: 'POST',
        url: '/api/clusters/solo/restores/?namespace=team-a',
        payload: { backup: { name: 'a-full' }, serviceAccountName: 'restore-runner' },
      });
      expect(escalated.statusCode, escalated.body).toBe(201);
      const restore = await stored(RESTORES, 'team-a', escalated.json<{ name: string }>().name);
      expect(restore?.spec).toMatchObject({ serviceAccountName: 'restore-runner' });
    });
  });

  describe('no role grants more than its holder has', () => {
    it('refuses a role holding rbac:* to widen itself or create a wider role, and lets it grant what it holds', async () => {
      expectRefused(
        await actor('rbac-editor').inject({
          method: 'PUT',
          url: '/api/rbac/roles/rbac-editor',
          payload: { rules: [{ resource: '*', actions: ['*'] }] },
        }),
        /^Insufficient permissions for clusters:list in every namespace: role rbac-editor grants it/,
      );
      expectRefused(
        await actor('rbac-editor').inject({
          method: 'POST',
          url: '/api/rbac/roles',
          payload: { name: 'wide', rules: [{ resource: 'clusters', actions: ['delete'], namespace: 'team-b' }] },
        }),
        /^Insufficient permissions for clusters:delete in namespace team-b/,
      );
      expectRefused(
        await actor('rbac-editor').inject({
          method: 'POST',
          url: '/api/rbac/group-mappings',
          payload: { groupEmail: 'everyone@corp.example', roleName: 'admin', priority: 1 },
        }),
        /^Insufficient permissions for clusters:list in every namespace: a group mapping to role admin grants it/,
      );
      const roles = (await admin.inject({ method: 'GET', url: '/api/rbac/' })).json<{
        config: { roles: { name: string; rules: unknown }[]; groupMappings: unknown[] };
      }>().config;
      expect(roles.roles.find((role) => role.name === 'rbac-editor')?.rules).toEqual(ROLES['rbac-editor']);
      expect(roles.roles.some((role) => role.name === 'wide')).toBe(false);
      expect(roles.groupMappings).toEqual([]);
      // A full replace may send back what it read (the admin-like roles in it unchanged), but not widen one.
      const replaced = await actor('rbac-editor').inject({
        method: 'PUT',
        url: '/api/rbac/',
        payload: { config: roles },
      });
      expect(replaced.statusCode, replaced.body).toBe(200);
      expectRefused(
        await actor('rbac-editor').inject({
          method: 'PUT',
          url: '/api/rbac/',
          payload: {
            config: {
              ...roles,
              roles: roles.roles.map((role) =>
                role.name === 'nothing' ? { ...role, rules: [{ resource: 'settings', actions: ['update'] }] } : role,
              ),
            },
          },
        }),
        /^Insufficient permissions for settings:update in every namespace: role nothing grants it/,
      );
      const narrow = await actor('rbac-editor').inject({
        method: 'POST',
        url: '/api/rbac/roles',
        payload: { name: 'rbac-reader', rules: [{ resource: 'rbac', actions: ['list', 'get'] }] },
      });
      expect(narrow.statusCode, narrow.body).toBe(201);
    });

    it('refuses a role holding users:update to raise its own role or anyone to admin, or to reset the admin password', async () => {
      const self = await actor('user-editor').inject({
        method: 'PATCH',
        url: '/api/users/user-editor@corp.example',
        payload: { role: 'admin' },
      });
      expectRefused(self, 'Users cannot change their own role: another user with the right must do it');
      expectRefused(
        await actor('user-editor').inject({
          method: 'PATCH',
          url: '/api/users/nothing@corp.example',
          payload: { role: 'admin' },
        }),
        /^Insufficient permissions for clusters:list in every namespace: role admin grants it/,
      );
      const reset = await actor('user-editor').inject({
        method: 'POST',
        url: `/api/users/${ADMIN.email}/reset-password`,
        payload: {},
      });
      expectRefused(reset, new RegExp(`^Insufficient permissions for .+: user ${ADMIN.email}'s role admin grants it`));
      expect(reset.body).not.toContain('tempPassword');
      // The admin's password still works; the users' roles are unchanged.
      await login(t.app, ADMIN.email, ADMIN.password);
      const users = (await admin.inject({ method: 'GET', url: '/api/users/?limit=100' })).json<{
        users: { email: string; role: string }[];
      }>().users;
      expect(users.find((user) => user.email === 'user-editor@corp.example')?.role).toBe('user-editor');
      expect(users.find((user) => user.email === 'nothing@corp.example')?.role).toBe('nothing');
      // Within its own rules it may: a user of a role it covers gets a new password, or another such role.
      const allowed = await actor('user-editor').inject({
        method: 'POST',
        url: '/api/users/nothing@corp.example/reset-password',
        payload: {},
      });
      expect(allowed.statusCode, allowed.body).toBe(200);
      // The admin holds rbac:escalate (its `*`:`*`): it assigns any role, but never its own.
      const promoted = await admin.inject({
        method: 'PATCH',
        url: '/api/users/nothing@corp.example',
        payload: { role: 'operator' },
      });
      expect(promoted.statusCode, promoted.body).toBe(200);
      expectRefused(
        await admin.inject({ method: 'PATCH', url: `/api/users/${ADMIN.email}`, payload: { role: 'viewer' } }),
        'Users cannot change their own role: another user with the right must do it',
      );
    });
  });

  describe('deployment manifests carry only what the API documents', () => {
    it.each([
      [
        'an owner reference',
        { metadata: ['  ownerReferences:', '    - {apiVersion: v1, kind: Secret, name: x, uid: "1"}'] },
      ],
      ['a finalizer', { metadata: ['  finalizers: [example.com/hold]'] }],
      ['a kubeblocks.io annotation', { metadata: ['  annotations:', '    kubeblocks.io/extra-env: "{}"'] }],
      ['another engine', { component: ['      componentDef: redis-7'] }],
      ['a service account', { component: ['      serviceAccountName: cluster-admin'] }],
      ['an instance image', { component: ['      instances:', '        - {name: x, image: evil/image}'] }],
      ['a node name', { component: ['      schedulingPolicy:', '        nodeName: control-plane'] }],
    ])('refuses a manifest with %s (400), creating nothing', async (_what, extra) => {
      const res = await actor('team-a-operator').inject({
        method: 'POST',
        url: '/api/clusters/yaml',
        payload: { yaml: standaloneManifest('tampered', 'team-a', extra) },
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      expect(await stored(CLUSTERS_V1, 'team-a', 'tampered')).toBeUndefined();
    });

    it('keeps a plain annotation, and refuses kubeblocks.io annotations on the structured create and on PATCH', async () => {
      const res = await actor('team-a-operator').inject({
        method: 'POST',
        url: '/api/clusters/yaml',
        payload: {
          yaml: standaloneManifest('annotated', 'team-a', { metadata: ['  annotations:', '    team/owner: graphs'] }),
        },
      });
      expect(res.statusCode, res.body).toBe(201);
      expect((await stored(CLUSTERS_V1, 'team-a', 'annotated'))?.metadata.annotations).toEqual({
        'team/owner': 'graphs',
      });
      const create = await actor('team-a-operator').inject({
        method: 'POST',
        url: '/api/clusters/',
        payload: {
          name: 'restored-on-create',
          namespace: 'team-a',
          annotations: { 'kubeblocks.io/restore-from-backup': '{"falkordb":{"name":"b-full","namespace":"team-b"}}' },
          spec: {},
        },
      });
      expect(create.statusCode, create.body).toBe(400);
      expect(await stored(CLUSTERS_V1, 'team-a', 'restored-on-create')).toBeUndefined();
      const patch = await actor('team-a-operator').inject({
        method: 'PATCH',
        url: '/api/clusters/annotated?namespace=team-a',
        payload: { annotations: { 'kubeblocks.io/restore-from-backup': '{}' } },
      });
      expect(patch.statusCode, patch.body).toBe(400);
      expect((await stored(CLUSTERS_V1, 'team-a', 'annotated'))?.metadata.annotations).toEqual({
        'team/owner': 'graphs',
      });
      const plain = await actor('team-a-operator').inject({
        method: 'PATCH',
        url: '/api/clusters/annotated?namespace=team-a',
        payload: { annotations: { 'team/cost-center': '42' } },
      });
      expect(plain.statusCode, plain.body).toBe(200);
    });
  });

  describe("the server's own pods are never a deployment's", () => {
    it("refuses a deployment named after the Helm release, and never selects the server's pods for logs", async () => {
      for (const [url, payload] of [
        ['/api/clusters/', { name: RELEASE, namespace: NS, spec: {} }],
        ['/api/clusters/yaml', { yaml: standaloneManifest(RELEASE, NS) }],
      ] as const) {
        const res = await admin.inject({ method: 'POST', url, payload });
        expect(res.statusCode, res.body).toBe(400);
        expect(res.json<{ message: string }>().message).toContain("this server's own Helm release");
      }
      expect(await stored(CLUSTERS_V1, NS, RELEASE)).toBeUndefined();
      // Even a Cluster of that name made behind the server's back does not reach its pods.
      await createWithStatus(t.real!.api.admin, standalone(RELEASE, NS));
      const pod = (name: string, labels: Record<string, string>) =>
        core().createNamespacedPod({
          namespace: NS,
          body: { metadata: { name, labels }, spec: { containers: [{ name: 'main', image: 'example/image' }] } },
        });
      await pod(`${RELEASE}-6d9f7-abcde`, {
        'app.kubernetes.io/instance': RELEASE,
        'app.kubernetes.io/managed-by': 'Helm',
      });
      await pod('solo-falkordb-0', {
        'app.kubernetes.io/instance': 'solo',
        'app.kubernetes.io/managed-by': 'kubeblocks',
      });
      const logs = await admin.inject({
        method: 'GET',
        url: `/api/clusters/${RELEASE}/pods/${RELEASE}-6d9f7-abcde/logs?namespace=${NS}`,
      });
      expect(logs.statusCode, logs.body).toBe(404);
      const pods = await admin.inject({ method: 'GET', url: `/api/clusters/${RELEASE}/pods?namespace=${NS}` });
      expect(pods.statusCode, pods.body).toBe(200);
      expect(pods.json()).toMatchObject({ pods: [], total: 0 });
      await createWithStatus(t.real!.api.admin, standalone('solo', NS));
      const solo = await admin.inject({ method: 'GET', url: `/api/clusters/solo/pods?namespace=${NS}` });
      expect(solo.json<{ pods: { name: string }[] }>().pods.map((p) => p.name)).toEqual(['solo-falkordb-0']);
    });
  });

  describe('backup repository credentials', () => {
    const foreign = (name: string) =>
      core().createNamespacedSecret({
        namespace: NS,
        body: { metadata: { name, labels: { team: 'platform' } }, stringData: { accessKeyId: 'keep-me' } },
      });
    const s3 = (name: string) => ({
      name,
      storageProviderRef: 's3',
      type: 's3',
      config: { bucket: 'graphs', region: 'eu-west-1' },
      credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'example-secret' },
    });

    it('never replaces a Secret this server did not write for that repository (409), and replaces its own', async () => {
      await foreign('graphdb-backup-repo-taken');
      const create = await admin.inject({ method: 'POST', url: '/api/backups/repositories/', payload: s3('taken') });
      expect(create.statusCode, create.body).toBe(409);
      expect(create.json<{ message: string }>().message).toContain('was not created by this server');
      expect(await stored(REPOS, '', 'taken')).toBeUndefined();
      expect(await t.backdoor.secret('graphdb-backup-repo-taken')).toEqual({ accessKeyId: 'keep-me' });

      await foreign('graphdb-backup-repo-primary');
      const patch = await admin.inject({
        method: 'PATCH',
        url: '/api/backups/repositories/primary',
        payload: { credentials: { accessKeyId: 'AKIANEW', secretAccessKey: 'new-secret' } },
      });
      expect(patch.statusCode, patch.body).toBe(409);
      expect(await t.backdoor.secret('graphdb-backup-repo-primary')).toEqual({ accessKeyId: 'keep-me' });
      expect((await stored(REPOS, '', 'primary'))?.spec).not.toHaveProperty('credential');

      const mine = await admin.inject({ method: 'POST', url: '/api/backups/repositories/', payload: s3('mine') });
      expect(mine.statusCode, mine.body).toBe(201);
      const rotated = await admin.inject({
        method: 'PATCH',
        url: '/api/backups/repositories/mine',
        payload: { credentials: { accessKeyId: 'AKIAROTATED', secretAccessKey: 'rotated-secret' } },
      });
      expect(rotated.statusCode, rotated.body).toBe(200);
      expect(await t.backdoor.secret('graphdb-backup-repo-mine')).toEqual({
        accessKeyId: 'AKIAROTATED',
        secretAccessKey: 'rotated-secret',
      });
    });

    it('records the repository a backup asked for under its annotation key', async () => {
      const res = await actor('team-a-operator').inject({
        method: 'POST',
        url: '/api/clusters/solo/backups/?namespace=team-a',
        payload: { backupName: 'a-asked', backupMethod: 'datafile', backupRepoName: 'primary' },
      });
      expect(res.statusCode, res.body).toBe(201);
      const backup = await stored(BACKUPS, 'team-a', 'a-asked');
      expect(backup?.metadata.annotations).toEqual({ 'graphdb.falkordb.com/backup-repo': 'primary' });
    });
  });
});
