// The conformance walk over the "Clusters" tag of the real admin API: lifecycle, YAML, pods, logs,
// metrics, upgrade, credentials and configuration. Each operation is called at its real path (both slash spellings),
// with `?namespace=` and a body built from the real request schema, and must answer the real success status with a
// body the real response schema accepts. On the Kubernetes API double with KubeBlocks 1.x, and in embedded mode, where
// what one embedded process cannot do answers 422 in the real error shape (EMBEDDED_REFUSALS says which and why).
// The "Cluster Operations" tag has its own walk (operations.test.ts); GET …/events is walked with the audit log
// (conformance.test.ts).
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDED_CLUSTER } from '../../src/platform/clusters/embedded-clusters.js';
import type { ClusterPort } from '../../src/platform/clusters/cluster-port.js';
import { useAdminApp, type AdminApp } from '../support/admin.js';
import { seededClusters } from '../support/cluster-reads.js';
import {
  operationKey,
  pathSpellings,
  realOperations,
  sampleOf,
  validatorOf,
  type JsonSchema,
  type RealOperation,
} from '../support/conformance/real-operations.js';
import { startTestFalkorDB, testEmbeddedDeployment, type TestFalkorDB } from '../support/falkordb.js';
import { CLUSTERS_V1, OPS_V1 } from '../support/kube/kubeblocks-fixtures.js';

const NS = 'graphdb-system';
const WALKED = realOperations().filter(
  (operation) => operation.tag === 'Clusters' && operation.path !== '/api/clusters/{clusterName}/events',
);
/** Event streams: the real API declares their 200 without a body; the walk checks the media type and the frames. */
const STREAMS = new Set([
  'GET /api/clusters/{name}/pods/{podName}/logs/stream',
  'GET /api/clusters/{name}/metrics/stream',
  'GET /api/clusters/{name}/pods/{podName}/metrics/stream',
]);

/** The real ErrorBody, for refusals of operations that declare none (the event streams declare only their 200). */
const ERROR_BODY = WALKED.find((operation) => operation.path === '/api/clusters/{clusterName}')!.responses['404']![
  'application/json'
]!;

/** A Cluster manifest KubeBlocks 1.x accepts. */
const manifest = (name: string) =>
  [
    'apiVersion: apps.kubeblocks.io/v1',
    'kind: Cluster',
    'metadata:',
    `  name: ${name}`,
    `  namespace: ${NS}`,
    '  labels:',
    '    clusterdefinition.kubeblocks.io/name: falkordb',
    'spec:',
    '  clusterDef: falkordb',
    '  topology: standalone',
    '  terminationPolicy: Delete',
    '  componentSpecs:',
    '    - name: falkordb',
    '      replicas: 1',
  ].join('\n');

interface Call {
  path: Record<string, string>;
  query?: Record<string, string>;
  /** Replaces or adds top-level properties of the sample body. */
  body?: Record<string, unknown>;
}

const successOf = (operation: RealOperation) =>
  Math.min(
    ...Object.keys(operation.responses)
      .map(Number)
      .filter((status) => status >= 200 && status < 400),
  );

function urlOf(template: string, call: Call): string {
  const filled = template.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = call.path[name];
    if (value === undefined) throw new Error(`no value for path parameter ${name}`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams(call.query ?? {}).toString();
  return query ? `${filled}?${query}` : filled;
}

function expectConforms(schema: JsonSchema, body: unknown, what: string): void {
  const validate = validatorOf(schema);
  expect(validate(body), `${what}: ${JSON.stringify(validate.errors)} in ${JSON.stringify(body)}`).toBe(true);
}

/** Calls one operation as the scenario says and checks the answer against the real schemas. */
async function walk(
  t: AdminApp,
  cookie: string,
  operation: RealOperation,
  spelling: string,
  call: Call,
  expected: number,
): Promise<void> {
  const key = operationKey(operation);
  const schema = operation.requestBody?.content['application/json'];
  const payload = schema ? sampleOf(schema, call.body) : call.body;
  const res = await t.app.inject({
    method: operation.method as 'GET',
    url: urlOf(spelling, call),
    headers: { cookie, ...(STREAMS.has(key) ? { accept: 'text/event-stream' } : {}) },
    ...(payload === undefined ? {} : { payload: payload as never }),
  });
  expect(res.statusCode, `${key}: ${res.body}`).toBe(expected);
  if (expected >= 400) {
    // Undeclared refusals (422) answer the real ErrorBody, which every operation declares for its 500.
    const errorSchema =
      operation.responses[String(expected)]?.['application/json'] ??
      operation.responses['500']?.['application/json'] ??
      ERROR_BODY;
    expectConforms(errorSchema, res.json(), key);
    return;
  }
  if (STREAMS.has(key)) {
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    // The stream ended at OBSERVABILITY_STREAM_MAX_SECONDS; what it sent are whole SSE frames with data.
    expect(res.body).toMatch(/^(:[^\n]*\n\n|(event: \w+\n)?data: [^\n]*\n\n)+$/);
    expect(res.body).toContain('data: ');
    return;
  }
  const responseSchema = operation.responses[String(expected)]?.['application/json'];
  if (expected === 204 || !responseSchema) {
    expect(res.body, key).toBe('');
    return;
  }
  expectConforms(responseSchema, res.json(), key);
}

describe('conformance with the real admin API: Clusters, on KubeBlocks 1.x (API double)', () => {
  const t = useAdminApp({
    adapter: 'kubernetes',
    kubeBlocks: true,
    crds: [CLUSTERS_V1, OPS_V1],
    streamHeartbeatMs: 100,
    env: { OBSERVABILITY_STREAM_MAX_SECONDS: '1', OBSERVABILITY_STREAMS_PER_USER: '10' },
  });
  let made = 0;
  beforeAll(() => {
    const kube = t.kube!;
    for (const cluster of seededClusters(NS)) kube.put(CLUSTERS_V1, cluster.metadata.namespace!, cluster);
    kube.put('pods', NS, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'solo-falkordb-0',
        labels: { 'app.kubernetes.io/instance': 'solo', 'app.kubernetes.io/managed-by': 'kubeblocks' },
      },
      spec: { containers: [{ name: 'falkordb', resources: { limits: { cpu: '1', memory: '1Gi' } } }] },
    });
    kube.setPodLog(NS, 'solo-falkordb-0', ['Ready to accept connections tcp'], 'falkordb');
    kube.setMetricsApi(true);
    kube.put('metrics.k8s.io/v1beta1/pods', NS, {
      apiVersion: 'metrics.k8s.io/v1beta1',
      kind: 'PodMetrics',
      metadata: {
        name: 'solo-falkordb-0',
        labels: { 'app.kubernetes.io/instance': 'solo', 'app.kubernetes.io/managed-by': 'kubeblocks' },
      },
      timestamp: '2026-11-24T08:00:00Z',
      window: '30s',
      containers: [{ name: 'falkordb', usage: { cpu: '250m', memory: '256Mi' } }],
    });
    kube.put('configmaps', NS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'solo-falkordb-falkordb-replication-config',
        namespace: NS,
        labels: { 'app.kubernetes.io/instance': 'solo' },
      },
      data: { 'redis.conf': 'maxmemory 1gb\nappendonly yes\n' },
    });
    kube.put('secrets', NS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'solo-falkordb-account-default', namespace: NS },
      data: {
        username: Buffer.from('default').toString('base64'),
        password: Buffer.from('walk-secret').toString('base64'),
      },
    });
  });

  /** A fresh standalone cluster (the double stores it as KubeBlocks would after accepting it). */
  async function newCluster(): Promise<string> {
    made += 1;
    const name = `walked-${made}`;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/clusters/',
      headers: { cookie: t.sessions.admin },
      payload: { name, namespace: NS, spec: {} },
    });
    expect(res.statusCode, res.body).toBe(201);
    return name;
  }

  const ns = { namespace: NS };
  const SCENARIOS: Record<string, () => Call | Promise<Call>> = {
    'GET /api/clusters/': () => ({ path: {}, query: ns }),
    'POST /api/clusters/': () => {
      made += 1;
      return { path: {}, body: { name: `created-${made}`, namespace: NS, spec: { topology: 'standalone' } } };
    },
    'GET /api/clusters/{clusterName}': () => ({ path: { clusterName: 'pair' }, query: ns }),
    'PATCH /api/clusters/{clusterName}': async () => ({
      path: { clusterName: await newCluster() },
      query: ns,
      body: { replicas: 1, terminationPolicy: 'WipeOut' },
    }),
    'DELETE /api/clusters/{clusterName}': async () => ({ path: { clusterName: await newCluster() }, query: ns }),
    'GET /api/clusters/schema': () => ({ path: {} }),
    'POST /api/clusters/yaml': () => {
      made += 1;
      return { path: {}, body: { yaml: manifest(`from-yaml-${made}`) } };
    },
    'GET /api/clusters/{clusterName}/yaml': () => ({ path: { clusterName: 'solo' }, query: ns }),
    'POST /api/clusters/{clusterName}/yaml': async () => {
      const name = await newCluster();
      return { path: { clusterName: name }, query: ns, body: { yaml: manifest(name) } };
    },
    'GET /api/clusters/{clusterName}/operations': () => ({ path: { clusterName: 'pair' }, query: ns }),
    'GET /api/clusters/{clusterName}/pods': () => ({ path: { clusterName: 'solo' }, query: ns }),
    'GET /api/clusters/{name}/pods/{podName}/logs': () => ({
      path: { name: 'solo', podName: 'solo-falkordb-0' },
      query: ns,
    }),
    'GET /api/clusters/{name}/pods/{podName}/logs/stream': () => ({
      path: { name: 'solo', podName: 'solo-falkordb-0' },
      query: ns,
    }),
    'GET /api/clusters/{name}/metrics': () => ({ path: { name: 'solo' }, query: ns }),
    'GET /api/clusters/{name}/pods/{podName}/metrics': () => ({
      path: { name: 'solo', podName: 'solo-falkordb-0' },
      query: ns,
    }),
    'GET /api/clusters/{name}/pods/{podName}/metrics/stream': () => ({
      path: { name: 'solo', podName: 'solo-falkordb-0' },
      query: ns,
    }),
    'GET /api/clusters/{name}/metrics/stream': () => ({ path: { name: 'solo' }, query: ns }),
    'POST /api/clusters/{clusterName}/upgrade': () => ({
      path: { clusterName: 'solo' },
      query: ns,
      body: { version: '4.14.1' },
    }),
    'GET /api/clusters/{clusterName}/credentials': () => ({ path: { clusterName: 'solo' }, query: ns }),
    'GET /api/clusters/{clusterName}/config': () => ({ path: { clusterName: 'solo' }, query: ns }),
  };

  it('walks every operation of the Clusters tag but events (walked with the audit log)', () => {
    expect(WALKED.length).toBe(20);
    expect(WALKED.map(operationKey).filter((key) => !SCENARIOS[key])).toEqual([]);
  });

  for (const operation of WALKED) {
    const key = operationKey(operation);
    for (const spelling of pathSpellings(operation.path))
      it(`${operation.method} ${spelling}`, async () => {
        await walk(t, t.sessions.admin, operation, spelling, await SCENARIOS[key]!(), successOf(operation));
      });
  }
});

describe('conformance with the real admin API: Clusters, in embedded mode', () => {
  let falkordb: TestFalkorDB;
  let clusters: ClusterPort;
  beforeAll(async () => {
    falkordb = await startTestFalkorDB({ dataDir: await mkdtemp(path.join(os.tmpdir(), 'gdb-walk-embedded-')) });
    const deployment = testEmbeddedDeployment(falkordb, NS);
    clusters = deployment.clusters;
    // Run after the app's afterAll has closed it.
    return async () => {
      await deployment.close();
      await falkordb.stop();
    };
  });
  const t = useAdminApp(() => ({ falkordb, clusters }));

  const embedded = { path: { clusterName: EMBEDDED_CLUSTER, name: EMBEDDED_CLUSTER }, query: { namespace: NS } };
  /** What one embedded process has no counterpart for: 422 with the reason, in the real error shape. */
  const EMBEDDED_REFUSALS: Record<string, string> = {
    'POST /api/clusters/': 'deployments are not created in embedded mode',
    'PATCH /api/clusters/{clusterName}': 'the embedded deployment is the host process',
    'DELETE /api/clusters/{clusterName}': 'the embedded deployment lives as long as the server',
    'POST /api/clusters/yaml': 'no Cluster manifests without Kubernetes',
    'GET /api/clusters/{clusterName}/yaml': 'no Cluster manifests without Kubernetes',
    'POST /api/clusters/{clusterName}/yaml': 'no Cluster manifests without Kubernetes',
    'POST /api/clusters/{clusterName}/upgrade': "the embedded FalkorDB runs the server's own module version",
    'GET /api/clusters/{clusterName}/credentials': "the embedded FalkorDB's accounts are the server's settings",
    'GET /api/clusters/{name}/pods/{podName}/logs': 'the child process logs into the server log',
    'GET /api/clusters/{name}/pods/{podName}/logs/stream': 'the child process logs into the server log',
    'GET /api/clusters/{name}/metrics': 'no metrics API without Kubernetes; /metrics has the process figures',
    'GET /api/clusters/{name}/pods/{podName}/metrics': 'no metrics API without Kubernetes',
    'GET /api/clusters/{name}/pods/{podName}/metrics/stream': 'no metrics API without Kubernetes',
    'GET /api/clusters/{name}/metrics/stream': 'no metrics API without Kubernetes',
  };
  const EMBEDDED_CALLS: Record<string, Call> = {
    'POST /api/clusters/': { path: {}, body: { name: 'another', namespace: NS, spec: {} } },
    'PATCH /api/clusters/{clusterName}': { ...embedded, body: { replicas: 1 } },
    'POST /api/clusters/yaml': { path: {}, body: { yaml: manifest('another') } },
    'POST /api/clusters/{clusterName}/yaml': { ...embedded, body: { yaml: manifest(EMBEDDED_CLUSTER) } },
    'GET /api/clusters/{name}/pods/{podName}/logs': {
      ...embedded,
      path: { ...embedded.path, podName: 'embedded-falkordb-0' },
    },
    'GET /api/clusters/{name}/pods/{podName}/logs/stream': {
      ...embedded,
      path: { ...embedded.path, podName: 'embedded-falkordb-0' },
    },
    'GET /api/clusters/{name}/pods/{podName}/metrics': {
      ...embedded,
      path: { ...embedded.path, podName: 'embedded-falkordb-0' },
    },
    'GET /api/clusters/{name}/pods/{podName}/metrics/stream': {
      ...embedded,
      path: { ...embedded.path, podName: 'embedded-falkordb-0' },
    },
    'POST /api/clusters/{clusterName}/upgrade': { ...embedded, body: { version: '4.14.1' } },
  };

  for (const operation of WALKED) {
    const key = operationKey(operation);
    it(`${operation.method} ${operation.path}: ${EMBEDDED_REFUSALS[key] ? `422, ${EMBEDDED_REFUSALS[key]}` : 'answered'}`, async () => {
      const call = EMBEDDED_CALLS[key] ?? (operation.path.includes('{') ? embedded : { path: {} });
      await walk(
        t,
        t.sessions.admin,
        operation,
        operation.path,
        call,
        EMBEDDED_REFUSALS[key] ? 422 : successOf(operation),
      );
    });
  }

  it("answers GET …/config with the running server's CONFIG GET, credentials left out", async () => {
    const res = await t.as('admin').inject({
      method: 'GET',
      url: `/api/clusters/${EMBEDDED_CLUSTER}/config?namespace=${NS}`,
    });
    expect(res.statusCode, res.body).toBe(200);
    const { configMapName, parameters } = res.json<{
      configMapName: string;
      parameters: { key: string; value: string }[];
    }>();
    expect(configMapName).toBe('');
    expect(parameters).toContainEqual({ key: 'port', value: String(falkordb.port) });
    const keys = parameters.map((parameter) => parameter.key);
    expect(keys).toContain('appendonly');
    for (const secret of ['requirepass', 'masterauth', 'masteruser']) expect(keys).not.toContain(secret);
  });
});
