import { pino } from 'pino';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadKubeConfig } from '../../src/platform/kubernetes/kube-config.js';
import { createKubeBlocksClusters } from '../../src/platform/kubernetes/kubeblocks.js';
import { useAdminApp } from '../support/admin.js';
import { eventually } from '../support/wait.js';
import {
  advanceOpsRequest,
  CLUSTERS_V1,
  CLUSTERS_V1ALPHA1,
  legacyReplication,
  legacySharded,
  OPS_V1,
  OPS_V1ALPHA1,
  standalone,
} from '../support/kube/kubeblocks-fixtures.js';
import { ageOf } from '../../src/admin/clusters/cluster-service.js';
import { realOperations, validatorOf, type JsonSchema } from '../support/conformance/real-operations.js';
import { seededClusters, setMultiClusterMode, sharedClusterReads } from '../support/cluster-reads.js';
import { sharedClusterWrites, sharedLegacyClusterWrites } from '../support/cluster-writes.js';

const NS = 'graphdb-system';

describe('clusters on KubeBlocks 1.x', () => {
  const t = useAdminApp({ adapter: 'kubernetes', kubeBlocks: true, crds: [CLUSTERS_V1, OPS_V1] });
  beforeAll(() => {
    const kube = t.kube!;
    for (const cluster of seededClusters(NS)) kube.put(CLUSTERS_V1, cluster.metadata.namespace!, cluster);
    kube.put(CLUSTERS_V1, NS, {
      apiVersion: 'apps.kubeblocks.io/v1',
      kind: 'Cluster',
      metadata: { name: 'broken', namespace: NS, labels: { 'clusterdefinition.kubeblocks.io/name': 'falkordb' } },
      spec: { componentSpecs: 'not-a-list' },
    });
  });
  beforeEach(() => setMultiClusterMode(t.app, t.sessions.admin, false));

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, cookie = t.sessions.operator) =>
    t.app.inject({ method, url, headers: { cookie }, ...(payload === undefined ? {} : { payload: payload as never }) });

  it("reads a cluster's rendered redis.conf (the data component's, first shard first), credentials left out", async () => {
    const configMap = (name: string, instance: string, text: string) =>
      t.kube!.put('configmaps', NS, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name,
          namespace: NS,
          labels: { 'app.kubernetes.io/instance': instance, 'app.kubernetes.io/managed-by': 'kubeblocks' },
        },
        data: { 'redis.conf': text },
      });
    configMap('pair-falkordb-sent-falkordb-sentinel-config', 'pair', 'sentinel resolve-hostnames yes\n');
    configMap(
      'pair-falkordb-falkordb-replication-config',
      'pair',
      '# written by KubeBlocks\n\nmaxmemory 1gb\nmasterauth s3cret\nuser default on >s3cret ~* &* +@all\n' +
        'loadmodule /var/lib/falkordb/bin/falkordb.so THREAD_COUNT 4\nsave 900 1\nsave 60 10000\n',
    );
    configMap('shards-shard-b7x-falkordb-cluster-config', 'shards', 'cluster-enabled yes\nport 6379\n');
    configMap('shards-shard-a2k-falkordb-cluster-config', 'shards', 'cluster-enabled yes\nport 6380\n');
    configMap('shards-shard-a2k-falkordb-metrics-config', 'shards', 'not: the redis.conf\n');

    const pair = await call('GET', `/api/clusters/pair/config?namespace=${NS}`, undefined, t.sessions.viewer);
    expect(pair.statusCode, pair.body).toBe(200);
    expect(pair.json()).toEqual({
      configMapName: 'pair-falkordb-falkordb-replication-config',
      parameters: [
        { key: 'maxmemory', value: '1gb' },
        { key: 'loadmodule', value: '/var/lib/falkordb/bin/falkordb.so THREAD_COUNT 4' },
        { key: 'save', value: '900 1' },
        { key: 'save', value: '60 10000' },
      ],
    });
    expect(pair.body).not.toContain('s3cret');
    const shards = await call('GET', '/api/clusters/shards/config', undefined, t.sessions.viewer);
    expect(shards.json()).toEqual({
      configMapName: 'shards-shard-a2k-falkordb-cluster-config',
      parameters: [
        { key: 'cluster-enabled', value: 'yes' },
        { key: 'port', value: '6380' },
      ],
    });
    // Not rendered yet (solo has none), and a cluster that does not exist: 404 in the admin error shape.
    const none = await call('GET', '/api/clusters/solo/config', undefined, t.sessions.viewer);
    expect(none.statusCode).toBe(404);
    expect(none.json()).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: `No configuration found for cluster solo in namespace ${NS}`,
      code: 'not_found',
    });
    expect((await call('GET', '/api/clusters/nobody/config', undefined, t.sessions.viewer)).statusCode).toBe(404);
    expect(t.kube!.requests).toContainEqual(
      expect.objectContaining({ method: 'GET', path: `/api/v1/namespaces/${NS}/configmaps` }),
    );
  });

  it('asks for its namespace through the label selector, skipping objects that do not parse', async () => {
    const res = await call('GET', '/api/clusters', undefined, t.sessions.viewer);
    expect(res.json<{ clusters: { name: string }[] }>().clusters.map((c) => c.name)).not.toContain('broken');
    expect(t.kube!.requests).toContainEqual(
      expect.objectContaining({ method: 'GET', path: `/apis/apps.kubeblocks.io/v1/namespaces/${NS}/clusters` }),
    );
  });

  it('shares one upstream list among concurrent callers, but never one sent before a write that has completed', async () => {
    const listPath = `/apis/apps.kubeblocks.io/v1/namespaces/${NS}/clusters`;
    const lists = () => t.kube!.requests.filter((r) => r.method === 'GET' && r.path === listPath).length;
    // A slow API server: five callers at once are answered by one list.
    t.kube!.delayRequests({ method: 'GET', pathIncludes: listPath }, 300);
    try {
      const before = lists();
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => call('GET', '/api/clusters/', undefined, t.sessions.viewer)),
      );
      for (const answer of answers) expect(answer.statusCode).toBe(200);
      expect(lists() - before).toBe(1);

      // A slow list is on its way when a cluster is created (quickly: the delay is over for new requests); a list
      // asked for after the create must not share the early one, which cannot show the new cluster.
      t.kube!.clearFaults();
      t.kube!.delayRequests({ method: 'GET', pathIncludes: listPath }, 1500);
      const early = call('GET', '/api/clusters/', undefined, t.sessions.viewer);
      await new Promise((resolve) => setTimeout(resolve, 100));
      t.kube!.clearFaults();
      const created = await call('POST', '/api/clusters/', { name: 'after-write', namespace: NS, spec: {} });
      expect(created.statusCode, created.body).toBe(201);
      const listsBeforeLate = lists();
      const late = await call('GET', '/api/clusters/', undefined, t.sessions.viewer);
      // Its own list (the double computes a list's answer only after its delay, so the content alone would not tell).
      expect(lists()).toBe(listsBeforeLate + 1);
      expect(late.json<{ clusters: { name: string }[] }>().clusters.map((c) => c.name)).toContain('after-write');
      await early;
    } finally {
      t.kube!.clearFaults();
      await call('DELETE', `/api/clusters/after-write?namespace=${NS}`);
    }
  });

  it('reads cascade as a boolean and gracePeriodSeconds as a whole number on delete, refusing looser spellings', async () => {
    const created = await call('POST', '/api/clusters/', { name: 'typed-delete', namespace: NS, spec: {} });
    expect(created.statusCode, created.body).toBe(201);
    for (const query of [
      'cascade=maybe',
      'cascade=1',
      'gracePeriodSeconds=1e1',
      'gracePeriodSeconds=',
      'gracePeriodSeconds=0x1',
    ]) {
      const refused = await call('DELETE', `/api/clusters/typed-delete?namespace=${NS}&${query}`);
      expect(refused.statusCode, `${query}: ${refused.body}`).toBe(400);
      expect(refused.json<{ message: string }>().message, query).toContain(query.split('=')[0]);
    }
    expect(
      (await call('GET', `/api/clusters/typed-delete?namespace=${NS}`, undefined, t.sessions.viewer)).statusCode,
    ).toBe(200);
    const deleted = await call(
      'DELETE',
      `/api/clusters/typed-delete?namespace=${NS}&cascade=true&gracePeriodSeconds=0`,
    );
    expect(deleted.statusCode, deleted.body).toBe(204);
  });

  it('parses an unchanged deployment once, and answers every change: status, spec, a delete and a recreate', async () => {
    const kube = t.kube!;
    const port = createKubeBlocksClusters(
      loadKubeConfig({ kind: 'kubeconfig', path: kube.kubeconfigPath }),
      pino({ level: 'silent' }),
    );
    const record = async (name: string) => (await port.list({ namespace: NS })).find((c) => c.name === name);
    const listed = async (name: string) => {
      const res = await call('GET', '/api/clusters/', undefined, t.sessions.viewer);
      expect(res.statusCode, res.body).toBe(200);
      return res
        .json<{ clusters: { name: string; state: string; replicas: number }[] }>()
        .clusters.find((c) => c.name === name);
    };
    kube.put(CLUSTERS_V1, NS, standalone('kept', NS));
    try {
      const first = await record('kept');
      // The same object version: the same record, frozen, so no caller can change it for the next.
      expect(await record('kept')).toBe(first);
      expect(Object.isFrozen(first)).toBe(true);
      expect(Object.isFrozen(first!.components[0])).toBe(true);
      expect(await listed('kept')).toMatchObject({ state: 'Running', replicas: 1 });

      // A status change (a new resourceVersion): a new record, and the list says so.
      kube.put(CLUSTERS_V1, NS, standalone('kept', NS, 'Failed'));
      const failed = await record('kept');
      expect(failed).not.toBe(first);
      expect(failed!.phase).toBe('Failed');
      expect(await listed('kept')).toMatchObject({ state: 'Failed' });

      // Deleted and created again under the same name with another spec (a new uid).
      kube.remove(CLUSTERS_V1, NS, 'kept');
      expect(await listed('kept')).toBeUndefined();
      const again = standalone('kept', NS, 'Stopped');
      (again.spec as { componentSpecs: { replicas: number }[] }).componentSpecs[0]!.replicas = 3;
      kube.put(CLUSTERS_V1, NS, again);
      expect(await listed('kept')).toMatchObject({ state: 'Stopped', replicas: 3 });
    } finally {
      kube.remove(CLUSTERS_V1, NS, 'kept');
    }
  });

  const context = () => ({ app: t.app, namespace: NS, sessions: t.sessions });
  sharedClusterReads(context);

  it('answers the credentials from the account Secret, audited, with the password in no log line', async () => {
    const password = 'Sup3r-s3cret-acc0unt';
    t.kube!.put('secrets', NS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'pair-falkordb-account-default', namespace: NS },
      data: {
        username: Buffer.from('default').toString('base64'),
        password: Buffer.from(password).toString('base64'),
      },
    });
    const res = await call('GET', '/api/clusters/pair/credentials', undefined, t.sessions.operator);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({
      hostname: `pair-falkordb.${NS}.svc.cluster.local`,
      port: 6379,
      username: 'default',
      password,
      internalHostname: `pair-falkordb.${NS}.svc.cluster.local`,
    });
    const real = realOperations().find(
      (o) => o.method === 'GET' && o.path === '/api/clusters/{clusterName}/credentials',
    )!;
    expect(validatorOf(real.responses['200']!['application/json'] as JsonSchema)(res.json())).toBe(true);
    // A viewer may list, get and read clusters, but not their password.
    const viewer = await call('GET', '/api/clusters/pair/credentials', undefined, t.sessions.viewer);
    expect(viewer.statusCode).toBe(403);
    expect(viewer.json<{ message: string }>().message).toBe(
      `Insufficient permissions for clusters:update in namespace ${NS}`,
    );
    expect(viewer.body).not.toContain(password);
    // No Secret (solo has none): 404 naming no secret content.
    const missing = await call('GET', '/api/clusters/solo/credentials');
    expect(missing.statusCode).toBe(404);
    expect(missing.json<{ message: string }>().message).toBe(`No account Secret for cluster solo in namespace ${NS}`);
    // Audited as a read of credentials, without the password.
    let entries: { action: string; resourceName?: string; result: string }[] = [];
    await eventually(async () => {
      const audit = await call('GET', '/api/audit/?action=cluster.credentials_read', undefined, t.sessions.admin);
      entries = audit.json<{ logs: typeof entries }>().logs ?? [];
      return entries.length >= 3;
    }, 5_000);
    expect(entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ action: 'cluster.credentials_read', resourceName: 'pair', result: 'success' }),
        expect.objectContaining({ action: 'cluster.credentials_read', resourceName: 'solo', result: 'failure' }),
        expect.objectContaining({
          action: 'cluster.credentials_read',
          resourceName: 'pair',
          result: 'failure',
          message: `Insufficient permissions for clusters:update in namespace ${NS}`,
        }),
      ]),
    );
    expect(JSON.stringify(entries)).not.toContain(password);
    expect(t.logs.text).not.toContain(password);
    expect(t.logs.text).toContain('cluster.credentials_read');
  });

  it("answers the create form's JSON schema, which accepts a create body and refuses a bad one", async () => {
    const res = await call('GET', '/api/clusters/schema', undefined, t.sessions.viewer);
    expect(res.statusCode, res.body).toBe(200);
    const { schema } = res.json<{ schema: JsonSchema }>();
    const real = realOperations().find((o) => o.method === 'GET' && o.path === '/api/clusters/schema')!;
    expect(validatorOf(real.responses['200']!['application/json'] as JsonSchema)(res.json())).toBe(true);
    const form = validatorOf({ ...schema, $schema: undefined });
    expect(form({ name: 'pair', namespace: NS, spec: { topology: 'replication', replicas: 2 } })).toBe(true);
    expect(form({ name: 'Bad_Name', namespace: NS, spec: {} })).toBe(false);
    expect(form({ name: 'pair', namespace: NS, spec: { topology: 'ring' } })).toBe(false);
  });

  it('lists the Pods of a cluster by its instance label, in the real shape, 404 for a cluster that does not exist', async () => {
    const pod = (
      name: string,
      instance: string,
      role: string,
      ready: boolean,
      extra: Record<string, unknown> = {},
    ) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: NS,
        creationTimestamp: new Date(Date.now() - 3 * 3600_000).toISOString(),
        labels: {
          'app.kubernetes.io/instance': instance,
          'app.kubernetes.io/managed-by': 'kubeblocks',
          'apps.kubeblocks.io/component-name': 'falkordb',
          'kubeblocks.io/role': role,
        },
      },
      spec: {
        hostname: name,
        subdomain: `${instance}-falkordb-headless`,
        containers: [{ name: 'falkordb', ports: [{ name: 'falkordb', containerPort: 6379, protocol: 'TCP' }] }],
      },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
        containerStatuses: [{ name: 'falkordb', restartCount: ready ? 0 : 4, ...extra }],
      },
    });
    t.kube!.put(
      'pods',
      NS,
      pod('pair-falkordb-1', 'pair', 'secondary', false, { state: { waiting: { reason: 'CrashLoopBackOff' } } }),
    );
    t.kube!.put('pods', NS, pod('pair-falkordb-0', 'pair', 'primary', true));
    t.kube!.put('pods', NS, pod('solo-falkordb-0', 'solo', 'primary', true));
    const res = await call('GET', '/api/clusters/pair/pods', undefined, t.sessions.viewer);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      pods: [
        {
          name: 'pair-falkordb-0',
          namespace: NS,
          status: 'Running',
          ready: true,
          restartCount: 0,
          age: expect.stringMatching(/^\d+[smhd]$/) as unknown,
          role: 'primary',
          hostname: 'pair-falkordb-0',
          ports: [{ name: 'falkordb', port: 6379, protocol: 'TCP' }],
          cpuPercent: null,
          memoryPercent: null,
          dns: `pair-falkordb-0.pair-falkordb-headless.${NS}.svc.cluster.local`,
        },
        expect.objectContaining({ name: 'pair-falkordb-1', status: 'CrashLoopBackOff', ready: false, restartCount: 4 }),
      ],
      total: 2,
    });
    const real = realOperations().find((o) => o.method === 'GET' && o.path === '/api/clusters/{clusterName}/pods')!;
    const validate = validatorOf(real.responses['200']!['application/json'] as JsonSchema);
    expect(validate(res.json()), JSON.stringify(validate.errors)).toBe(true);
    expect(t.kube!.requests).toContainEqual(
      expect.objectContaining({ method: 'GET', path: `/api/v1/namespaces/${NS}/pods` }),
    );
    expect((await call('GET', '/api/clusters/nobody/pods')).statusCode).toBe(404);
    const now = Date.parse('2026-01-10T12:00:00Z');
    expect(
      ['2026-01-10T11:59:15Z', '2026-01-10T11:48:00Z', '2026-01-10T07:00:00Z', '2026-01-07T12:00:00Z', 'x'].map((at) =>
        ageOf(at, now),
      ),
    ).toEqual(['45s', '12m', '5h', '3d', '']);
  });

  it('keeps every cluster route in its namespace while multi_cluster_mode is off (404, no Kubernetes call elsewhere)', async () => {
    const before = t.kube!.requests.length;
    const routes: [method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown][] = [
      ['GET', '/api/clusters/elsewhere?namespace=team-b'],
      ['GET', '/api/clusters/elsewhere/ops?namespace=team-b'],
      ['GET', '/api/clusters/elsewhere/ops/elsewhere-restart-abcde?namespace=team-b'],
      ['DELETE', '/api/clusters/elsewhere/ops/elsewhere-restart-abcde?namespace=team-b'],
      ['POST', '/api/clusters/elsewhere/ops/elsewhere-restart-abcde/cancel?namespace=team-b', {}],
      ['POST', '/api/clusters/elsewhere/ops/restart?namespace=team-b', {}],
      ['POST', '/api/clusters/elsewhere/ops/start?namespace=team-b', {}],
      ['POST', '/api/clusters/elsewhere/ops/stop?namespace=team-b', {}],
      ['POST', '/api/clusters/elsewhere/ops/horizontal-scale?namespace=team-b', { replicas: 3 }],
      ['POST', '/api/clusters/elsewhere/ops/vertical-scale?namespace=team-b', { requests: { cpu: '1' } }],
      ['POST', '/api/clusters/elsewhere/ops/volume-expand?namespace=team-b', { storage: '50Gi' }],
      ['POST', '/api/clusters/elsewhere/ops/switchover?namespace=team-b', { instanceName: 'elsewhere-falkordb-0' }],
      [
        'POST',
        '/api/clusters/elsewhere/ops/configure?namespace=team-b',
        { parameters: [{ key: 'TIMEOUT', value: '1000' }] },
      ],
    ];
    for (const [method, url, payload] of routes) {
      const res = await call(method, url, payload, t.sessions.admin);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(404);
      expect(res.json()).toEqual({
        statusCode: 404,
        error: 'Not Found',
        message: 'Cluster elsewhere not found in namespace team-b',
        code: 'not_found',
      });
    }
    expect(t.kube!.requests.slice(before).filter((r) => r.path.includes('/namespaces/team-b/'))).toEqual([]);
    // The list already answered nothing there; asking for the cluster namespace itself is unaffected.
    expect((await call('GET', '/api/clusters?namespace=team-b')).json()).toEqual({ clusters: [], total: 0 });
    expect((await call('GET', `/api/clusters/solo?namespace=${NS}`)).statusCode).toBe(200);
    // Invalid input is still reported as such.
    expect(
      (
        await call(
          'POST',
          '/api/clusters/elsewhere/ops/horizontal-scale?namespace=team-b',
          { replicas: 0 },
          t.sessions.admin,
        )
      ).statusCode,
    ).toBe(400);

    await setMultiClusterMode(t.app, t.sessions.admin, true);
    expect((await call('GET', '/api/clusters/elsewhere?namespace=team-b')).statusCode).toBe(200);
    const restarted = await call('POST', '/api/clusters/elsewhere/ops/restart?namespace=team-b', {});
    expect(restarted.statusCode, restarted.body).toBe(202);
    expect((await call('GET', '/api/clusters/elsewhere/ops?namespace=team-b')).statusCode).toBe(200);
  });

  // What the server stored is read from the double; "creating no OpsRequest" means not even asking for one.
  sharedClusterWrites(() => ({
    ...context(),
    opsRequest: (name) => Promise.resolve(t.kube!.get(OPS_V1, NS, name)!),
    storedCluster: (name) => Promise.resolve(t.kube!.get(CLUSTERS_V1, NS, name)),
    opsRequestCount: () =>
      Promise.resolve(t.kube!.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/opsrequests')).length),
    addCluster: (cluster) => {
      t.kube!.put(CLUSTERS_V1, NS, cluster);
      return Promise.resolve();
    },
    advanceOpsRequest: (name) => Promise.resolve(advanceOpsRequest(t.kube!, OPS_V1, NS, name)),
  }));

  it('surfaces a 422 from the API server as 422', async () => {
    t.kube!.failRequests(
      { method: 'POST', pathIncludes: '/opsrequests' },
      422,
      'Invalid',
      'OpsRequest.operations.kubeblocks.io "x" is invalid: spec.type: Unsupported value',
    );
    const res = await call('POST', '/api/clusters/solo/ops/restart', {});
    expect(res.statusCode).toBe(422);
    expect(res.json<{ message: string }>().message).toContain('is invalid');
  });
});

describe('clusters on KubeBlocks 0.9 (v1alpha1)', () => {
  const t = useAdminApp({ adapter: 'kubernetes', kubeBlocks: true, crds: [CLUSTERS_V1ALPHA1, OPS_V1ALPHA1] });
  beforeAll(() => {
    t.kube!.put(CLUSTERS_V1ALPHA1, NS, legacyReplication('old', NS));
    t.kube!.put(CLUSTERS_V1ALPHA1, NS, legacySharded('oldshards', NS));
  });

  it('detects the API version at the first request when start-up could not', async () => {
    const port = createKubeBlocksClusters(
      loadKubeConfig({ kind: 'kubeconfig', path: t.kube!.kubeconfigPath }),
      pino({ level: 'silent' }),
    );
    expect((await port.list({ namespace: NS })).map((c) => c.name)).toEqual(['old', 'oldshards']);
  });

  sharedLegacyClusterWrites(() => ({
    app: t.app,
    adminCookie: t.sessions.admin,
    opsRequest: (name) => Promise.resolve(t.kube!.get(OPS_V1ALPHA1, NS, name)!),
    opsRequestCount: () =>
      Promise.resolve(t.kube!.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/opsrequests')).length),
  }));
});
