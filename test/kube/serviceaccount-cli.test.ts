// A CI pipeline's use of graphdb-admin: the compiled CLI with only GRAPHDB_ADMIN_TOKEN (and the server's URL) in its
// environment, no session file, creates and deletes a deployment on a real kube-apiserver with the real KubeBlocks
// CRDs, as a service account with the operator role. The CLI writes nothing to its config directory.
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, login, startAdminTestApp, type AdminTestApp } from '../support/admin.js';
import { listen } from '../support/app.js';
import { cliIn } from '../cli/harness.js';

const NS = 'graphdb-system';
let t: AdminTestApp;
let server: string;
let key: string;

beforeAll(async () => {
  t = await startAdminTestApp('kube-apiserver', { kubeBlocks: true });
  server = await listen(t.app);
  const cookie = await login(t.app, ADMIN.email, ADMIN.password);
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/serviceaccounts/',
    headers: { cookie },
    payload: { name: 'ci-deployer', role: 'operator' },
  });
  expect(created.statusCode, created.body).toBe(201);
  const minted = await t.app.inject({
    method: 'POST',
    url: '/api/serviceaccounts/ci-deployer/tokens',
    headers: { cookie },
    payload: { name: 'pipeline', expiresInDays: 1 },
  });
  expect(minted.statusCode, minted.body).toBe(201);
  key = minted.json<{ key: string }>().key;
});
afterAll(() => t?.close());

const clusterNames = async () =>
  (
    (await t.real!.api.admin.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
      group: 'apps.kubeblocks.io',
      version: 'v1',
      namespace: NS,
      plural: 'clusters',
    })) as { items: { metadata: { name: string } }[] }
  ).items.map((item) => item.metadata.name);

describe('graphdb-admin with only GRAPHDB_ADMIN_TOKEN (real API server)', () => {
  it('creates and deletes a deployment; a revoked token is refused with exit code 3', async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'gdb-ci-'));
    const cli = cliIn(home, { GRAPHDB_ADMIN_TOKEN: key, GRAPHDB_ADMIN_URL: server });
    const file = path.join(home, 'orders.json');
    await writeFile(file, JSON.stringify({ name: 'ci-orders', namespace: NS, spec: {} }));

    const created = await cli(['deployments', 'create', '-f', file]);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(`${NS}/ci-orders created`);
    expect(await clusterNames()).toContain('ci-orders');

    const listed = await cli(['-o', 'json', 'deployments', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('ci-orders');

    const deleted = await cli(['deployments', 'delete', 'ci-orders', '--yes']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(await clusterNames()).not.toContain('ci-orders');

    // The role limits it: an operator manages deployments, not users.
    const users = await cli(['users', 'list']);
    expect(users.code).not.toBe(0);
    expect(users.stderr).toContain('Insufficient permissions for users:list');

    // Nothing was written: no session file, no token on disk.
    expect((await readdir(home)).sort()).toEqual(['orders.json']);

    const cookie = await login(t.app, ADMIN.email, ADMIN.password);
    const tokens = await t.app.inject({
      method: 'GET',
      url: '/api/serviceaccounts/ci-deployer/tokens',
      headers: { cookie },
    });
    const tokenId = tokens.json<{ tokens: { id: string }[] }>().tokens[0]!.id;
    const revoked = await t.app.inject({
      method: 'DELETE',
      url: `/api/serviceaccounts/ci-deployer/tokens/${tokenId}`,
      headers: { cookie },
    });
    expect(revoked.statusCode).toBe(204);
    const refused = await cli(['deployments', 'list']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('token refused');
  });
});
