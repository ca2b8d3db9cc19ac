// Cluster reads that must behave the same on the Kubernetes API double and on a real API server: both suites
// seed `solo`, `pair` (replication), `shards` (sharding) and `sleepy` (stopped) in the cluster namespace, a
// cluster of another kind beside them, and `elsewhere` in team-b, then run these.
import type { FastifyInstance } from 'fastify';
import { expect, it } from 'vitest';

export interface ClusterReadContext {
  app: FastifyInstance;
  namespace: string;
  /** Sessions that may change settings and read clusters. */
  adminCookie: string;
  operatorCookie: string;
  viewerCookie: string;
}

export function sharedClusterReads(context: () => ClusterReadContext): void {
  const get = (url: string, as: 'operator' | 'viewer' = 'operator') => {
    const { app, operatorCookie, viewerCookie } = context();
    return app.inject({ method: 'GET', url, headers: { cookie: as === 'viewer' ? viewerCookie : operatorCookie } });
  };

  it('lists the FalkorDB clusters of its namespace (and no other kind) as normalised records', async () => {
    const { namespace } = context();
    const res = await get('/api/clusters', 'viewer');
    expect(res.statusCode, res.body).toBe(200);
    const clusters = res.json<{ clusters: { name: string }[] }>().clusters;
    expect(clusters.map((c) => c.name).sort()).toEqual(['pair', 'shards', 'sleepy', 'solo']);
    expect(clusters.find((c) => c.name === 'pair')).toEqual({
      name: 'pair',
      namespace,
      phase: 'Running',
      topology: 'replication',
      terminationPolicy: 'Delete',
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
      components: [{ name: 'shard', kind: 'sharding', shards: 3, replicas: 2, cpu: '1', memory: '1Gi' }],
    });
  });

  it('lists every namespace in multi-cluster mode, or the one asked for', async () => {
    const { app, adminCookie, namespace } = context();
    await app.inject({
      method: 'PATCH',
      url: '/api/settings/',
      headers: { cookie: adminCookie },
      payload: { features: { multi_cluster_mode: true } },
    });
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
    expect((await get('/api/clusters/solo')).json<{ cluster: { name: string } }>().cluster.name).toBe('solo');
    const wrong = await get('/api/clusters/elsewhere');
    expect(wrong.statusCode).toBe(404);
    expect(wrong.json()).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: `Cluster elsewhere not found in namespace ${namespace}`,
    });
    // Another namespace only in multi-cluster mode, like the list.
    expect((await get('/api/clusters/elsewhere?namespace=team-b')).statusCode).toBe(404);
    const { app, adminCookie } = context();
    await app.inject({
      method: 'PATCH',
      url: '/api/settings/',
      headers: { cookie: adminCookie },
      payload: { features: { multi_cluster_mode: true } },
    });
    expect((await get('/api/clusters/elsewhere?namespace=team-b')).statusCode).toBe(200);
    await app.inject({
      method: 'PATCH',
      url: '/api/settings/',
      headers: { cookie: adminCookie },
      payload: { features: { multi_cluster_mode: false } },
    });
  });
}
