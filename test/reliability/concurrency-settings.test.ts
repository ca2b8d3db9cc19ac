// 100 concurrent settings PATCHes of different fields over real HTTP: every one answers 200 and every field is in
// the stored document afterwards, for the file store, the Kubernetes store, and two replicas sharing one ConfigMap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS_CONFIGMAP } from '../../src/platform/kubernetes/kube-stores.js';
import { ADMIN, login, NAMESPACE, useAdminApp } from '../support/admin.js';
import { listen, type TestApp } from '../support/app.js';
import { startKubeApiDouble, type KubeApiDouble } from '../support/kube/kube-api-double.js';
import { startKubeReplica } from '../support/kube-app.js';

type Patch = Record<string, Record<string, unknown>>;
/** 100 serialised writes (each fsynced by the file store) take seconds; more on two busy cores. */
const SLOW_TEST_MS = 90_000;

/** Ten typed fields of the document and 90 console preferences: 100 PATCHes, each touching a different field. */
function hundredPatches(): Patch[] {
  const typed: Patch[] = [
    { features: { self_service_onboarding: true } },
    { features: { multi_cluster_mode: true } },
    { features: { backup_auto_schedule: true } },
    { oauth: { allowed_domains: ['corp.example'] } },
    { oauth: { role_attribute_strict: true } },
    { alpha_oauth: { client_id: 'concurrent-client' } },
    { beta_oauth: { tenant_id: 'tenant.example' } },
    { alpha_workspace: { domain: 'corp.example' } },
    { retention: { audit_log_retention_days: 77 } },
    { retention: { metrics_retention_days: 33 } },
  ];
  const preferences = Array.from({ length: 90 }, (_, i): Patch => ({ ui: { [`pref_${i}`]: i } }));
  return [...typed, ...preferences];
}

/** What the stored document must hold once every patch is in. */
function expectAllApplied(document: Record<string, Record<string, unknown>>): void {
  expect(document).toMatchObject({
    features: { self_service_onboarding: true, multi_cluster_mode: true, backup_auto_schedule: true },
    oauth: { allowed_domains: ['corp.example'], role_attribute_strict: true },
    alpha_oauth: { client_id: 'concurrent-client' },
    beta_oauth: { tenant_id: 'tenant.example' },
    alpha_workspace: { domain: 'corp.example' },
    retention: { audit_log_retention_days: 77, metrics_retention_days: 33 },
  });
  expect(document.ui).toEqual(Object.fromEntries(Array.from({ length: 90 }, (_, i) => [`pref_${i}`, i])));
}

/** Sends every patch at once, spread over the given servers in turn; returns the statuses. */
async function patchAll(
  targets: { baseUrl: string; cookie: string }[],
  patches: Patch[],
): Promise<{ status: number; body: string }[]> {
  return Promise.all(
    patches.map(async (payload, i) => {
      const target = targets[i % targets.length]!;
      const res = await fetch(`${target.baseUrl}/api/settings/`, {
        method: 'PATCH',
        headers: { cookie: target.cookie, 'content-type': 'application/json' },
        body: JSON.stringify(payload),
      });
      return { status: res.status, body: await res.text() };
    }),
  );
}

describe.each(['embedded', 'kubernetes'] as const)('100 concurrent settings PATCHes (%s store)', (adapter) => {
  const t = useAdminApp({ adapter, listen: true });

  it(
    'answers 200 to each and keeps every field',
    async () => {
      const [baseUrl, cookie] = [t.baseUrl, t.sessions.admin];
      const results = await patchAll([{ baseUrl, cookie }], hundredPatches());
      expect(results.filter((r) => r.status !== 200)).toEqual([]);
      expectAllApplied(JSON.parse((await t.backdoor.settingsText())!) as Record<string, Record<string, unknown>>);
      const served = await fetch(`${baseUrl}/api/settings/`, { headers: { cookie } });
      expectAllApplied((await served.json()) as Record<string, Record<string, unknown>>);
    },
    SLOW_TEST_MS,
  );
});

describe('100 concurrent settings PATCHes through two replicas sharing one ConfigMap', () => {
  let kube: KubeApiDouble;
  let replicas: TestApp[];
  let targets: { baseUrl: string; cookie: string }[];
  beforeAll(async () => {
    kube = await startKubeApiDouble();
    const first = await startKubeReplica(kube);
    replicas = [first, await startKubeReplica(kube, { falkordb: first.falkordb })];
    targets = [];
    for (const replica of replicas)
      targets.push({
        baseUrl: await listen(replica.app),
        cookie: await login(replica.app, ADMIN.email, ADMIN.password),
      });
  });
  afterAll(async () => {
    // The second replica borrows the first one's FalkorDB, so it closes first.
    await replicas[1]!.close();
    await replicas[0]!.close();
    await kube.close();
  });

  it(
    'answers 200 to each (conflicts between the replicas are retried) and keeps every field',
    async () => {
      // Writes of the settings ConfigMap: replacements, and its creation by the first patch that finds none (a POST to
      // the collection; only the settings ConfigMap is created here). Each patch ends in exactly one write that is
      // accepted, so refused writes are what goes beyond 100.
      const writes = () =>
        kube.requests.filter(
          (r) =>
            (r.method === 'PUT' && r.path.endsWith(`/configmaps/${SETTINGS_CONFIGMAP}`)) ||
            (r.method === 'POST' && r.path.endsWith(`/namespaces/${NAMESPACE}/configmaps`)),
        ).length;
      const writesBefore = writes();
      // Whether the two replicas collide on their own depends on timing (a loaded machine can serialise them): five
      // writes refused as stale make sure the retry path runs, besides whatever collisions happen.
      kube.injectConflicts('configmaps', 5);
      const results = await patchAll(targets, hundredPatches());
      expect(results.filter((r) => r.status !== 200)).toEqual([]);
      const stored = (kube.get('configmaps', NAMESPACE, SETTINGS_CONFIGMAP)?.data as Record<string, string>)[
        'settings.json'
      ]!;
      expectAllApplied(JSON.parse(stored) as Record<string, Record<string, unknown>>);
      // Conflicts were retried: besides the 100 accepted writes, at least the 5 refused ones were tried.
      expect(writes() - writesBefore).toBeGreaterThanOrEqual(105);
      for (const { baseUrl, cookie } of targets) {
        const served = await fetch(`${baseUrl}/api/settings/`, { headers: { cookie } });
        expectAllApplied((await served.json()) as Record<string, Record<string, unknown>>);
      }
    },
    SLOW_TEST_MS,
  );
});
