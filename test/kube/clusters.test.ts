// Clusters against a real API server with the real KubeBlocks CRDs (v1.0.1, and v0.9.0 for the 0.9 dialect): the
// label selector, generateName, the status subresource, list ordering, and the CRDs' schemas, defaults and CEL rules
// come from the real thing. The server runs as the chart's
// service account; KubeBlocks' side (Cluster objects, OpsRequest progress) is played by the admin.
import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../support/kube/kube-api-double.js';
import { sessionsForEveryRole, startAdminTestApp, type AdminTestApp } from '../support/admin.js';
import { legacyReplication, legacySharded, standalone } from '../support/kube/kubeblocks-fixtures.js';
import { advanceOpsRequest, createWithStatus, readOpsRequest } from '../support/kube/real-kubeblocks.js';
import { seededClusters, setMultiClusterMode, sharedClusterReads } from '../support/cluster-reads.js';
import { sharedClusterWrites, sharedLegacyClusterWrites } from '../support/cluster-writes.js';
import { eventually } from '../support/wait.js';

const NS = 'graphdb-system';
const OPS_V1 = 'operations.kubeblocks.io/v1alpha1';
/** The fields of an OpsRequest spec that the real CRDs' schemas default when the server leaves them out. */
const OPS_SPEC_DEFAULTS_1X = { enqueueOnForce: false, preConditionDeadlineSeconds: 0 };
const OPS_SPEC_DEFAULTS_09 = { preConditionDeadlineSeconds: 0 };

describe('clusters on KubeBlocks 1.x, real API server (chart RBAC with multiClusterRbac)', () => {
  let t: AdminTestApp;
  let sessions: Record<'admin' | 'operator' | 'viewer', string>;
  beforeAll(async () => {
    t = await startAdminTestApp('kube-apiserver', {
      kubeBlocks: true,
      namespaces: ['team-b'],
      chartValues: { 'adminServer.multiClusterRbac': 'true' },
    });
    sessions = await sessionsForEveryRole(t.app);
    for (const cluster of seededClusters(NS)) await createWithStatus(t.real!.api.admin, cluster);
  });
  afterAll(() => t?.close());
  beforeEach(() => setMultiClusterMode(t.app, sessions.admin, false));

  const ops = (name: string) => readOpsRequest(t.real!.api.admin, { apiVersion: OPS_V1, namespace: NS, name });

  const opsCount = async () =>
    (
      (await t.real!.api.admin.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
        group: 'operations.kubeblocks.io',
        version: 'v1alpha1',
        namespace: NS,
        plural: 'opsrequests',
      })) as { items: unknown[] }
    ).items.length;

  it('refuses, at the API server, a Cluster that does not match the CRD schema (so the server never lists one)', async () => {
    const broken = {
      apiVersion: 'apps.kubeblocks.io/v1',
      kind: 'Cluster',
      metadata: { name: 'broken', namespace: NS, labels: { 'clusterdefinition.kubeblocks.io/name': 'falkordb' } },
      spec: { terminationPolicy: 'Delete', componentSpecs: 'not-a-list' },
    };
    const error = await KubernetesObjectApi.makeApiClient(t.real!.api.admin)
      .create(broken as KubernetesObject)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiException);
    expect((error as ApiException<string>).code).toBe(422);
  });

  it("reads the credentials from KubeBlocks' account Secret through the chart RBAC, audited, the password in no log line or audit entry", async () => {
    const password = 'Re4l-apiserver-s3cret';
    await t.real!.api.admin.makeApiClient(CoreV1Api).createNamespacedSecret({
      namespace: NS,
      body: {
        metadata: { name: 'pair-falkordb-account-default' },
        stringData: { username: 'default', password },
      },
    });
    const get = (cookie: string) =>
      t.app.inject({ method: 'GET', url: `/api/clusters/pair/credentials?namespace=${NS}`, headers: { cookie } });
    const res = await get(sessions.operator);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ username: 'default', password, port: 6379 });
    const refused = await get(sessions.viewer);
    expect(refused.statusCode).toBe(403);
    expect(refused.body).not.toContain(password);
    const readAudit = () =>
      t.app.inject({
        method: 'GET',
        url: '/api/audit/?action=cluster.credentials_read',
        headers: { cookie: sessions.admin },
      });
    type Entries = { logs: { resourceName?: string; result: string }[] };
    // The audit log is written beside the answer, not before it.
    await eventually(async () => (await readAudit()).json<Entries>().logs.length >= 2, 5000);
    const audit = await readAudit();
    const entries = audit.json<Entries>().logs;
    expect(entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ resourceName: 'pair', result: 'success' }),
        expect.objectContaining({ resourceName: 'pair', result: 'failure' }),
      ]),
    );
    expect(audit.body).not.toContain(password);
    expect(t.logs.text).toContain('cluster.credentials_read');
    expect(t.logs.text).not.toContain(password);
  });

  const context = () => ({ app: t.app, namespace: NS, sessions });
  // Listing goes through the real label selector; multi-cluster mode is backed by the chart's ClusterRole (multiClusterRbac).
  sharedClusterReads(context);

  // OpsRequests are named by the API server from generateName and accepted against the CRD's schema.
  sharedClusterWrites(() => ({
    ...context(),
    opsRequest: ops,
    storedCluster: async (name) => {
      try {
        return (await t.real!.api.admin.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
          group: 'apps.kubeblocks.io',
          version: 'v1',
          namespace: NS,
          plural: 'clusters',
          name,
        })) as KubeObject;
      } catch (error) {
        if (error instanceof ApiException && error.code === 404) return undefined;
        throw error;
      }
    },
    opsRequestCount: opsCount,
    addCluster: (cluster) => createWithStatus(t.real!.api.admin, cluster).then(() => undefined),
    advanceOpsRequest: (name) => advanceOpsRequest(t.real!.api.admin, { apiVersion: OPS_V1, namespace: NS, name }),
    opsSpecDefaults: OPS_SPEC_DEFAULTS_1X,
    validatesSchemas: true,
  }));
  // The restart body names one component now (the real API's componentName), so the duplicate-list 422 this file
  // used to provoke cannot be asked for; an API server 422 answered as 422 is tested on the double
  // (test/admin/clusters.test.ts).
});

describe('clusters on KubeBlocks 0.9 (v1alpha1), real API server', () => {
  let t: AdminTestApp;
  let admin: string;
  beforeAll(async () => {
    t = await startAdminTestApp('kube-apiserver', {
      kubeBlocks: true,
      crds: ['apps.kubeblocks.io/v1alpha1/clusters', 'apps.kubeblocks.io/v1alpha1/opsrequests'],
      chartValues: { 'adminServer.multiClusterRbac': 'true' },
    });
    admin = (await sessionsForEveryRole(t.app)).admin;
    await createWithStatus(t.real!.api.admin, legacyReplication('old', NS));
    await createWithStatus(t.real!.api.admin, legacySharded('oldshards', NS));
  });
  afterAll(() => t?.close());

  // Valid for the 0.9 CRDs: v1 clusters are not served there.
  sharedLegacyClusterWrites(() => ({
    app: t.app,
    adminCookie: admin,
    opsRequest: (name) =>
      readOpsRequest(t.real!.api.admin, { apiVersion: 'apps.kubeblocks.io/v1alpha1', namespace: NS, name }),
    opsSpecDefaults: OPS_SPEC_DEFAULTS_09,
    opsRequestCount: async () =>
      (
        (await t.real!.api.admin.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
          group: 'apps.kubeblocks.io',
          version: 'v1alpha1',
          namespace: NS,
          plural: 'opsrequests',
        })) as { items: unknown[] }
      ).items.length,
  }));
});

describe("clusters with the chart's default (namespaced) RBAC, real API server", () => {
  let t: AdminTestApp;
  let operator: string;
  beforeAll(async () => {
    t = await startAdminTestApp('kube-apiserver', { kubeBlocks: true });
    operator = (await sessionsForEveryRole(t.app)).operator;
    await createWithStatus(t.real!.api.admin, standalone('solo', NS));
  });
  afterAll(() => t?.close());

  // KubeBlocks detection once listed clusters in every namespace, which the chart's default Role does not allow.
  it('lists the clusters of its namespace with the default namespaced Role', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/clusters', headers: { cookie: operator } });
    expect(res.statusCode, res.body).toBe(200);
  });
});
