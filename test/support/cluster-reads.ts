// Cluster reads that must behave the same on the Kubernetes API double and on a real API server: both suites
// seed seededClusters() (`solo`, `pair` (replication), `shards` (sharding) and `sleepy` (stopped) in the cluster
// namespace, a cluster of another kind beside them, and `elsewhere` in team-b), then run these.
import type { FastifyInstance } from 'fastify';
import { expect, it } from 'vitest';
import type { KubeObject } from './kube/kube-api-double.js';
import { replication, sharded, standalone } from './kube/kubeblocks-fixtures.js';
import { realOperations, validatorOf, type JsonSchema } from './conformance/real-operations.js';

export interface ClusterReadContext {
  app: FastifyInstance;
  namespace: string;
  /** A session cookie for each role (sessionsForEveryRole): the admin changes settings. */
  sessions: Record<'admin' | 'operator' | 'viewer', string>;
}

/** Turns the multi_cluster_mode feature on or off, as an admin. */
export async function setMultiClusterMode(app: FastifyInstance, adminCookie: string, on: boolean): Promise<void> {
  const res = await app.inject({
    method: 'PATCH',
    url: '/api/settings/',
    headers: { cookie: adminCookie },
    payload: { features: { multi_cluster_mode: on } },
  });
  expect(res.statusCode, res.body).toBe(200);
}

/**
 * The clusters both suites seed, each as KubeBlocks would have it (with its status): `solo`, `pair`, `shards` and
 * `sleepy` in the cluster namespace, a cluster of another kind beside them, and `elsewhere` in team-b.
 */
export function seededClusters(namespace: string): KubeObject[] {
  return [
    standalone('solo', namespace),
    replication('pair', namespace),
    sharded('shards', namespace),
    standalone('sleepy', namespace, 'Stopped'),
    standalone('elsewhere', 'team-b'),
    {
      ...standalone('redis-thing', namespace),
      metadata: {
        name: 'redis-thing',
        namespace,
        labels: { 'clusterdefinition.kubeblocks.io/name': 'redis' },
      },
    },
  ];
}

export function sharedClusterReads(context: () => ClusterReadContext): void {
  const get = (url: string, as: 'operator' | 'viewer' = 'operator') => {
    const { app, sessions } = context();
    return app.inject({ method: 'GET', url, headers: { cookie: sessions[as] } });
  };

  it('lists the FalkorDB clusters of its namespace (and no other kind) as normalised records', async () => {
    const { namespace } = context();
    const res = await get('/api/clusters', 'viewer');
    expect(res.statusCode, res.body).toBe(200);
    const clusters = res.json<{ clusters: { name: string }[] }>().clusters;
    expect(clusters.map((c) => c.name).sort()).toEqual(['pair', 'shards', 'sleepy', 'solo']);
    expect(res.json<{ total: number }>().total).toBe(4);
    expect(clusters.find((c) => c.name === 'pair')).toEqual({
      name: 'pair',
      namespace,
      creationTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
      state: 'Running',
      topology: 'replication',
      replicas: 2,
      version: '4.12.5',
      resources: { requests: { cpu: '1', memory: '2Gi' } },
      persistence: { enabled: true, size: '20Gi', accessMode: 'ReadWriteOnce' },
      sentinel: { enabled: true, replicas: 3 },
      sharding: { enabled: false },
      terminationPolicy: 'Delete',
      status: { state: 'Running', ready: true, replicas: 5 },
      phase: 'Running',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
      components: [
        {
          name: 'falkordb',
          kind: 'component',
          phase: 'Running',
          replicas: 2,
          serviceVersion: '4.12.5',
          cpu: '1',
          memory: '2Gi',
          storage: '20Gi',
        },
        {
          name: 'falkordb-sent',
          kind: 'component',
          phase: 'Running',
          replicas: 3,
          serviceVersion: '4.12.5',
          cpu: '0.2',
          memory: '0.2Gi',
          storage: '1Gi',
        },
      ],
    });
    expect(clusters.find((c) => c.name === 'shards')).toMatchObject({
      topology: 'cluster',
      replicas: 2,
      sharding: { enabled: true, shardCount: 3, replicas: 2 },
      components: [{ name: 'shard', kind: 'sharding', shards: 3, replicas: 2, cpu: '1', memory: '1Gi' }],
    });
  });

  it("answers the list, one cluster and its operations in the FalkorDB Enterprise admin API's shapes", async () => {
    const real = (path: string) => {
      const operation = realOperations().find((o) => o.method === 'GET' && o.path === path);
      return validatorOf(operation!.responses['200']!['application/json'] as JsonSchema);
    };
    const expectConforms = (path: string, body: unknown) => {
      const validate = real(path);
      expect(validate(body), `${path}: ${JSON.stringify(validate.errors)}`).toBe(true);
    };
    for (const url of ['/api/clusters/', '/api/clusters']) {
      const res = await get(url, 'viewer');
      expect(res.statusCode, res.body).toBe(200);
      expectConforms('/api/clusters/', res.json());
    }
    for (const name of ['solo', 'pair', 'shards', 'sleepy']) {
      const res = await get(`/api/clusters/${name}`);
      expect(res.statusCode, res.body).toBe(200);
      expectConforms('/api/clusters/{clusterName}', res.json());
      const operations = await get(`/api/clusters/${name}/operations`);
      expect(operations.statusCode, operations.body).toBe(200);
      expectConforms('/api/clusters/{clusterName}/operations', operations.json());
    }
    expect((await get('/api/clusters/nobody/operations')).statusCode).toBe(404);
  });

  it('lists every namespace in multi-cluster mode, or the one asked for', async () => {
    const { app, sessions, namespace } = context();
    await setMultiClusterMode(app, sessions.admin, true);
    const all = (await get('/api/clusters')).json<{ clusters: { name: string; namespace: string }[] }>().clusters;
    expect(all.map((c) => `${c.namespace}/${c.name}`).sort()).toEqual([
      `${namespace}/pair`,
      `${namespace}/shards`,
      `${namespace}/sleepy`,
      `${namespace}/solo`,
      'team-b/elsewhere',
    ]);
    const one = (await get('/api/clusters?namespace=team-b')).json<{ clusters: { name: string }[] }>().clusters;
    expect(one.map((c) => c.name)).toEqual(['elsewhere']);
  });

  it('reads one cluster, answering 404 for a cluster in another namespace than the one asked', async () => {
    const { namespace } = context();
    const solo = await get('/api/clusters/solo');
    expect(solo.json()).toMatchObject({ name: 'solo', topology: 'standalone', sentinel: { enabled: false } });
    expect((await get('/api/clusters/solo/')).json()).toEqual(solo.json());
    const wrong = await get('/api/clusters/elsewhere');
    expect(wrong.statusCode).toBe(404);
    expect(wrong.json()).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: `Cluster elsewhere not found in namespace ${namespace}`,
      code: 'not_found',
    });
    // Another namespace only in multi-cluster mode, like the list.
    expect((await get('/api/clusters/elsewhere?namespace=team-b')).statusCode).toBe(404);
    const { app, sessions } = context();
    await setMultiClusterMode(app, sessions.admin, true);
    expect((await get('/api/clusters/elsewhere?namespace=team-b')).statusCode).toBe(200);
    await setMultiClusterMode(app, sessions.admin, false);
  });
}
