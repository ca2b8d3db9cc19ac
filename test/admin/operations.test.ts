// Day-2 operations at the FalkorDB Enterprise admin API's paths, checked against its schemas: every operation of the
// "Cluster Operations" tag is called at its real path, with `?namespace=` as the real API has it and a body built
// from the real request schema, and must answer the real success status with a body the real response schema
// accepts; our cancel answers the real OpsAccepted shape too. On the Kubernetes API double (KubeBlocks 1.x) and in
// embedded mode (restart and configure answered for real, the rest 422 with the reason).
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterPort } from '../../src/platform/clusters/cluster-port.js';
import { useAdminApp } from '../support/admin.js';
import { seededClusters, setMultiClusterMode } from '../support/cluster-reads.js';
import {
  realOperations,
  sampleOf,
  validatorOf,
  type JsonSchema,
  type RealOperation,
} from '../support/conformance/real-operations.js';
import {
  startTestFalkorDB,
  testEmbeddedDeployment,
  type TestEmbeddedDeployment,
  type TestFalkorDB,
} from '../support/falkordb.js';
import { eventually } from '../support/wait.js';
import {
  advanceOpsRequest,
  CLUSTERS_V1,
  OPS_V1,
  replication,
  standalone,
} from '../support/kube/kubeblocks-fixtures.js';

const NS = 'graphdb-system';
const STORAGE_CLASSES = 'storage.k8s.io/v1/storageclasses';
const OPERATIONS = realOperations().filter((operation) => operation.tag === 'Cluster Operations');

const successOf = (operation: RealOperation) => Object.keys(operation.responses).find((code) => code.startsWith('2'))!;
const jsonSchemaOf = (operation: RealOperation, status: string) => operation.responses[status]?.['application/json'];
const bodySchemaOf = (operation: RealOperation) =>
  operation.requestBody?.content['application/json'] ?? { type: 'object' };
const find = (method: string, suffix: string) =>
  OPERATIONS.find(
    (operation) => operation.method === method && operation.path === `/api/clusters/{clusterName}${suffix}`,
  )!;
const ACCEPTED = jsonSchemaOf(find('POST', '/ops/restart'), '202')!;
const ERROR_BODY = jsonSchemaOf(find('POST', '/ops/restart'), '400')!;

interface Scenario {
  cluster: string;
  /** Top-level properties of the sample body replaced where the server needs real values. */
  body?: Record<string, unknown>;
  /** An OpsRequest of the cluster, made first (for the operations on one). */
  needsOps?: boolean;
}

/** On the double: which seeded cluster each operation acts on, in the state it needs. */
const KUBE_SCENARIOS: Record<string, Scenario> = {
  'GET /api/clusters/{clusterName}/ops': { cluster: 'pair' },
  'GET /api/clusters/{clusterName}/ops/{opsName}': { cluster: 'pair', needsOps: true },
  'DELETE /api/clusters/{clusterName}/ops/{opsName}': { cluster: 'pair', needsOps: true },
  'POST /api/clusters/{clusterName}/ops/restart': { cluster: 'pair' },
  'POST /api/clusters/{clusterName}/ops/start': { cluster: 'sleepy' },
  'POST /api/clusters/{clusterName}/ops/stop': { cluster: 'solo' },
  'POST /api/clusters/{clusterName}/ops/configure': {
    cluster: 'solo',
    body: { parameters: [{ key: 'TIMEOUT', value: '2000' }] },
  },
  'POST /api/clusters/{clusterName}/ops/switchover': { cluster: 'pair', body: { instanceName: 'pair-falkordb-0' } },
  'POST /api/clusters/{clusterName}/ops/horizontal-scale': { cluster: 'pair', body: { replicas: 3 } },
  'POST /api/clusters/{clusterName}/ops/vertical-scale': {
    cluster: 'solo',
    body: { requests: { cpu: '1', memory: '1Gi' } },
  },
  'POST /api/clusters/{clusterName}/ops/volume-expand': { cluster: 'solo', body: { storage: '40Gi' } },
};

function urlOf(operation: RealOperation, cluster: string, opsName = ''): string {
  return `${operation.path.replace('{clusterName}', cluster).replace('{opsName}', opsName)}?namespace=${NS}`;
}

function expectConforms(schema: JsonSchema, body: unknown, what: string): void {
  const validate = validatorOf(schema);
  expect(validate(body), `${what}: ${JSON.stringify(validate.errors)} in ${JSON.stringify(body)}`).toBe(true);
}

describe('day-2 operations on KubeBlocks 1.x (API double), against the real schemas', () => {
  const t = useAdminApp({ adapter: 'kubernetes', kubeBlocks: true, crds: [CLUSTERS_V1, OPS_V1, STORAGE_CLASSES] });
  beforeAll(() => {
    for (const cluster of seededClusters(NS)) t.kube!.put(CLUSTERS_V1, cluster.metadata.namespace!, cluster);
  });

  const call = (method: string, url: string, payload?: unknown, cookie = t.sessions.operator) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: { cookie },
      ...(payload === undefined ? {} : { payload: payload as never }),
    });
  const opsCreated = () =>
    t.kube!.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/opsrequests')).length;

  it('serves the 11 real operations', () => {
    expect(OPERATIONS.map((operation) => `${operation.method} ${operation.path}`).sort()).toEqual(
      Object.keys(KUBE_SCENARIOS).sort(),
    );
  });

  it.each(OPERATIONS.map((operation) => [`${operation.method} ${operation.path}`, operation] as const))(
    '%s answers the real success status with a body the real schema accepts',
    async (key, operation) => {
      const scenario = KUBE_SCENARIOS[key]!;
      let opsName = '';
      if (scenario.needsOps) {
        const made = await call('POST', `/api/clusters/${scenario.cluster}/ops/restart?namespace=${NS}`, {});
        expect(made.statusCode, made.body).toBe(202);
        opsName = made.json<{ opsName: string }>().opsName;
      }
      const payload = operation.method === 'POST' ? sampleOf(bodySchemaOf(operation), scenario.body ?? {}) : undefined;
      const status = successOf(operation);
      const res = await call(operation.method, urlOf(operation, scenario.cluster, opsName), payload);
      expect(res.statusCode, `${key}: ${res.body}`).toBe(Number(status));
      const schema = jsonSchemaOf(operation, status);
      if (schema) expectConforms(schema, res.json(), key);
      else expect(res.body, key).toBe('');
      if (operation.method === 'POST') {
        const accepted = res.json<{ opsName: string; clusterName: string }>();
        expect(accepted.clusterName).toBe(scenario.cluster);
        expect(t.kube!.get(OPS_V1, NS, accepted.opsName), 'the OpsRequest exists').toBeDefined();
      }
      if (operation.method === 'DELETE') expect(t.kube!.get(OPS_V1, NS, opsName)).toBeUndefined();
    },
  );

  it('answers a missing cluster or operation with a 404 the real error schema accepts, creating nothing', async () => {
    const before = opsCreated();
    for (const operation of OPERATIONS) {
      const payload =
        operation.method === 'POST'
          ? sampleOf(bodySchemaOf(operation), KUBE_SCENARIOS[`${operation.method} ${operation.path}`]!.body ?? {})
          : undefined;
      const res = await call(operation.method, urlOf(operation, 'missing', 'missing-restart-abcde'), payload);
      expect(res.statusCode, `${operation.method} ${operation.path}`).toBe(404);
      expectConforms(jsonSchemaOf(operation, '404')!, res.json(), `${operation.method} ${operation.path} 404`);
      expect(res.json()).toEqual({
        statusCode: 404,
        error: 'Not Found',
        message: `Cluster missing not found in namespace ${NS}`,
        code: 'not_found',
      });
    }
    const unknownOps = await call('GET', `/api/clusters/pair/ops/pair-restart-zzzzz?namespace=${NS}`);
    expect(unknownOps.statusCode).toBe(404);
    expect(unknownOps.json<{ message: string }>().message).toBe(
      `OpsRequest pair-restart-zzzzz not found for cluster pair in namespace ${NS}`,
    );
    expect(opsCreated()).toBe(before);
  });

  it('answers a pre-validation refusal in the real error shape (400/409/422), before creating anything', async () => {
    const before = opsCreated();
    const refusals: [suffix: string, body: unknown, status: number][] = [
      ['horizontal-scale', { shardCount: 2 }, 400],
      ['configure', { parameters: [{ key: 'NOT_A_PARAMETER', value: '1' }] }, 400],
      ['volume-expand', { storage: '1Gi' }, 422],
      ['horizontal-scale', { componentName: 'falkordb-sent', replicas: 2 }, 422],
    ];
    for (const [suffix, body, status] of refusals) {
      const res = await call('POST', `/api/clusters/pair/ops/${suffix}?namespace=${NS}`, body);
      expect(res.statusCode, `${suffix}: ${res.body}`).toBe(status);
      expectConforms(ERROR_BODY, res.json(), suffix);
    }
    // The body may be absent, but a JSON `null` is not an object: the document says object, and so does the server.
    for (const suffix of ['restart', 'start', 'stop', 'configure']) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/clusters/pair/ops/${suffix}?namespace=${NS}`,
        headers: { cookie: t.sessions.operator, 'content-type': 'application/json' },
        payload: 'null',
      });
      expect(res.statusCode, `${suffix} null: ${res.body}`).toBe(400);
      expectConforms(ERROR_BODY, res.json(), suffix);
    }
    const stopped = await call('POST', `/api/clusters/sleepy/ops/vertical-scale?namespace=${NS}`, {
      requests: { cpu: '1' },
    });
    expect(stopped.statusCode).toBe(409);
    expect(stopped.json()).toEqual({
      statusCode: 409,
      error: 'Conflict',
      message: 'Cluster sleepy is Stopped; VerticalScaling needs it to be Running',
      code: 'conflict',
    });
    expect(opsCreated()).toBe(before);
  });

  it('refuses a volume expansion its StorageClass does not allow, when the classes can be read (multi-cluster mode)', async () => {
    for (const [name, allowVolumeExpansion, isDefault] of [
      ['fast', true, true],
      ['fixed', false, false],
    ] as const)
      t.kube!.put(STORAGE_CLASSES, '', {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: {
          name,
          ...(isDefault ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}),
        },
        provisioner: 'ebs.csi.aws.com',
        allowVolumeExpansion,
      });
    const pinned = standalone('pinned', NS);
    const template = (
      pinned.spec as { componentSpecs: { volumeClaimTemplates: { spec: Record<string, unknown> }[] }[] }
    ).componentSpecs[0]!.volumeClaimTemplates[0]!;
    template.spec.storageClassName = 'fixed';
    t.kube!.put(CLUSTERS_V1, NS, pinned);
    t.kube!.put(CLUSTERS_V1, NS, standalone('roomy', NS));
    const expand = (cluster: string) =>
      call('POST', `/api/clusters/${cluster}/ops/volume-expand?namespace=${NS}`, { storage: '50Gi' });
    await setMultiClusterMode(t.app, t.sessions.admin, true);
    try {
      const before = opsCreated();
      const refused = await expand('pinned');
      expect(refused.statusCode, refused.body).toBe(422);
      expect(refused.json()).toEqual({
        statusCode: 422,
        error: 'Unprocessable Entity',
        message: 'StorageClass fixed does not allow volume expansion (allowVolumeExpansion is not true)',
        code: 'unprocessable',
      });
      expect(opsCreated()).toBe(before);
      // No class named: the default one (fast) allows it.
      expect((await expand('roomy')).statusCode).toBe(202);
    } finally {
      await setMultiClusterMode(t.app, t.sessions.admin, false);
    }
    // Without multi-cluster mode the classes cannot be read; KubeBlocks is left to judge.
    expect((await expand('pinned')).statusCode).toBe(202);
  });

  it('cancels a running vertical scaling with the real OpsAccepted shape, and only that', async () => {
    t.kube!.put(CLUSTERS_V1, NS, replication('tocancel', NS));
    const scaling = (
      await call('POST', `/api/clusters/tocancel/ops/vertical-scale?namespace=${NS}`, { limits: { memory: '4Gi' } })
    ).json<{ opsName: string }>().opsName;
    for (let i = 0; i < 3; i++) advanceOpsRequest(t.kube!, OPS_V1, NS, scaling);
    const res = await call('POST', `/api/clusters/tocancel/ops/${scaling}/cancel?namespace=${NS}`, {});
    expect(res.statusCode, res.body).toBe(202);
    expectConforms(ACCEPTED, res.json(), 'cancel');
    expect(t.kube!.get(OPS_V1, NS, scaling)!.spec).toMatchObject({ cancel: true, type: 'VerticalScaling' });
    // Once it has ended, there is nothing to cancel.
    advanceOpsRequest(t.kube!, OPS_V1, NS, scaling);
    const late = await call('POST', `/api/clusters/tocancel/ops/${scaling}/cancel?namespace=${NS}`, {});
    expect(late.statusCode).toBe(409);
    expectConforms(ERROR_BODY, late.json(), 'late cancel');
  });

  it('checks the permission each route asks for, in the cluster namespace', async () => {
    const made = await call('POST', `/api/clusters/pair/ops/restart?namespace=${NS}`, {});
    const opsName = made.json<{ opsName: string }>().opsName;
    // A viewer reads (list, get) but neither requests, cancels nor deletes.
    expect((await call('GET', `/api/clusters/pair/ops?namespace=${NS}`, undefined, t.sessions.viewer)).statusCode).toBe(
      200,
    );
    expect(
      (await call('GET', `/api/clusters/pair/ops/${opsName}?namespace=${NS}`, undefined, t.sessions.viewer)).statusCode,
    ).toBe(200);
    for (const [method, url, action] of [
      ['POST', `/api/clusters/pair/ops/stop?namespace=${NS}`, 'update'],
      ['POST', `/api/clusters/pair/ops/${opsName}/cancel?namespace=${NS}`, 'update'],
      ['DELETE', `/api/clusters/pair/ops/${opsName}?namespace=${NS}`, 'delete'],
    ] as const) {
      const res = await call(method, url, method === 'POST' ? {} : undefined, t.sessions.viewer);
      expect(res.statusCode, url).toBe(403);
      expect(res.json()).toEqual({
        statusCode: 403,
        error: 'Forbidden',
        message: `Insufficient permissions for clusters:${action} in namespace ${NS}`,
        code: 'forbidden',
      });
    }
    expect(t.kube!.get(OPS_V1, NS, opsName)).toBeDefined();
  });
});

describe('day-2 operations in embedded mode, against the real schemas', () => {
  let falkordb: TestFalkorDB;
  let clusters: ClusterPort;
  let deployment: TestEmbeddedDeployment | undefined;
  beforeAll(async () => {
    falkordb = await startTestFalkorDB({ dataDir: await mkdtemp(path.join(os.tmpdir(), 'gdb-embedded-ops-')) });
    deployment = testEmbeddedDeployment(falkordb, NS);
    clusters = deployment.clusters;
  });
  afterAll(async () => {
    await deployment?.close();
    await falkordb?.stop();
  });
  const t = useAdminApp(() => ({ falkordb, clusters }));
  const call = (method: string, url: string, payload?: unknown) =>
    t.as('admin').inject({ method: method as 'GET', url, payload });

  it('answers restart and configure with the real OpsAccepted body, and lists, reads and deletes them', async () => {
    const restart = await call('POST', `/api/clusters/embedded/ops/restart?namespace=${NS}`, {});
    expect(restart.statusCode, restart.body).toBe(202);
    expectConforms(ACCEPTED, restart.json(), 'restart');
    // While the child process restarts the deployment is Updating (a 409 for anything else); then Running again.
    const restarted = restart.json<{ opsName: string }>().opsName;
    await eventually(
      async () =>
        (await call('GET', `/api/clusters/embedded/ops/${restarted}?namespace=${NS}`)).json<{ phase: string }>()
          .phase === 'Succeed',
      10_000,
    );
    const configure = await call('POST', `/api/clusters/embedded/ops/configure?namespace=${NS}`, {
      parameters: [{ key: 'RESULTSET_SIZE', value: '5000' }],
    });
    expect(configure.statusCode, configure.body).toBe(202);
    expectConforms(ACCEPTED, configure.json(), 'configure');
    expect(configure.json()).toMatchObject({ clusterName: 'embedded', type: 'Reconfiguring', phase: 'Succeed' });

    const list = await call('GET', `/api/clusters/embedded/ops?namespace=${NS}`);
    expectConforms(jsonSchemaOf(find('GET', '/ops'), '200')!, list.json(), 'list');
    expect(list.json<{ total: number }>().total).toBeGreaterThanOrEqual(2);
    const name = configure.json<{ opsName: string }>().opsName;
    const one = await call('GET', `/api/clusters/embedded/ops/${name}?namespace=${NS}`);
    expectConforms(jsonSchemaOf(find('GET', '/ops/{opsName}'), '200')!, one.json(), 'get');
    expect((await call('DELETE', `/api/clusters/embedded/ops/${name}?namespace=${NS}`)).statusCode).toBe(204);
    expect((await call('GET', `/api/clusters/embedded/ops/${name}?namespace=${NS}`)).statusCode).toBe(404);
  });

  it('answers the operations one embedded process cannot do with 422 and the reason', async () => {
    for (const [suffix, body] of [
      ['stop', {}],
      ['horizontal-scale', { replicas: 2 }],
      ['vertical-scale', { limits: { cpu: '2' } }],
      ['volume-expand', { storage: '10Gi' }],
      ['switchover', { instanceName: 'embedded-falkordb-0' }],
    ] as const) {
      const res = await call('POST', `/api/clusters/embedded/ops/${suffix}?namespace=${NS}`, body);
      expect(res.statusCode, `${suffix}: ${res.body}`).toBe(422);
      expectConforms(ERROR_BODY, res.json(), suffix);
      expect(res.json<{ message: string }>().message).toMatch(/embedded|replica/);
    }
  });
});
