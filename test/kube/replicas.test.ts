// Two server replicas against one real API server: optimistic concurrency with the API server's own
// resourceVersion checks (409 Conflict, 409 AlreadyExists) and its own validation (422), through the server's
// production stores with the chart's RBAC.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeConfig } from '../../src/platform/kubernetes/kube-config.js';
import { createKubeAdminStores } from '../../src/platform/kubernetes/kube-stores.js';
import type { AdminStores } from '../../src/platform/stores/ports.js';
import { ADMIN, login, NAMESPACE, startAdminTestApp, type AdminTestApp } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';

/** Runs `edit` (once) right before the server's next write of the settings ConfigMap or of a Secret. */
function interposer() {
  const pending: { settings?: () => Promise<void>; secret?: () => Promise<void> } = {};
  const take = (key: 'settings' | 'secret') => {
    const edit = pending[key];
    pending[key] = undefined;
    return edit?.();
  };
  const wrap = (stores: AdminStores): AdminStores => ({
    settings: {
      ...stores.settings,
      async write(data, version) {
        await take('settings');
        return stores.settings.write(data, version);
      },
    },
    rbac: stores.rbac,
    secrets: {
      ...stores.secrets,
      async write(name, data, version, labels) {
        await take('secret');
        return stores.secrets.write(name, data, version, labels);
      },
    },
  });
  return {
    wrap,
    beforeNextSettingsWrite: (edit: () => Promise<void>) => (pending.settings = edit),
    beforeNextSecretWrite: (edit: () => Promise<void>) => (pending.secret = edit),
  };
}

describe('two replicas on a real API server', () => {
  const interpose = interposer();
  let one: AdminTestApp;
  let two: TestApp;
  let cookies: { one: string; two: string };
  const twoErrors: string[] = [];
  beforeAll(async () => {
    one = await startAdminTestApp('kube-apiserver', { wrapStores: interpose.wrap });
    // The second replica: the same production stores, the same service account, its own process state.
    const kubeConfig = loadKubeConfig({ kind: 'kubeconfig', path: one.real!.serverKubeconfigPath });
    two = await startTestApp({
      falkordb: one.falkordb,
      env: { SETTINGS_REFRESH_MS: '0', PUBLIC_ORIGIN: 'https://admin.corp.example' },
      deps: {
        adminStores: createKubeAdminStores(kubeConfig, NAMESPACE, (kind) => twoErrors.push(kind)),
        firstAdmin: { email: ADMIN.email, password: ADMIN.password },
      },
    });
    cookies = {
      one: await login(one.app, ADMIN.email, ADMIN.password),
      two: await login(two.app, ADMIN.email, ADMIN.password),
    };
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
  });

  const patch = (replica: 'one' | 'two', payload: unknown) =>
    (replica === 'one' ? one : two).app.inject({
      method: 'PATCH',
      url: '/api/settings/',
      headers: { cookie: cookies[replica] },
      payload: payload as never,
    });
  const stored = async () =>
    JSON.parse((await one.backdoor.settingsText()) ?? '{}') as { ui?: Record<string, unknown> };
  const newErrors = (before: number) => one.kubeErrors.slice(before);

  it('creates the settings ConfigMap once when both replicas save first: AlreadyExists (409) is retried as an update', async () => {
    interpose.beforeNextSettingsWrite(async () => {
      expect((await patch('two', { ui: { created_by: 'two' } })).statusCode).toBe(200);
    });
    const before = one.kubeErrors.length;
    const res = await patch('one', { ui: { also_by: 'one' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(newErrors(before)).toEqual(['409']);
    expect((await stored()).ui).toEqual({ created_by: 'two', also_by: 'one' });
  });

  it('retries a write whose resourceVersion went stale between its read and its write (the real 409), keeping both changes', async () => {
    interpose.beforeNextSettingsWrite(async () => {
      expect((await patch('two', { ui: { stale_two: 2 } })).statusCode).toBe(200);
    });
    const before = one.kubeErrors.length;
    const res = await patch('one', { ui: { stale_one: 1 } });
    expect(res.statusCode, res.body).toBe(200);
    expect(newErrors(before)).toEqual(['409']);
    expect((await stored()).ui).toMatchObject({ stale_one: 1, stale_two: 2 });
    expect(res.json<{ ui: Record<string, unknown> }>().ui).toMatchObject({ stale_one: 1, stale_two: 2 });
  });

  it('retries a hand edit with kubectl between the read and the write, keeping the hand edit', async () => {
    interpose.beforeNextSettingsWrite(async () => {
      const current = JSON.parse((await one.backdoor.settingsText())!) as Record<string, Record<string, unknown>>;
      await one.backdoor.editSettings(JSON.stringify({ ...current, ui: { ...current.ui, by_hand: true } }));
    });
    const before = one.kubeErrors.length;
    expect((await patch('one', { ui: { after_hand: true } })).statusCode).toBe(200);
    expect(newErrors(before)).toEqual(['409']);
    expect((await stored()).ui).toMatchObject({ by_hand: true, after_hand: true });
  });

  it('retries a stale write of the user list Secret: users created on both replicas at once both exist', async () => {
    interpose.beforeNextSecretWrite(async () => {
      const res = await two.app.inject({
        method: 'POST',
        url: '/api/users',
        headers: { cookie: cookies.two },
        payload: { email: 'two@corp.example', name: 'Two', role: 'viewer' },
      });
      expect(res.statusCode, res.body).toBe(201);
    });
    const before = one.kubeErrors.length;
    const res = await one.app.inject({
      method: 'POST',
      url: '/api/users',
      headers: { cookie: cookies.one },
      payload: { email: 'one@corp.example', name: 'One', role: 'viewer' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(newErrors(before)).toEqual(['409']);
    const users = JSON.parse((await one.backdoor.secret('graphdb-admin-users'))!['users.json']!) as { email: string }[];
    expect(users.map((u) => u.email).sort()).toEqual([ADMIN.email, 'one@corp.example', 'two@corp.example'].sort());
  });

  it('keeps every one of 20 PATCHes sent to both replicas at once', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => patch(i % 2 ? 'two' : 'one', { ui: { [`both_${i}`]: i } })),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    const ui = (await stored()).ui!;
    for (let i = 0; i < 20; i++) expect(ui[`both_${i}`]).toBe(i);
  });

  it('keeps every one of 10 users created on both replicas at once', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? two : one).app.inject({
          method: 'POST',
          url: '/api/users',
          headers: { cookie: i % 2 ? cookies.two : cookies.one },
          payload: { email: `many-${i}@corp.example`, name: `Many ${i}`, role: 'viewer' },
        }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(10).fill(201));
    const users = JSON.parse((await one.backdoor.secret('graphdb-admin-users'))!['users.json']!) as { email: string }[];
    for (let i = 0; i < 10; i++) expect(users.map((u) => u.email)).toContain(`many-${i}@corp.example`);
  });

  // Every settings field is bounded now (ui: 64 KiB), so no request can reach the API server's 1 MiB
  // ConfigMap limit: the bound answers first, and nothing is written on either replica.
  it('refuses settings beyond their bounds with 400 before Kubernetes is asked, leaving the settings as they were', async () => {
    const before = await one.backdoor.settingsText();
    const res = await patch('one', { ui: { big: 'x'.repeat(600_000) } });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(400);
    expect(await one.backdoor.settingsText()).toBe(before);
  });

  it('was never denied by the chart RBAC on either replica', () => {
    expect([...one.kubeErrors, ...twoErrors].filter((kind) => kind !== '409' && kind !== '422')).toEqual([]);
  });
});
