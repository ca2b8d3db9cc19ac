// Pod logs and metrics over the Kubernetes API double: the pod log endpoint (plain and followed), the
// pods' label selector and the metrics.k8s.io API, which the double serves only when a test turns it on. Every JSON
// response is validated against the FalkorDB Enterprise admin API's schema; event streams are read over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../support/app.js';
import { sessionsForEveryRole, startAdminTestApp, useAdminApp, type AdminTestApp } from '../support/admin.js';
import { seededClusters } from '../support/cluster-reads.js';
import { operationKey, realOperations, validatorOf } from '../support/conformance/real-operations.js';
import { CLUSTERS_V1, OPS_V1 } from '../support/kube/kubeblocks-fixtures.js';
import {
  startTestFalkorDB,
  testEmbeddedDeployment,
  type TestEmbeddedDeployment,
  type TestFalkorDB,
} from '../support/falkordb.js';
import { eventually } from '../support/wait.js';

const NS = 'graphdb-system';
const POD = 'solo-falkordb-0';

const operations = new Map(realOperations().map((operation) => [operationKey(operation), operation]));
function validate(path: string, status: number, body: unknown): void {
  const operation = operations.get(`GET ${path}`);
  if (!operation) throw new Error(`no real operation GET ${path}`);
  const schema =
    operation.responses[String(status)]?.['application/json'] ??
    // Statuses the real operation does not declare (422, 503): the real ErrorBody.
    operation.responses['500']?.['application/json'];
  if (!schema) throw new Error(`no schema for GET ${path} ${status}`);
  const check = validatorOf(schema);
  expect(check(body), `${path} ${status}: ${JSON.stringify(check.errors)}`).toBe(true);
}

function pod(name: string, instance: string, containers: object[], annotations?: Record<string, string>) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      labels: { 'app.kubernetes.io/instance': instance, 'app.kubernetes.io/managed-by': 'kubeblocks' },
      ...(annotations ? { annotations } : {}),
    },
    spec: { containers },
  };
}

/** Reads an event stream until `until` holds for the text so far; returns the reader's text and its controller. */
async function openStream(url: string, cookie: string) {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { cookie, accept: 'text/event-stream' }, signal: controller.signal });
  let text = '';
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let done = false;
  const pump = (async () => {
    try {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        text += decoder.decode(chunk.value, { stream: true });
      }
    } catch {
      // aborted by the test
    } finally {
      done = true;
    }
  })();
  return {
    res,
    text: () => text,
    ended: () => done,
    until: (predicate: (text: string) => boolean) => eventually(() => predicate(text), 5000),
    close: async () => {
      controller.abort();
      await pump;
    },
  };
}

describe('pod logs and metrics over the Kubernetes API', () => {
  let t: AdminTestApp;
  let sessions: Record<'admin' | 'operator' | 'viewer', string>;
  let base: string;
  beforeAll(async () => {
    t = await startAdminTestApp('kubernetes', {
      kubeBlocks: true,
      crds: [CLUSTERS_V1, OPS_V1],
      streamHeartbeatMs: 100,
      env: { OBSERVABILITY_STREAM_MAX_SECONDS: '2', OBSERVABILITY_STREAMS_PER_USER: '2' },
    });
    sessions = await sessionsForEveryRole(t.app);
    const kube = t.kube!;
    for (const cluster of seededClusters(NS)) kube.put(CLUSTERS_V1, cluster.metadata.namespace!, cluster);
    kube.put(
      'pods',
      NS,
      pod(
        POD,
        'solo',
        [
          { name: 'falkordb', resources: { limits: { cpu: '500m', memory: '1Gi' } } },
          { name: 'metrics', resources: { requests: { cpu: '100m', memory: '128Mi' } } },
        ],
        { 'kubectl.kubernetes.io/default-container': 'falkordb' },
      ),
    );
    kube.put('pods', NS, pod('pair-falkordb-0', 'pair', [{ name: 'falkordb' }]));
    kube.setPodLog(NS, POD, ['one', 'two', 'three'], 'falkordb');
    kube.setPodLog(NS, POD, ['exporter up'], 'metrics');
    base = await listen(t.app);
  });
  afterAll(async () => {
    // Nothing is in flight (the server's graceful close sweeps then); fetch's pool may still hold sockets that
    // never carried a request, which Fastify's close would wait for.
    t.app.server.closeAllConnections();
    await t.close();
  });

  const get = (url: string, cookie = sessions.viewer) => t.app.inject({ method: 'GET', url, headers: { cookie } });

  describe('GET …/pods/{podName}/logs', () => {
    const path = '/api/clusters/{name}/pods/{podName}/logs';

    it("answers the pod's default container's lines, asking Kubernetes for a bounded tail", async () => {
      const res = await get(`/api/clusters/solo/pods/${POD}/logs?namespace=${NS}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ podName: POD, logs: ['one', 'two', 'three'] });
      validate(path, 200, res.json());
      const asked = t.kube!.requests.filter((r) => r.path === `/api/v1/namespaces/${NS}/pods/${POD}/log`);
      expect(asked.length).toBeGreaterThan(0);
    });

    it('passes container, tailLines and timestamps through', async () => {
      const other = await get(`/api/clusters/solo/pods/${POD}/logs?namespace=${NS}&container=metrics`);
      expect(other.json()).toEqual({ podName: POD, logs: ['exporter up'] });
      const tail = await get(`/api/clusters/solo/pods/${POD}/logs?namespace=${NS}&tailLines=2&timestamps=true`);
      expect(tail.statusCode, tail.body).toBe(200);
      const lines = tail.json<{ logs: string[] }>().logs;
      expect(lines).toHaveLength(2);
      expect(lines[1]).toMatch(/^\d{4}-\d\d-\d\dT\S+ three$/);
      validate(path, 200, tail.json());
    });

    it('refuses a pod of another cluster, an unknown cluster and an unknown container', async () => {
      const foreign = await get(`/api/clusters/solo/pods/pair-falkordb-0/logs?namespace=${NS}`);
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json()).toEqual({
        statusCode: 404,
        error: 'Not Found',
        message: `Pod pair-falkordb-0 not found in cluster solo (namespace ${NS})`,
        code: 'not_found',
      });
      const missing = await get(`/api/clusters/ghost/pods/${POD}/logs?namespace=${NS}`);
      expect(missing.statusCode).toBe(404);
      expect(missing.json<{ message: string }>().message).toBe(`Cluster ghost not found in namespace ${NS}`);
      const container = await get(`/api/clusters/solo/pods/${POD}/logs?namespace=${NS}&container=sidecar`);
      expect(container.statusCode).toBe(400);
      expect(container.json<{ message: string }>().message).toBe(
        `Container sidecar not found in pod ${POD}; its containers: falkordb, metrics`,
      );
    });

    it('bounds tailLines (1..10000) and validates the booleans', async () => {
      for (const query of [
        'tailLines=0',
        'tailLines=10001',
        'tailLines=1e3',
        'timestamps=yes',
        'timestamps=1',
        'previous=',
        'sinceSeconds=-1',
        'sinceSeconds=',
      ]) {
        const res = await get(`/api/clusters/solo/pods/${POD}/logs?namespace=${NS}&${query}`);
        expect(res.statusCode, query).toBe(400);
        expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      }
    });

    it('translates Kubernetes refusals once: a denied log is a 500 naming what to grant, a 400 a 422 with its reason', async () => {
      const kube = t.kube!;
      kube.failRequests({ pathIncludes: '/log' }, 403, 'Forbidden', 'pods "x" is forbidden');
      try {
        const denied = await get(`/api/clusters/solo/pods/${POD}/logs?namespace=${NS}`);
        expect(denied.statusCode).toBe(500);
        expect(denied.json()).toEqual({
          statusCode: 500,
          error: 'Internal Server Error',
          message: "The server's service account may not get pods/log; grant it in the chart's Role",
          code: 'server_misconfigured',
        });
        validate('/api/clusters/{name}/pods/{podName}/logs', 500, denied.json());
        kube.clearFaults();
        kube.failRequests(
          { pathIncludes: '/log' },
          400,
          'BadRequest',
          'previous terminated container "falkordb" in pod "solo-falkordb-0" not found',
        );
        const previous = await get(`/api/clusters/solo/pods/${POD}/logs?namespace=${NS}&previous=true`);
        expect(previous.statusCode).toBe(422);
        expect(previous.json<{ message: string }>().message).toBe(
          'previous terminated container "falkordb" in pod "solo-falkordb-0" not found',
        );
      } finally {
        kube.clearFaults();
      }
    });

    it('keeps to the cluster namespace while multi_cluster_mode is off (404 before any Kubernetes call)', async () => {
      const before = t.kube!.requests.length;
      for (const url of [
        `/api/clusters/elsewhere/pods/elsewhere-falkordb-0/logs?namespace=team-b`,
        `/api/clusters/elsewhere/metrics?namespace=team-b`,
      ]) {
        const res = await get(url, sessions.admin);
        expect(res.statusCode, url).toBe(404);
        expect(res.json<{ message: string }>().message).toBe('Cluster elsewhere not found in namespace team-b');
      }
      expect(t.kube!.requests.slice(before).filter((r) => r.path.includes('team-b'))).toEqual([]);
    });

    it('needs clusters:read in the namespace (401 without a session)', async () => {
      const res = await t.app.inject({ method: 'GET', url: `/api/clusters/solo/pods/${POD}/logs` });
      expect(res.statusCode).toBe(401);
    });
  });

  describe('GET …/pods/{podName}/logs/stream', () => {
    it('sends the tail then each new line as one event, heartbeats, and closes the upstream follow when the client leaves', async () => {
      const stream = await openStream(
        `${base}/api/clusters/solo/pods/${POD}/logs/stream?namespace=${NS}&tailLines=1`,
        sessions.viewer,
      );
      expect(stream.res.status).toBe(200);
      expect(stream.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      await stream.until((text) => text.includes('data: three\n\n'));
      expect(stream.text()).not.toContain('data: two');
      expect(t.kube!.openLogFollows()).toBe(1);
      t.kube!.appendPodLog(NS, POD, ['four', 'five\r'], 'falkordb');
      await stream.until((text) => text.includes('data: five\n\n'));
      await stream.until((text) => text.includes(': heartbeat\n\n'));
      // Framing: every event is `data: <line>` and a blank line; comments apart.
      const events = stream
        .text()
        .split('\n\n')
        .filter((block) => block !== '' && !block.startsWith(':'));
      expect(events).toEqual(['data: three', 'data: four', 'data: five']);
      await stream.close();
      await eventually(() => t.kube!.openLogFollows() === 0, 5000);
    });

    it('ends with an `end` event when the pod log ends', async () => {
      const stream = await openStream(`${base}/api/clusters/solo/pods/${POD}/logs/stream?tailLines=1`, sessions.viewer);
      await stream.until((text) => text.includes('data: five'));
      t.kube!.endPodLog(NS, POD);
      await stream.until((text) => text.includes('event: end\ndata: {"reason":"complete"}\n\n'));
      await eventually(() => stream.ended(), 5000);
    });

    it('ends after the longest stream duration, and closes the upstream follow', async () => {
      const stream = await openStream(`${base}/api/clusters/solo/pods/${POD}/logs/stream`, sessions.viewer);
      await stream.until((text) => text.includes('event: end\ndata: {"reason":"max-duration"}'));
      await eventually(() => t.kube!.openLogFollows() === 0, 5000);
      await stream.close();
    });

    it('limits the streams one user holds open (429), and frees the slot when one closes', async () => {
      const url = `${base}/api/clusters/solo/pods/${POD}/logs/stream?tailLines=1`;
      const first = await openStream(url, sessions.operator);
      const second = await openStream(url, sessions.operator);
      const third = await fetch(url, { headers: { cookie: sessions.operator } });
      expect(third.status).toBe(429);
      const body: unknown = await third.json();
      expect(body).toEqual({
        statusCode: 429,
        error: 'Too Many Requests',
        message: 'Too many open event streams (at most 2 per user); close one and try again',
        code: 'rate_limited',
      });
      // Another user is not affected.
      const other = await openStream(url, sessions.admin);
      expect(other.res.status).toBe(200);
      await first.close();
      await eventually(async () => {
        const again = await fetch(url, { headers: { cookie: sessions.operator }, signal: AbortSignal.timeout(300) })
          .then((res) => res.status)
          .catch(() => 200);
        return again === 200;
      }, 5000);
      await Promise.all([second.close(), other.close()]);
      await eventually(() => t.kube!.openLogFollows() === 0, 5000);
    });

    it('answers a missing pod as a JSON 404 before any stream begins', async () => {
      const res = await get(`/api/clusters/solo/pods/solo-falkordb-9/logs/stream?namespace=${NS}`);
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/json/);
    });
  });

  describe('metrics', () => {
    it('answers 503 naming the metrics API while metrics-server is absent', async () => {
      t.kube!.setMetricsApi(false);
      for (const [path, url] of [
        ['/api/clusters/{name}/metrics', `/api/clusters/solo/metrics?namespace=${NS}`],
        ['/api/clusters/{name}/pods/{podName}/metrics', `/api/clusters/solo/pods/${POD}/metrics?namespace=${NS}`],
      ] as const) {
        const res = await get(url);
        expect(res.statusCode, url).toBe(503);
        expect(res.json()).toEqual({
          statusCode: 503,
          error: 'Service Unavailable',
          message:
            'The Kubernetes metrics API (metrics.k8s.io/v1beta1) is not served by this cluster; install metrics-server to see CPU and memory usage',
          code: 'unavailable',
        });
        validate(path, 503, res.json());
      }
      const stream = await get(`/api/clusters/solo/metrics/stream?namespace=${NS}`);
      expect(stream.statusCode).toBe(503);
    });

    describe('with metrics-server', () => {
      beforeAll(() => {
        t.kube!.setMetricsApi(true);
        t.kube!.put('metrics.k8s.io/v1beta1/pods', NS, {
          apiVersion: 'metrics.k8s.io/v1beta1',
          kind: 'PodMetrics',
          metadata: {
            name: POD,
            labels: { 'app.kubernetes.io/instance': 'solo', 'app.kubernetes.io/managed-by': 'kubeblocks' },
          },
          timestamp: '2026-11-24T08:00:00Z',
          window: '30s',
          containers: [
            { name: 'falkordb', usage: { cpu: '250000000n', memory: '256Mi' } },
            { name: 'metrics', usage: { cpu: '5m', memory: '16384Ki' } },
          ],
        });
      });

      it("sums the cluster's usage against its containers' limits (requests where unlimited)", async () => {
        const res = await get(`/api/clusters/solo/metrics?namespace=${NS}`);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toEqual({
          clusterName: 'solo',
          namespace: NS,
          timestamp: expect.stringMatching(/^\d{4}-/) as unknown,
          usedCpu: '255m',
          totalCpu: '600m',
          usedMemory: '272Mi',
          totalMemory: '1152Mi',
        });
        validate('/api/clusters/{name}/metrics', 200, res.json());
        expect(t.kube!.requests).toContainEqual(
          expect.objectContaining({ method: 'GET', path: `/apis/metrics.k8s.io/v1beta1/namespaces/${NS}/pods` }),
        );
      });

      it("answers the pod's usage as metric families", async () => {
        const res = await get(`/api/clusters/solo/pods/${POD}/metrics?namespace=${NS}`);
        expect(res.statusCode, res.body).toBe(200);
        const families = res.json<{ name: string; samples: { labels: object; value: number }[] }[]>();
        validate('/api/clusters/{name}/pods/{podName}/metrics', 200, families);
        expect(families.map((f) => f.name)).toEqual([
          'container_cpu_usage_cores',
          'container_memory_working_set_bytes',
        ]);
        expect(families[0]!.samples).toEqual([
          { labels: { pod: POD, container: 'falkordb' }, value: 0.25, timestamp: Date.parse('2026-11-24T08:00:00Z') },
          { labels: { pod: POD, container: 'metrics' }, value: 0.005, timestamp: Date.parse('2026-11-24T08:00:00Z') },
        ]);
        expect(families[1]!.samples.map((s) => s.value)).toEqual([256 * 2 ** 20, 16 * 2 ** 20]);
        const foreign = await get(`/api/clusters/solo/pods/pair-falkordb-0/metrics?namespace=${NS}`);
        expect(foreign.statusCode).toBe(404);
      });

      it("adds the database's own families from the pod's exporter (pod proxy), and leaves them out when it is down or slow", async () => {
        const exporterPod = 'pair-falkordb-1';
        t.kube!.put('pods', NS, {
          ...pod(exporterPod, 'pair', [
            { name: 'falkordb', ports: [{ name: 'falkordb', containerPort: 6379 }] },
            { name: 'metrics', ports: [{ name: 'http-metrics', containerPort: 9121 }] },
          ]),
        });
        t.kube!.setPodProxy(
          NS,
          exporterPod,
          9121,
          [
            '# HELP go_goroutines Number of goroutines.',
            '# TYPE go_goroutines gauge',
            'go_goroutines 12',
            '# HELP redis_memory_used_bytes memory_used_bytes metric',
            '# TYPE redis_memory_used_bytes gauge',
            'redis_memory_used_bytes 2.097152e+06',
            '# TYPE redis_commands_total counter',
            'redis_commands_total{cmd="graph.query"} 42',
          ].join('\n'),
        );
        const url = `/api/clusters/pair/pods/${exporterPod}/metrics?namespace=${NS}`;
        const res = await get(url);
        expect(res.statusCode, res.body).toBe(200);
        const families = res.json<{ name: string; type?: string; samples: unknown[] }[]>();
        validate('/api/clusters/{name}/pods/{podName}/metrics', 200, families);
        expect(families.map((f) => f.name)).toEqual([
          'container_cpu_usage_cores',
          'container_memory_working_set_bytes',
          'redis_memory_used_bytes',
          'redis_commands_total',
        ]);
        expect(families[2]).toEqual({
          name: 'redis_memory_used_bytes',
          help: 'memory_used_bytes metric',
          type: 'gauge',
          samples: [{ labels: { pod: exporterPod }, value: 2097152 }],
        });
        expect(families[3]!.samples).toEqual([{ labels: { cmd: 'graph.query', pod: exporterPod }, value: 42 }]);
        expect(t.kube!.requests).toContainEqual(
          expect.objectContaining({
            method: 'GET',
            path: `/api/v1/namespaces/${NS}/pods/${exporterPod}:9121/proxy/metrics`,
          }),
        );
        // A pod without an exporter port is never proxied to.
        const proxied = () => t.kube!.requests.filter((r) => r.path.includes('/proxy/')).length;
        const before = proxied();
        expect((await get(`/api/clusters/solo/pods/${POD}/metrics?namespace=${NS}`)).statusCode).toBe(200);
        expect(proxied()).toBe(before);

        // Down (nothing listens: the API server answers 503) and slow (past the 3 s bound): the metrics API's families.
        t.kube!.setPodProxy(NS, exporterPod, 9121, undefined);
        const down = await get(url);
        expect(down.statusCode, down.body).toBe(200);
        expect(down.json<{ name: string }[]>().map((f) => f.name)).toEqual([
          'container_cpu_usage_cores',
          'container_memory_working_set_bytes',
        ]);
        t.kube!.setPodProxy(NS, exporterPod, 9121, 'redis_up 1\n', 10_000);
        const slow = await get(url);
        expect(slow.statusCode, slow.body).toBe(200);
        expect(slow.json<{ name: string }[]>().map((f) => f.name)).not.toContain('redis_up');
        t.kube!.setPodProxy(NS, exporterPod, 9121, undefined);
      });

      it('streams ClusterMetrics snapshots every intervalSeconds, each valid against the real schema', async () => {
        const stream = await openStream(`${base}/api/clusters/solo/metrics/stream?intervalSeconds=1`, sessions.viewer);
        expect(stream.res.status).toBe(200);
        await stream.until((text) => text.split('data: {"clusterName"').length > 2);
        for (const block of stream.text().split('\n\n')) {
          if (!block.startsWith('data: ')) continue;
          const snapshot: unknown = JSON.parse(block.slice('data: '.length));
          validate('/api/clusters/{name}/metrics/stream', 200, snapshot);
        }
        await stream.close();
      });

      it('streams pod metric families, and bounds intervalSeconds (1..60)', async () => {
        const stream = await openStream(
          `${base}/api/clusters/solo/pods/${POD}/metrics/stream?intervalSeconds=1`,
          sessions.viewer,
        );
        await stream.until((text) => text.includes('data: [{"name":"container_cpu_usage_cores"'));
        const first = stream
          .text()
          .split('\n\n')
          .find((block) => block.startsWith('data: '))!;
        validate('/api/clusters/{name}/pods/{podName}/metrics/stream', 200, JSON.parse(first.slice(6)));
        await stream.close();
        for (const interval of ['0', '61'])
          expect((await get(`/api/clusters/solo/metrics/stream?intervalSeconds=${interval}`)).statusCode).toBe(400);
      });
    });
  });
});

describe('pod logs and metrics of the embedded FalkorDB', () => {
  let falkordb: TestFalkorDB;
  let deployment: TestEmbeddedDeployment | undefined;
  beforeAll(async () => {
    falkordb = await startTestFalkorDB();
    deployment = testEmbeddedDeployment(falkordb, NS);
  });
  afterAll(async () => {
    await deployment?.close();
    await falkordb.stop();
  });
  const viewer = useAdminApp(() => ({ falkordb, clusters: deployment!.clusters })).as('viewer');

  it('answers 422 with the reason: it runs in this server, not in a pod', async () => {
    for (const url of [
      `/api/clusters/embedded/pods/embedded-0/logs?namespace=${NS}`,
      `/api/clusters/embedded/pods/embedded-0/logs/stream?namespace=${NS}`,
      `/api/clusters/embedded/metrics?namespace=${NS}`,
      `/api/clusters/embedded/pods/embedded-0/metrics?namespace=${NS}`,
    ]) {
      const res = await viewer.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(422);
      expect(res.json<{ message: string }>().message).toMatch(
        /^Cluster embedded is this server's embedded FalkorDB: a child process the server runs on its own machine, not a Kubernetes pod/,
      );
    }
  });

  it('answers 404 for a cluster that does not exist', async () => {
    const res = await viewer.inject({ method: 'GET', url: '/api/clusters/ghost/metrics' });
    expect(res.statusCode).toBe(404);
  });
});
