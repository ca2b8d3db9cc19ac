// The real KubeBlocks CRDs (KubeBlocks' Go module, config/crd/bases/, fetched by scripts/ensure-kubeblocks-crds.sh)
// in a real API server: every CRD of the groups the server's features use installs unchanged and is served, and the
// Cluster CRD's own CEL rules hold against the Cluster objects the tests play KubeBlocks with.
import {
  ApiException,
  ApiextensionsV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KUBEBLOCKS_1X, KUBEBLOCKS_1X_GROUPS, releaseCrdFiles } from '../support/kube/kubeblocks-crds.js';
import { replication, sharded, standalone } from '../support/kube/kubeblocks-fixtures.js';
import { readCrd, startRealApiServer, type RealApiServer } from '../support/kube/real-apiserver.js';
import { createWithStatus } from '../support/kube/real-kubeblocks.js';

const NS = 'graphdb-system';

describe(`the real KubeBlocks ${KUBEBLOCKS_1X} CRDs in a real API server`, () => {
  let api: RealApiServer;
  let files: string[];
  beforeAll(async () => {
    files = await releaseCrdFiles(KUBEBLOCKS_1X, KUBEBLOCKS_1X_GROUPS);
    api = await startRealApiServer({ namespaces: [NS], crds: files });
  });
  afterAll(() => api?.close());

  const rejection = async (create: Promise<unknown>): Promise<{ code: number; body: string }> => {
    const error = await create.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiException);
    return { code: (error as ApiException<string>).code, body: String((error as ApiException<string>).body) };
  };

  it('installs every CRD of the apps, operations, dataprotection, parameters and workloads groups, Established', async () => {
    const expected = (await Promise.all(files.map(readCrd))).map((crd) => crd.metadata!.name!).sort();
    expect(expected).toContain('clusters.apps.kubeblocks.io');
    expect(expected).toContain('opsrequests.operations.kubeblocks.io');
    expect(expected).toContain('backups.dataprotection.kubeblocks.io');
    expect(expected).toContain('parameters.parameters.kubeblocks.io');
    expect(expected).toContain('instancesets.workloads.kubeblocks.io');
    const { items } = await api.admin.makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition();
    const established = items
      .filter((crd) => crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'))
      .map((crd) => crd.metadata!.name!)
      .sort();
    expect(established).toEqual(expected);
  });

  // Shipped without a conversion stanza (KubeBlocks' installer adds its webhook), so the API server converts between
  // the served versions with strategy None: only apiVersion changes. The server reads and writes v1 only.
  it('serves Cluster at v1 (stored) and v1alpha1 with conversion None, as shipped', async () => {
    const crd = await api.admin
      .makeApiClient(ApiextensionsV1Api)
      .readCustomResourceDefinition({ name: 'clusters.apps.kubeblocks.io' });
    expect(crd.spec.conversion?.strategy).toBe('None');
    expect(crd.spec.versions.map((v) => [v.name, v.served, v.storage])).toEqual([
      ['v1', true, true],
      ['v1alpha1', true, false],
    ]);
  });

  it('accepts the Cluster of every topology the tests play KubeBlocks with, status included', async () => {
    for (const cluster of [standalone('solo', NS), replication('pair', NS), sharded('shards', NS)]) {
      const created = await createWithStatus(api.admin, cluster);
      expect(created.status).toEqual(cluster.status);
    }
    const listed = (await api.admin.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
      group: 'apps.kubeblocks.io',
      version: 'v1',
      namespace: NS,
      plural: 'clusters',
    })) as { items: KubernetesObject[] };
    expect(listed.items.map((c) => c.metadata?.name).sort()).toEqual(['pair', 'shards', 'solo']);
  });

  it("enforces the Cluster CRD's CEL rules: a component named twice, and a topology changed after creation", async () => {
    const objects = KubernetesObjectApi.makeApiClient(api.admin);
    const twice = replication('twice', NS);
    const spec = twice.spec as { componentSpecs: { name: string }[] };
    spec.componentSpecs[1]!.name = spec.componentSpecs[0]!.name;
    delete twice.status;
    const duplicated = await rejection(objects.create(twice as KubernetesObject));
    expect(duplicated.code).toBe(422);
    expect(duplicated.body).toContain('duplicated component');

    const solo = (await api.admin.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: 'apps.kubeblocks.io',
      version: 'v1',
      namespace: NS,
      plural: 'clusters',
      name: 'solo',
    })) as KubernetesObject & { spec: object };
    const changed = { ...solo, spec: { ...solo.spec, topology: 'replication' } };
    const immutable = await rejection(objects.replace(changed));
    expect(immutable.code).toBe(422);
    expect(immutable.body).toContain('topology is immutable');
  });
});
