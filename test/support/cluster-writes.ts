// Cluster writes (day-2 operations at /api/clusters/{clusterName}/ops/…) that must behave the same on the Kubernetes API double and on a real API server: both suites seed
// the clusters of cluster-reads.ts, then run these. What the server asked Kubernetes for is read back from what was
// stored (the double's objects, or the real API server's), so a write is checked by its effect, not by its answer.
import type { FastifyInstance } from 'fastify';
import { expect, it } from 'vitest';
import type { KubeObject } from './kube/kube-api-double.js';
import { replication, standalone, standaloneManifest } from './kube/kubeblocks-fixtures.js';
import { setMultiClusterMode, type ClusterReadContext } from './cluster-reads.js';
import { sleep } from './wait.js';

export interface ClusterWriteContext extends ClusterReadContext {
  /** An OpsRequest of the cluster namespace, as stored. */
  opsRequest: (name: string) => Promise<KubeObject>;
  /** How many OpsRequests the server has created in the cluster namespace so far. */
  opsRequestCount: () => Promise<number>;
  /** Adds a Cluster, with its status, as KubeBlocks would have it. */
  addCluster: (cluster: KubeObject) => Promise<void>;
  /** Moves an OpsRequest of the cluster namespace one phase on, as the KubeBlocks controller does; returns the phase. */
  advanceOpsRequest: (name: string) => Promise<string>;
  /** A Cluster object of the cluster namespace as stored (undefined when there is none). */
  storedCluster?: (name: string) => Promise<KubeObject | undefined>;
  /** Whether the store validates objects against the real CRDs (a real API server), so a bad spec is a 422. */
  validatesSchemas?: boolean;
  /** What the store adds to every OpsRequest spec: the real CRD's schema defaults (the double adds none). */
  opsSpecDefaults?: Record<string, unknown>;
}

type Method = 'GET' | 'POST' | 'DELETE' | 'PATCH';

function caller(app: () => FastifyInstance) {
  return (method: Method, url: string, payload: unknown, cookie: string) =>
    app().inject({ method, url, headers: { cookie }, ...(payload === undefined ? {} : { payload: payload as never }) });
}

const opsName = (res: { json<T>(): T }) => res.json<{ opsName: string }>().opsName;

export function sharedClusterWrites(context: () => ClusterWriteContext): void {
  const inject = caller(() => context().app);
  const call = (method: Method, url: string, payload?: unknown, as: 'operator' | 'viewer' = 'operator') =>
    inject(method, url, payload, context().sessions[as]);
  const ops = (name: string) => context().opsRequest(name);
  /** An OpsRequest spec as stored: what the server sent, with the store's defaults. */
  const stored = (spec: Record<string, unknown>) => ({ ...context().opsSpecDefaults, ...spec });

  it('creates clusters of every topology from the structured spec (201, the real Cluster shape), and deletes one (204)', async () => {
    const { namespace, storedCluster } = context();
    const created = await call('POST', '/api/clusters/', {
      name: 'fresh-pair',
      namespace,
      labels: { team: 'graphs' },
      spec: {
        topology: 'replication',
        version: '4.12.5',
        replicas: 2,
        resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '1', memory: '2Gi' } },
        persistence: { enabled: true, size: '5Gi', storageClass: 'fast' },
        sentinel: {
          enabled: true,
          replicas: 3,
          persistence: { enabled: true, size: '1Gi' },
          services: [{ name: 'sentinel-lb', serviceType: 'LoadBalancer' }],
          schedulingPolicy: { nodeSelector: { pool: 'sentinels' } },
        },
        services: [
          {
            name: 'falkordb-lb',
            serviceType: 'LoadBalancer',
            annotations: { 'service.beta.kubernetes.io/aws-load-balancer-internal': 'true' },
            podService: false,
          },
        ],
        disableExporter: true,
        schedulingPolicy: {
          nodeSelector: { pool: 'db' },
          tolerations: [{ key: 'db', operator: 'Exists', effect: 'NoSchedule' }],
        },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({
      name: 'fresh-pair',
      namespace,
      topology: 'replication',
      replicas: 2,
      version: '4.12.5',
      resources: { requests: { cpu: '500m', memory: '1Gi' } },
      persistence: { enabled: true, size: '5Gi', storageClass: 'fast' },
      sentinel: { enabled: true, replicas: 3 },
    });
    if (storedCluster) {
      const stored = (await storedCluster('fresh-pair'))!;
      expect(stored.metadata.labels).toMatchObject({
        team: 'graphs',
        'clusterdefinition.kubeblocks.io/name': 'falkordb',
      });
      expect(stored.spec).toMatchObject({
        clusterDef: 'falkordb',
        topology: 'replication',
        terminationPolicy: 'Delete',
        schedulingPolicy: {
          nodeSelector: { pool: 'db' },
          tolerations: [{ key: 'db', operator: 'Exists', effect: 'NoSchedule' }],
        },
        componentSpecs: [
          expect.objectContaining({
            name: 'falkordb',
            serviceVersion: '4.12.5',
            replicas: 2,
            resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '1', memory: '2Gi' } },
            volumeClaimTemplates: [
              expect.objectContaining({
                name: 'data',
                spec: expect.objectContaining({
                  storageClassName: 'fast',
                  resources: { requests: { storage: '5Gi' } },
                }) as unknown,
              }),
            ],
            services: [
              expect.objectContaining({
                name: 'falkordb-lb',
                serviceType: 'LoadBalancer',
                annotations: { 'service.beta.kubernetes.io/aws-load-balancer-internal': 'true' },
                podService: false,
              }),
            ],
            disableExporter: true,
          }),
          expect.objectContaining({
            name: 'falkordb-sent',
            replicas: 3,
            // The real CRD defaults podService to false.
            services: [expect.objectContaining({ name: 'sentinel-lb', serviceType: 'LoadBalancer' })],
            schedulingPolicy: { nodeSelector: { pool: 'sentinels' } },
            volumeClaimTemplates: [
              expect.objectContaining({
                name: 'data',
                spec: expect.objectContaining({ resources: { requests: { storage: '1Gi' } } }) as unknown,
              }),
            ],
          }),
        ],
      });
    }
    const sharded = await call('POST', '/api/clusters', {
      name: 'fresh-shards',
      namespace,
      spec: {
        sharding: {
          enabled: true,
          shardCount: 3,
          replicas: 2,
          services: [{ name: 'shard-np', serviceType: 'NodePort', podService: true }],
          schedulingPolicy: { tolerations: [{ key: 'shards', operator: 'Exists' }] },
        },
      },
    });
    expect(sharded.statusCode, sharded.body).toBe(201);
    expect(sharded.json()).toMatchObject({
      topology: 'cluster',
      sharding: { enabled: true, shardCount: 3, replicas: 2 },
    });
    if (storedCluster)
      expect((await storedCluster('fresh-shards'))!.spec).toMatchObject({
        topology: 'cluster',
        shardings: [
          {
            name: 'shard',
            shards: 3,
            template: expect.objectContaining({
              name: 'falkordb',
              replicas: 2,
              services: [expect.objectContaining({ name: 'shard-np', serviceType: 'NodePort', podService: true })],
              schedulingPolicy: { tolerations: [{ key: 'shards', operator: 'Exists' }] },
            }) as unknown,
          },
        ],
      });
    const single = await call('POST', '/api/clusters/', { name: 'fresh-solo', namespace, spec: {} });
    expect(single.statusCode, single.body).toBe(201);
    expect(single.json()).toMatchObject({
      topology: 'standalone',
      replicas: 1,
      persistence: { enabled: true, size: '10Gi' },
    });

    const again = await call('POST', '/api/clusters/', { name: 'fresh-solo', namespace, spec: {} });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({
      statusCode: 409,
      error: 'Conflict',
      message: `Cluster fresh-solo already exists in namespace ${namespace}`,
      code: 'conflict',
    });

    const removed = await call('DELETE', `/api/clusters/fresh-solo?namespace=${namespace}`);
    expect(removed.statusCode, removed.body).toBe(204);
    if (storedCluster) {
      const left = await storedCluster('fresh-solo');
      // A real API server keeps the object while its finalizers run; it is then marked for deletion.
      expect(left === undefined || left.metadata.deletionTimestamp !== undefined).toBe(true);
    }
    for (const name of ['fresh-pair', 'fresh-shards']) await call('DELETE', `/api/clusters/${name}`);
    expect((await call('DELETE', '/api/clusters/nobody')).statusCode).toBe(404);
  });

  it('creates a cluster from a YAML manifest (201), reads it back as YAML, replaces it (204), with 400/403/409 first', async () => {
    const { namespace, storedCluster } = context();
    const manifest = (name: string, ns = namespace, terminationPolicy = 'Delete') =>
      standaloneManifest(name, ns, { terminationPolicy });
    const created = await call('POST', '/api/clusters/yaml', { yaml: manifest('from-yaml') });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ name: 'from-yaml', namespace, topology: 'standalone', replicas: 1 });
    const listed = (await call('GET', '/api/clusters/')).json<{ clusters: { name: string }[] }>().clusters;
    expect(listed.map((c) => c.name)).toContain('from-yaml');
    expect((await call('POST', '/api/clusters/yaml', { yaml: manifest('from-yaml') })).statusCode).toBe(409);

    const read = await call('GET', `/api/clusters/from-yaml/yaml?namespace=${namespace}`);
    expect(read.statusCode, read.body).toBe(200);
    const text = read.json<{ yaml: string }>().yaml;
    expect(text).toContain('name: from-yaml');
    expect(text).toContain('terminationPolicy: Delete');
    expect(text).not.toContain('managedFields');

    const replaced = await call('POST', `/api/clusters/from-yaml/yaml?namespace=${namespace}`, {
      yaml: manifest('from-yaml', namespace, 'WipeOut'),
    });
    expect(replaced.statusCode, replaced.body).toBe(204);
    if (storedCluster) expect((await storedCluster('from-yaml'))!.spec).toMatchObject({ terminationPolicy: 'WipeOut' });
    const renamed = await call('POST', `/api/clusters/from-yaml/yaml`, { yaml: manifest('other-name') });
    expect(renamed.statusCode).toBe(400);
    expect(renamed.json<{ message: string }>().message).toBe(
      `The manifest must name cluster from-yaml in namespace ${namespace}`,
    );
    expect((await call('POST', '/api/clusters/nobody/yaml', { yaml: manifest('nobody') })).statusCode).toBe(404);
    expect((await call('GET', '/api/clusters/nobody/yaml')).statusCode).toBe(404);

    for (const [yaml, message] of [
      ['a: [unclosed', expect.stringMatching(/^Invalid YAML: /) as unknown],
      ['- a\n- b\n', 'The manifest must be one YAML mapping (a Cluster object)'],
      [
        manifest('x').replace(`  namespace: ${namespace}\n`, ''),
        'metadata.namespace is required, a Kubernetes namespace name',
      ],
      [manifest('x').replace('kind: Cluster', 'kind: Pod'), 'kind must be Cluster'],
      [
        manifest('x').replace('clusterDef: falkordb', 'clusterDef: redis'),
        'Only FalkorDB clusters are managed here (clusterDef "redis")',
      ],
    ] as const) {
      const res = await call('POST', '/api/clusters/yaml', { yaml });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json<{ message: string }>().message).toEqual(message);
    }
    const outside = await call('POST', '/api/clusters/yaml', { yaml: manifest('x', 'team-b') });
    expect(outside.statusCode).toBe(403);
    expect((await call('POST', '/api/clusters/yaml', { yaml: manifest('x') }, 'viewer')).statusCode).toBe(403);
    // The server's own schema of what a manifest may carry refuses it before the API server sees it.
    const invalid = await call('POST', '/api/clusters/yaml', {
      yaml: manifest('bad-spec').replace('  componentSpecs:', '  componentSpecs: not-a-list\n  ignored:'),
    });
    expect(invalid.statusCode, invalid.body).toBe(400);
    expect(invalid.json<{ message: string }>().message).toMatch(/^The manifest field spec\.componentSpecs /);
    await call('DELETE', `/api/clusters/from-yaml`);
  });

  it('upgrades the FalkorDB components (not the sentinel) with an Upgrade OpsRequest; 400 for a Failed cluster', async () => {
    const { namespace } = context();
    const res = await call('POST', `/api/clusters/pair/upgrade?namespace=${namespace}`, { version: '4.14.0' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      message: expect.stringMatching(/^Upgrade of cluster pair requested \(OpsRequest pair-upgrade-/) as unknown,
      clusterName: 'pair',
      opsName: expect.stringMatching(/^pair-upgrade-/) as unknown,
      version: '4.14.0',
    });
    const name = res.json<{ opsName: string }>().opsName;
    expect(res.json<{ message: string }>().message).toContain(`(OpsRequest ${name})`);
    expect((await ops(name)).spec).toEqual(
      stored({
        clusterName: 'pair',
        type: 'Upgrade',
        upgrade: { components: [{ componentName: 'falkordb', serviceVersion: '4.14.0' }] },
      }),
    );
    const same = await call('POST', '/api/clusters/solo/upgrade', { version: '4.12.5' });
    expect(same.statusCode).toBe(409);
    expect(same.json<{ message: string }>().message).toBe('Cluster solo already runs version 4.12.5');
    expect((await call('POST', '/api/clusters/solo/upgrade', {})).statusCode).toBe(400);
    await context().addCluster(standalone('wrecked', namespace, 'Failed'));
    const failed = await call('POST', '/api/clusters/wrecked/upgrade', { version: '4.14.0' });
    expect(failed.statusCode).toBe(400);
    expect(failed.json<{ message: string }>().message).toBe('Cluster wrecked is Failed; repair it before upgrading');
    expect((await call('POST', '/api/clusters/nobody/upgrade', { version: '4.14.0' })).statusCode).toBe(404);
    expect((await call('POST', '/api/clusters/solo/upgrade', { version: '4.14.0' }, 'viewer')).statusCode).toBe(403);
  });

  it('patches replicas, resources, storage (grow only), sentinel and terminationPolicy into the Cluster (200)', async () => {
    const { namespace, storedCluster } = context();
    await context().addCluster(replication('patchme', namespace));
    const res = await call('PATCH', `/api/clusters/patchme?namespace=${namespace}`, {
      replicas: 3,
      resources: { requests: { cpu: '2', memory: '4Gi' } },
      persistence: { enabled: true, size: '40Gi' },
      sentinel: { replicas: 5, services: [{ name: 'sentinel-np', serviceType: 'NodePort' }] },
      services: [{ name: 'falkordb-lb', serviceType: 'LoadBalancer', podService: true }],
      disableExporter: true,
      terminationPolicy: 'WipeOut',
      labels: { team: 'graphs' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ name: 'patchme', replicas: 3, sentinel: { enabled: true, replicas: 5 } });
    if (storedCluster) {
      const stored = (await storedCluster('patchme'))!;
      expect(stored.metadata.labels).toMatchObject({ team: 'graphs' });
      expect(stored.spec).toMatchObject({
        terminationPolicy: 'WipeOut',
        componentSpecs: [
          expect.objectContaining({
            name: 'falkordb',
            replicas: 3,
            resources: { requests: { cpu: '2', memory: '4Gi' }, limits: { cpu: '1', memory: '2Gi' } },
            volumeClaimTemplates: [
              expect.objectContaining({
                spec: expect.objectContaining({ resources: { requests: { storage: '40Gi' } } }) as unknown,
              }),
            ],
            services: [expect.objectContaining({ name: 'falkordb-lb', serviceType: 'LoadBalancer', podService: true })],
            disableExporter: true,
          }),
          expect.objectContaining({
            name: 'falkordb-sent',
            replicas: 5,
            services: [expect.objectContaining({ name: 'sentinel-np', serviceType: 'NodePort' })],
          }),
        ],
      });
      // An empty list removes the Services; the exporter comes back.
      const undone = await call('PATCH', '/api/clusters/patchme', { services: [], disableExporter: false });
      expect(undone.statusCode, undone.body).toBe(200);
      const data = ((await storedCluster('patchme'))!.spec as { componentSpecs: Record<string, unknown>[] })
        .componentSpecs[0]!;
      expect(data.services ?? []).toEqual([]);
      expect(data.disableExporter ?? false).toBe(false);
    }
    for (const [body, status, message] of [
      [{ persistence: { enabled: true, size: '10Gi' } }, 400, 'Volumes only grow: 10Gi is less than the current 40Gi'],
      [{ sentinel: { replicas: 4 } }, 400, 'The sentinel needs an odd number of replicas, at least 3 (got 4)'],
      [{ sharding: { shardCount: 4 } }, 400, 'sharding applies only to a sharded cluster'],
      [{ version: '4.14.0' }, 422, 'Not supported by this server yet: version (use POST …/upgrade for the version)'],
      [{ falkordbArgs: { THREAD_COUNT: '4' } }, 422, 'Not supported by this server yet: falkordbArgs'],
    ] as const) {
      const refused = await call('PATCH', '/api/clusters/patchme', body);
      expect(refused.statusCode, refused.body).toBe(status);
      expect(refused.json<{ message: string }>().message).toBe(message);
    }
    expect((await call('PATCH', '/api/clusters/nobody', { replicas: 2 })).statusCode).toBe(404);
    expect((await call('PATCH', '/api/clusters/patchme', { replicas: 2 }, 'viewer')).statusCode).toBe(403);
    await call('DELETE', '/api/clusters/patchme');
  });

  it('refuses a create outside the managed namespaces (403), bad topology rules (400), what it cannot apply (422), and a viewer (403)', async () => {
    const { namespace } = context();
    const outside = await call('POST', '/api/clusters/', { name: 'elsewhere-new', namespace: 'team-b', spec: {} });
    expect(outside.statusCode).toBe(403);
    expect(outside.json<{ message: string }>().message).toBe('Namespace team-b is not managed by this server');
    for (const [spec, message] of [
      [{ topology: 'replication', replicas: 1 }, 'A replication deployment needs at least 2 replicas (got 1)'],
      [
        { topology: 'replication', sentinel: { enabled: true, replicas: 2 } },
        'The sentinel needs an odd number of replicas, at least 3 (got 2)',
      ],
      [
        { topology: 'standalone', sharding: { enabled: true } },
        'spec.sharding.enabled needs topology cluster (got standalone)',
      ],
    ] as const) {
      const res = await call('POST', '/api/clusters/', { name: 'bad-rules', namespace, spec });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json<{ message: string }>().message).toBe(message);
    }
    const invalid = await call('POST', '/api/clusters/', { name: 'Bad_Name', namespace, spec: {} });
    expect(invalid.statusCode).toBe(400);
    const unsupported = await call('POST', '/api/clusters/', {
      name: 'with-domain',
      namespace,
      spec: { externalDomain: 'db.example.com' },
    });
    expect(unsupported.statusCode).toBe(422);
    expect(unsupported.json<{ message: string }>().message).toBe(
      'Not supported by this server yet: spec.externalDomain',
    );
    const twoUnsupported = await call('POST', '/api/clusters/', {
      name: 'with-args',
      namespace,
      spec: {
        topology: 'replication',
        falkordbArgs: { THREAD_COUNT: '4' },
        sentinel: { enabled: true, componentDefinition: 'falkordb-sent-1.0' },
      },
    });
    expect(twoUnsupported.statusCode).toBe(422);
    expect(twoUnsupported.json<{ message: string }>().message).toBe(
      'Not supported by this server yet: spec.falkordbArgs, spec.sentinel.componentDefinition',
    );
    for (const services of [
      [{ name: 'lb', serviceType: 'External' }],
      [
        { name: 'lb', serviceType: 'LoadBalancer' },
        { name: 'lb', serviceType: 'NodePort' },
      ],
      [{ name: 'a-service-name-longer-than-25', serviceType: 'NodePort' }],
    ]) {
      const res = await call('POST', '/api/clusters/', { name: 'bad-services', namespace, spec: { services } });
      expect(res.statusCode, JSON.stringify(services)).toBe(400);
    }
    const viewer = await call('POST', '/api/clusters/', { name: 'by-viewer', namespace, spec: {} }, 'viewer');
    expect(viewer.statusCode).toBe(403);
    expect((await call('DELETE', '/api/clusters/solo', undefined, 'viewer')).statusCode).toBe(403);
    const listed = (await call('GET', '/api/clusters/')).json<{ clusters: { name: string }[] }>().clusters;
    expect(listed.map((c) => c.name)).not.toContain('bad-rules');
  });

  it('restarts with an OpsRequest labelled for the cluster, named by generateName, answering 202 at once', async () => {
    const res = await call('POST', '/api/clusters/pair/ops/restart', {});
    expect(res.statusCode, res.body).toBe(202);
    const name = opsName(res);
    expect(name).toMatch(/^pair-restart-[a-z0-9]{5}$/);
    expect(res.json()).toEqual({
      message: `Restart of cluster pair requested (OpsRequest ${name})`,
      opsName: name,
      clusterName: 'pair',
      type: 'Restart',
      phase: 'Pending',
    });
    const created = await ops(name);
    expect(created.metadata.labels).toEqual({
      'app.kubernetes.io/instance': 'pair',
      'operations.kubeblocks.io/ops-type': 'Restart',
    });
    expect(created.spec).toEqual(
      stored({ clusterName: 'pair', type: 'Restart', restart: [{ componentName: 'falkordb' }] }),
    );
    const sentinel = await call('POST', '/api/clusters/pair/ops/restart', {
      componentName: 'falkordb-sent',
      force: true,
    });
    expect((await ops(opsName(sentinel))).spec).toEqual(
      stored({
        clusterName: 'pair',
        type: 'Restart',
        force: true,
        restart: [{ componentName: 'falkordb-sent' }],
      }),
    );
  });

  it('turns target replicas into scale-out/in deltas and shard totals into counts', async () => {
    const { namespace, addCluster } = context();
    const out = await call('POST', '/api/clusters/pair/ops/horizontal-scale', { replicas: 3 });
    expect(out.statusCode, out.body).toBe(202);
    expect((await ops(opsName(out))).spec).toEqual(
      stored({
        clusterName: 'pair',
        type: 'HorizontalScaling',
        horizontalScaling: [{ componentName: 'falkordb', scaleOut: { replicaChanges: 1 } }],
      }),
    );
    const sentinels = await call('POST', '/api/clusters/pair/ops/horizontal-scale', {
      componentName: 'falkordb-sent',
      replicas: 5,
    });
    expect((await ops(opsName(sentinels))).spec).toMatchObject({
      horizontalScaling: [{ componentName: 'falkordb-sent', scaleOut: { replicaChanges: 2 } }],
    });
    const big = replication('trio', namespace);
    (big.spec as { componentSpecs: { replicas: number }[] }).componentSpecs[0]!.replicas = 3;
    await addCluster(big);
    const inward = await call('POST', '/api/clusters/trio/ops/horizontal-scale', { replicas: 2 });
    expect(inward.statusCode, inward.body).toBe(202);
    expect((await ops(opsName(inward))).spec).toMatchObject({
      horizontalScaling: [{ componentName: 'falkordb', scaleIn: { replicaChanges: 1 } }],
    });
    const shards = await call('POST', '/api/clusters/shards/ops/horizontal-scale', { shardCount: 5 });
    expect(shards.statusCode, shards.body).toBe(202);
    expect((await ops(opsName(shards))).spec).toEqual(
      stored({
        clusterName: 'shards',
        type: 'HorizontalScaling',
        horizontalScaling: [{ componentName: 'shard', shards: 5 }],
      }),
    );
  });

  it('scales cpu and memory, and expands a volume', async () => {
    const vertical = await call('POST', '/api/clusters/solo/ops/vertical-scale', {
      requests: { cpu: '500m', memory: '1Gi' },
      limits: { cpu: '1', memory: '2Gi' },
    });
    expect(vertical.statusCode, vertical.body).toBe(202);
    expect((await ops(opsName(vertical))).spec).toEqual(
      stored({
        clusterName: 'solo',
        type: 'VerticalScaling',
        verticalScaling: [
          { componentName: 'falkordb', requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '1', memory: '2Gi' } },
        ],
      }),
    );
    const volume = await call('POST', '/api/clusters/solo/ops/volume-expand', { storage: '30Gi' });
    expect(volume.statusCode, volume.body).toBe(202);
    expect((await ops(opsName(volume))).spec).toEqual(
      stored({
        clusterName: 'solo',
        type: 'VolumeExpansion',
        volumeExpansion: [{ componentName: 'falkordb', volumeClaimTemplates: [{ name: 'data', storage: '30Gi' }] }],
      }),
    );
  });

  it('reconfigures known parameters with valid values, null clearing one, and switches over', async () => {
    const res = await call('POST', '/api/clusters/solo/ops/configure', {
      parameters: [
        { key: 'TIMEOUT', value: '1000' },
        { key: 'CMD_INFO', value: 'no' },
        { key: 'THREAD_COUNT', value: null },
      ],
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json<{ message: string }>().message).toContain('THREAD_COUNT takes effect after a restart');
    expect((await ops(opsName(res))).spec).toEqual(
      stored({
        clusterName: 'solo',
        type: 'Reconfiguring',
        reconfigures: [
          {
            componentName: 'falkordb',
            parameters: [{ key: 'TIMEOUT', value: '1000' }, { key: 'CMD_INFO', value: 'no' }, { key: 'THREAD_COUNT' }],
          },
        ],
      }),
    );
    const switchover = await call('POST', '/api/clusters/pair/ops/switchover', {
      instanceName: 'pair-falkordb-0',
      candidateName: 'pair-falkordb-1',
    });
    expect(switchover.statusCode, switchover.body).toBe(202);
    expect((await ops(opsName(switchover))).spec).toEqual(
      stored({
        clusterName: 'pair',
        type: 'Switchover',
        switchover: [{ componentName: 'falkordb', instanceName: 'pair-falkordb-0', candidateName: 'pair-falkordb-1' }],
      }),
    );
  });

  const refusals: [url: string, body: unknown, status: number, message: (namespace: string) => string][] = [
    [
      '/api/clusters/pair/ops/horizontal-scale',
      { componentName: 'nope', replicas: 2 },
      400,
      () => 'Component nope does not exist in cluster pair (components: falkordb, falkordb-sent)',
    ],
    ['/api/clusters/pair/ops/horizontal-scale', { replicas: 0 }, 400, () => 'replicas must be at least 1'],
    ['/api/clusters/shards/ops/horizontal-scale', { shardCount: 2 }, 400, () => 'shardCount must be at least 3'],
    ['/api/clusters/pair/ops/horizontal-scale', {}, 400, () => 'Give replicas or shardCount (the desired totals)'],
    [
      '/api/clusters/pair/ops/horizontal-scale',
      { shardCount: 4 },
      400,
      () => 'Component falkordb is not sharded; shardCount applies only to a sharded cluster',
    ],
    [
      '/api/clusters/shards/ops/horizontal-scale',
      { shardCount: 4, replicas: 3 },
      400,
      () => 'KubeBlocks changes replicas and shards in separate operations',
    ],
    [
      '/api/clusters/pair/ops/horizontal-scale',
      { replicas: 1 },
      422,
      () => 'Component falkordb of a replication cluster needs at least 2 replicas (got 1)',
    ],
    [
      '/api/clusters/pair/ops/horizontal-scale',
      { componentName: 'falkordb-sent', replicas: 4 },
      422,
      () => 'Sentinel component falkordb-sent needs an odd number of replicas, at least 3 (got 4)',
    ],
    [
      '/api/clusters/pair/ops/horizontal-scale',
      { replicas: 2 },
      409,
      () => 'Component falkordb already has 2 replicas; nothing to scale',
    ],
    [
      '/api/clusters/sleepy/ops/horizontal-scale',
      { replicas: 2 },
      409,
      () => 'Cluster sleepy is Stopped; HorizontalScaling needs it to be Running',
    ],
    [
      '/api/clusters/pair/ops/vertical-scale',
      { requests: { cpu: 'lots' } },
      400,
      () => 'requests.cpu must be a Kubernetes quantity such as 500m, 2 or 4Gi (got "lots")',
    ],
    ['/api/clusters/pair/ops/vertical-scale', {}, 400, () => 'Give requests or limits (cpu and/or memory)'],
    [
      '/api/clusters/pair/ops/vertical-scale',
      { requests: { memory: '4Gi' }, limits: { memory: '2Gi' } },
      422,
      () => 'requests.memory (4Gi) is more than limits.memory (2Gi)',
    ],
    [
      '/api/clusters/solo/ops/volume-expand',
      { storage: '10Gi' },
      422,
      () => 'Volume data of falkordb is 20Gi; a volume can only grow (asked for 10Gi)',
    ],
    [
      '/api/clusters/solo/ops/volume-expand',
      { storage: 'big' },
      400,
      () => 'storage must be a Kubernetes quantity such as 500m, 2 or 4Gi (got "big")',
    ],
    [
      '/api/clusters/sleepy/ops/volume-expand',
      { storage: '40Gi' },
      409,
      () => 'Cluster sleepy is Stopped; VolumeExpansion needs it to be Running',
    ],
    ['/api/clusters/pair/ops/configure', { parameters: [] }, 400, () => 'Give at least one parameter to change'],
    [
      '/api/clusters/pair/ops/configure',
      { parameters: [{ key: 'maxmemory', value: '1gb' }] },
      400,
      () => 'Unknown FalkorDB parameter maxmemory',
    ],
    [
      '/api/clusters/pair/ops/configure',
      { parameters: [{ key: 'TIMEOUT', value: 'soon' }] },
      400,
      () => 'TIMEOUT takes an integer of at least 0 (got "soon")',
    ],
    [
      '/api/clusters/pair/ops/configure',
      { parameters: [{ key: 'CMD_INFO', value: 'maybe' }] },
      400,
      () => 'CMD_INFO takes yes or no (got "maybe")',
    ],
    [
      '/api/clusters/pair/ops/configure',
      {
        parameters: [
          { key: 'TIMEOUT', value: '1' },
          { key: 'TIMEOUT', value: '2' },
        ],
      },
      400,
      () => 'Parameter TIMEOUT is given twice',
    ],
    [
      '/api/clusters/solo/ops/switchover',
      { instanceName: 'solo-falkordb-0' },
      422,
      () => 'Component falkordb has 1 replica; a switchover needs a second one to promote',
    ],
    [
      '/api/clusters/pair/ops/switchover',
      { instanceName: 'other-falkordb-0' },
      400,
      () => "Instance other-falkordb-0 is not one of cluster pair's pods",
    ],
    [
      '/api/clusters/pair/ops/restart',
      { componentName: 'ghost' },
      400,
      () => 'Component ghost does not exist in cluster pair (components: falkordb, falkordb-sent)',
    ],
    [
      '/api/clusters/sleepy/ops/restart',
      {},
      409,
      () => 'Cluster sleepy is Stopped; Restart needs it to be Running or Failed or Abnormal',
    ],
    ['/api/clusters/solo/ops/start', {}, 409, () => 'Cluster solo is Running; Start needs it to be Stopped'],
    ['/api/clusters/sleepy/ops/stop', {}, 409, () => 'Cluster sleepy is Stopped; Stop needs it to be Running'],
    [
      '/api/clusters/missing/ops/restart',
      {},
      404,
      (namespace) => `Cluster missing not found in namespace ${namespace}`,
    ],
  ];
  it.each(refusals)('refuses POST %s %j with %i, creating no OpsRequest', async (url, body, status, message) => {
    const before = await context().opsRequestCount();
    const res = await call('POST', url, body);
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json<{ statusCode: number; message: string }>()).toMatchObject({ statusCode: status });
    expect(res.json<{ message: string }>().message).toContain(message(context().namespace));
    expect(await context().opsRequestCount()).toBe(before);
  });

  it('starts a stopped cluster and stops a running one', async () => {
    expect((await call('POST', '/api/clusters/sleepy/ops/start', {})).statusCode).toBe(202);
    const stop = await call('POST', '/api/clusters/solo/ops/stop', {});
    expect((await ops(opsName(stop))).spec).toEqual(stored({ clusterName: 'solo', type: 'Stop' }));
  });

  it('lists operations newest first, reads one, and deletes it, as the controller advances them', async () => {
    const { namespace, addCluster, advanceOpsRequest } = context();
    await addCluster(standalone('tracked', namespace));
    const first = opsName(await call('POST', '/api/clusters/tracked/ops/restart', {}));
    await sleep(1100);
    const second = opsName(
      await call('POST', '/api/clusters/tracked/ops/configure', { parameters: [{ key: 'TIMEOUT', value: '5' }] }),
    );
    const phases: string[] = [];
    for (let i = 0; i < 4; i++) phases.push(await advanceOpsRequest(first));
    expect(phases).toEqual(['Pending', 'Creating', 'Running', 'Succeed']);
    const res = await call('GET', '/api/clusters/tracked/ops', undefined, 'viewer');
    expect(res.statusCode).toBe(200);
    const listed = res.json<{ operations: Record<string, unknown>[]; total: number }>();
    expect(listed.total).toBe(2);
    expect(listed.operations.map((o) => o.name)).toEqual([second, first]);
    expect(listed.operations[1]).toMatchObject({
      name: first,
      namespace,
      type: 'Restart',
      phase: 'Succeed',
      progress: '2/2',
      message: 'OpsRequest is Succeed',
      startTimestamp: expect.any(String) as unknown,
      completionTimestamp: expect.any(String) as unknown,
      creationTimestamp: expect.any(String) as unknown,
    });
    expect(listed.operations[0]).toMatchObject({ type: 'Reconfiguring', phase: 'Pending', progress: '0/0' });
    expect(listed.operations[0]).not.toHaveProperty('completionTimestamp');
    const page = (await call('GET', '/api/clusters/tracked/ops?limit=1&offset=1', undefined, 'viewer')).json<unknown>();
    expect(page).toMatchObject({ operations: [{ name: first }], total: 2 });

    const one = await call('GET', `/api/clusters/tracked/ops/${first}`, undefined, 'viewer');
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual(listed.operations[1]);
    // Another cluster's operation is not this one's.
    expect((await call('GET', `/api/clusters/solo/ops/${first}`, undefined, 'viewer')).statusCode).toBe(404);

    expect((await call('DELETE', `/api/clusters/tracked/ops/${first}`, undefined, 'viewer')).statusCode).toBe(403);
    const deleted = await call('DELETE', `/api/clusters/tracked/ops/${first}`);
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect(deleted.body).toBe('');
    const gone = await call('GET', `/api/clusters/tracked/ops/${first}`, undefined, 'viewer');
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: `OpsRequest ${first} not found for cluster tracked in namespace ${namespace}`,
      code: 'not_found',
    });
    expect((await call('DELETE', `/api/clusters/tracked/ops/${first}`)).statusCode).toBe(404);
  });

  it('cancels a running scaling (spec.cancel), and refuses other types and phases with 409', async () => {
    const { namespace, addCluster, advanceOpsRequest } = context();
    await addCluster(replication('cancelme', namespace));
    const scaling = opsName(await call('POST', '/api/clusters/cancelme/ops/horizontal-scale', { replicas: 4 }));
    // Pending: not yet running.
    const early = await call('POST', `/api/clusters/cancelme/ops/${scaling}/cancel`, {});
    expect(early.statusCode, early.body).toBe(409);
    expect(early.json<{ message: string }>().message).toBe(
      `OpsRequest ${scaling} is Pending; only a Creating or Running one can be cancelled`,
    );
    for (let i = 0; i < 3; i++) await advanceOpsRequest(scaling);
    expect((await call('POST', `/api/clusters/cancelme/ops/${scaling}/cancel`, {}, 'viewer')).statusCode).toBe(403);
    const cancelled = await call('POST', `/api/clusters/cancelme/ops/${scaling}/cancel`, {});
    expect(cancelled.statusCode, cancelled.body).toBe(202);
    expect(cancelled.json()).toEqual({
      message: `Cancellation of OpsRequest ${scaling} requested; KubeBlocks rolls the HorizontalScaling back`,
      opsName: scaling,
      clusterName: 'cancelme',
      type: 'HorizontalScaling',
      phase: 'Cancelling',
    });
    expect((await ops(scaling)).spec).toMatchObject({ cancel: true, type: 'HorizontalScaling' });

    const restart = opsName(await call('POST', '/api/clusters/cancelme/ops/restart', {}));
    const refused = await call('POST', `/api/clusters/cancelme/ops/${restart}/cancel`, {});
    expect(refused.statusCode).toBe(409);
    expect(refused.json<{ message: string }>().message).toBe(
      `OpsRequest ${restart} is a Restart; only HorizontalScaling and VerticalScaling can be cancelled`,
    );
    expect((await ops(restart)).spec).not.toHaveProperty('cancel');
    expect((await call('POST', '/api/clusters/cancelme/ops/nope-123/cancel', {})).statusCode).toBe(404);
  });

  it('lets a viewer read but not change clusters (403 with the specified message), and an operator change them', async () => {
    const { app, sessions, namespace } = context();
    const denied = await call('POST', '/api/clusters/solo/ops/restart', {}, 'viewer');
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      message: `Insufficient permissions for clusters:update in namespace ${namespace}`,
      code: 'forbidden',
    });
    // Another namespace is asked about only in multi-cluster mode (without it: 404).
    await setMultiClusterMode(app, sessions.admin, true);
    const deniedOther = await call('POST', '/api/clusters/elsewhere/ops/restart?namespace=team-b', {}, 'viewer');
    expect(deniedOther.json<{ message: string }>().message).toBe(
      'Insufficient permissions for clusters:update in namespace team-b',
    );
    expect((await call('POST', '/api/clusters/solo/ops/restart', {})).statusCode).toBe(202);
    expect((await app.inject({ method: 'GET', url: '/api/clusters/solo/ops' })).statusCode).toBe(401);
  });
}

export interface LegacyClusterWriteContext {
  app: FastifyInstance;
  adminCookie: string;
  /** An OpsRequest (apps.kubeblocks.io/v1alpha1) of the cluster namespace, as stored. */
  opsRequest: (name: string) => Promise<KubeObject>;
  /** How many OpsRequests the server has created in the cluster namespace so far. */
  opsRequestCount: () => Promise<number>;
  /** What the store adds to every OpsRequest spec: the real CRD's schema defaults (the double adds none). */
  opsSpecDefaults?: Record<string, unknown>;
}

/**
 * KubeBlocks 0.9 (v1alpha1 only): both suites seed the replicated cluster `old` (legacyReplication) and the sharded
 * `oldshards` (legacySharded), then run these.
 */
export function sharedLegacyClusterWrites(context: () => LegacyClusterWriteContext): void {
  it('detects the older API (v1 clusters are not served) and speaks its dialect', async () => {
    const { app, adminCookie, opsRequest, opsSpecDefaults } = context();
    const call = caller(() => app);
    const list = await call('GET', '/api/clusters', undefined, adminCookie);
    expect(list.json<{ clusters: unknown[] }>().clusters).toMatchObject([
      { name: 'old', topology: 'replication', components: [{ replicas: 2, storage: '10Gi' }] },
      {
        name: 'oldshards',
        topology: 'cluster',
        components: [{ name: 'shard', kind: 'sharding', shards: 3, replicas: 2, storage: '10Gi' }],
      },
    ]);
    const scale = await call('POST', '/api/clusters/old/ops/horizontal-scale', { replicas: 4 }, adminCookie);
    expect(scale.statusCode, scale.body).toBe(202);
    const scaled = await opsRequest(opsName(scale));
    expect(scaled.apiVersion).toBe('apps.kubeblocks.io/v1alpha1');
    expect(scaled.spec).toEqual({
      ...opsSpecDefaults,
      clusterName: 'old',
      type: 'HorizontalScaling',
      horizontalScaling: [{ componentName: 'falkordb', replicas: 4 }],
    });
    const reconfigure = await call(
      'POST',
      '/api/clusters/old/ops/configure',
      { parameters: [{ key: 'TIMEOUT', value: '10' }] },
      adminCookie,
    );
    expect(reconfigure.statusCode, reconfigure.body).toBe(202);
    expect((await opsRequest(opsName(reconfigure))).spec).toMatchObject({
      reconfigure: {
        componentName: 'falkordb',
        configurations: [
          { name: 'falkordb-config', keys: [{ key: 'redis.conf', parameters: [{ key: 'TIMEOUT', value: '10' }] }] },
        ],
      },
    });
    const switchover = await call(
      'POST',
      '/api/clusters/old/ops/switchover',
      { instanceName: 'old-falkordb-0', candidateName: 'old-falkordb-1' },
      adminCookie,
    );
    expect(switchover.statusCode, switchover.body).toBe(202);
    expect((await opsRequest(opsName(switchover))).spec).toMatchObject({
      switchover: [{ componentName: 'falkordb', instanceName: 'old-falkordb-1' }],
    });
  });

  it('refuses a shard count on 0.9 with 422, creating nothing: its OpsRequest has no shards, which the schema would drop', async () => {
    const { app, adminCookie, opsRequest, opsRequestCount, opsSpecDefaults } = context();
    const call = caller(() => app);
    const before = await opsRequestCount();
    const res = await call('POST', '/api/clusters/oldshards/ops/horizontal-scale', { shardCount: 4 }, adminCookie);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toEqual({
      statusCode: 422,
      error: 'Unprocessable Entity',
      message:
        'KubeBlocks 0.9 cannot change the shard count of shard with an OpsRequest; change spec.shardingSpecs of cluster oldshards instead',
      code: 'unprocessable',
    });
    expect(await opsRequestCount()).toBe(before);
    // The replicas of every shard still scale the 0.9 way (an absolute count).
    const replicas = await call('POST', '/api/clusters/oldshards/ops/horizontal-scale', { replicas: 3 }, adminCookie);
    expect(replicas.statusCode, replicas.body).toBe(202);
    expect((await opsRequest(opsName(replicas))).spec).toEqual({
      ...opsSpecDefaults,
      clusterName: 'oldshards',
      type: 'HorizontalScaling',
      horizontalScaling: [{ componentName: 'shard', replicas: 3 }],
    });
  });
}
