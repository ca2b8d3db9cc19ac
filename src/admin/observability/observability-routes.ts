// /api/clusters/{clusterName}/pods/{podName}/logs[/stream], /api/clusters/{clusterName}/metrics[/stream] and
// /api/clusters/{clusterName}/pods/{podName}/metrics[/stream]: pod logs and resource metrics at the FalkorDB Enterprise admin API's paths,
// permission-checked as `clusters:read` in the cluster's namespace. Streams are server-sent events.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { namespaceOfRequest } from '../clusters/cluster-scope.js';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { openEventStream } from '../../http/sse.js';
import { isPortError } from '../../platform/port-errors.js';
import { mapError } from '../../http/error-handler.js';
import type { ClusterService } from '../clusters/cluster-service.js';
import { requirePermission } from '../permissions/permissions.js';
import type { ObservabilityService } from './observability-service.js';
import {
  ClusterMetricsSchema,
  ClusterParamsSchema,
  ClusterMetricsEventStreamSchema,
  LogEventStreamSchema,
  PodMetricsEventStreamSchema,
  LogQuerySchema,
  NamespaceQuerySchema,
  PodLogsSchema,
  PodParamsSchema,
  PromMetricFamiliesSchema,
  StreamQuerySchema,
} from './schemas.js';
import { LineSplitter, logLineEvent } from './telemetry-math.js';

const tags = ['Clusters'];
/** Comment lines that keep proxies from closing a quiet stream. */
export const STREAM_HEARTBEAT_MS = 15_000;

/** What the pod log and metrics routes call; `clusterNamespace` answers a request that names no namespace. */
export interface ObservabilityRouteDeps {
  observability: ObservabilityService;
  clusters: ClusterService;
  clusterNamespace: string;
  /** Heartbeat period of the streams (tests shorten it). */
  heartbeatMs?: number;
}

function sseDescription(
  what: string,
  events: z.ZodType,
): { description: string; content: Record<string, { schema: unknown }> } {
  return { description: what, content: { 'text/event-stream': { schema: events } } };
}

export function observabilityRoutes(scope: FastifyInstance, deps: ObservabilityRouteDeps): void {
  const { observability, clusters, clusterNamespace } = deps;
  const heartbeatMs = deps.heartbeatMs ?? STREAM_HEARTBEAT_MS;
  const routes = scope.withTypeProvider<ZodTypeProvider>();
  const namespaceOf = namespaceOfRequest(clusterNamespace);
  // multi_cluster_mode, as for the other cluster routes: another namespace is not found while it is off.
  const inScope = async (request: FastifyRequest) => {
    const name = (request.params as { clusterName?: unknown }).clusterName;
    if (typeof name === 'string') await clusters.assertNamespaceInScope(namespaceOf(request), name);
  };
  const guard = { preValidation: requirePermission('clusters', 'read', namespaceOf), preHandler: inScope };
  const maxStreamMs = observability.limits.maxStreamSeconds * 1000;

  /**
   * Runs an event stream on a hijacked reply: one of the user's stream slots, the heartbeat, the longest life;
   * an `end` event says why it ended (`complete`, `max-duration`), an `error` event what failed once it had begun.
   */
  function runStream(
    request: FastifyRequest,
    reply: FastifyReply,
    body: (signal: AbortSignal, write: (text: string) => void) => Promise<void>,
  ): FastifyReply {
    const release = observability.acquireStream(request.sessionUser!.id);
    // A stream's socket is not reused: it would otherwise outlive the stream as an idle keep-alive connection.
    void reply.header('connection', 'close');
    const stream = openEventStream(request, reply, heartbeatMs);
    const upstream = new AbortController();
    const stop = () => upstream.abort();
    stream.signal.addEventListener('abort', stop, { once: true });
    let reason = 'complete';
    const timer = setTimeout(() => {
      reason = 'max-duration';
      upstream.abort();
    }, maxStreamMs);
    const write = (text: string) => {
      if (!stream.signal.aborted) stream.write(text);
    };
    void body(upstream.signal, write)
      .then(() => {
        if (!stream.signal.aborted) stream.endWith('end', JSON.stringify({ reason }));
      })
      .catch((error: unknown) => {
        const mapped = mapError(error);
        if (!isPortError(error)) request.log.warn({ err: error }, 'event stream failed');
        if (!stream.signal.aborted)
          stream.endWith('error', JSON.stringify({ error: mapped.message, code: mapped.code }));
      })
      .finally(() => {
        clearTimeout(timer);
        stream.signal.removeEventListener('abort', stop);
        release();
      });
    return reply;
  }

  /** Sends `snapshot()` at once and then every interval, until the stream is stopped. */
  function snapshots(intervalSeconds: number, snapshot: () => Promise<unknown>) {
    return async (signal: AbortSignal, write: (text: string) => void) => {
      while (!signal.aborted) {
        write(`data: ${JSON.stringify(await snapshot())}\n\n`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, intervalSeconds * 1000);
          signal.addEventListener(
            'abort',
            () => {
              clearTimeout(timer);
              resolve();
            },
            { once: true },
          );
        });
      }
    };
  }

  for (const base of ['/api/clusters/:clusterName/pods/:podName/logs']) {
    routes.get(
      base,
      {
        ...guard,
        config: { errorResponses: [404, 422, 503] },
        schema: {
          operationId: 'getPodLogs',
          tags,
          summary: 'Get logs from a specific pod',
          description:
            "The pod's log lines, oldest first: the last `tailLines` (default 500, at most 10000), at most 2 MiB. " +
            'The pod must belong to the cluster (label `app.kubernetes.io/instance`), else 404. 422 for the ' +
            "embedded FalkorDB, which runs in this server's process.",
          params: PodParamsSchema,
          querystring: LogQuerySchema,
          response: { 200: PodLogsSchema },
        },
      },
      async (request) => {
        const { clusterName: name, podName } = request.params;
        const { namespace: _namespace, ...query } = request.query;
        return observability.logs(namespaceOf(request), name, podName, query);
      },
    );

    routes.get(
      `${base}/stream`,
      {
        ...guard,
        config: { errorResponses: [404, 422, 429, 503], requestDeadline: false },
        schema: {
          operationId: 'streamPodLogs',
          tags,
          summary: 'Stream logs from a specific pod using Server-Sent Events',
          description:
            'Follows the pod log: the last `tailLines` (default 500) first, then each new line as it is written, one ' +
            'unnamed event per line (`data: <line>`), comment heartbeats every 15 s. It ends with an `end` event ' +
            '(`{"reason":"complete"}` when the pod log ends or 2 MiB were sent, `"max-duration"` after OBSERVABILITY_STREAM_MAX_SECONDS) ' +
            'or an `error` event `{"error": message, "code": code}`; when the client leaves, the request to Kubernetes is closed. A user may hold ' +
            'OBSERVABILITY_STREAMS_PER_USER streams at once (429 beyond).',
          params: PodParamsSchema,
          querystring: LogQuerySchema,
          response: { 200: sseDescription('Log lines as server-sent events', LogEventStreamSchema) },
        },
      },
      async (request, reply) => {
        const { clusterName: name, podName } = request.params;
        const { namespace: _namespace, ...query } = request.query;
        const prepared = await observability.prepareLogStream(namespaceOf(request), name, podName, query);
        return runStream(request, reply, async (signal, write) => {
          const splitter = new LineSplitter();
          await prepared.follow((text) => {
            for (const line of splitter.push(text)) write(logLineEvent(line));
          }, signal);
          for (const line of splitter.flush()) write(logLineEvent(line));
        });
      },
    );
  }

  routes.get(
    '/api/clusters/:clusterName/metrics',
    {
      ...guard,
      config: { errorResponses: [404, 422, 503] },
      schema: {
        operationId: 'getClusterMetrics',
        tags,
        summary: 'Get aggregated metrics for all pods in a cluster',
        description:
          "CPU and memory the cluster's pods use now (the Kubernetes metrics API, metrics.k8s.io) against the sum of " +
          "their containers' limits. 503 naming the metrics API when the cluster does not serve it (no " +
          'metrics-server); 422 for the embedded FalkorDB.',
        params: ClusterParamsSchema,
        querystring: NamespaceQuerySchema,
        response: { 200: ClusterMetricsSchema },
      },
    },
    async (request) => observability.clusterMetrics(namespaceOf(request), request.params.clusterName),
  );

  routes.get(
    '/api/clusters/:clusterName/metrics/stream',
    {
      ...guard,
      config: { errorResponses: [404, 422, 429, 503], requestDeadline: false },
      schema: {
        operationId: 'streamClusterMetrics',
        tags,
        summary: 'Stream aggregated cluster metrics (CPU & memory) as Server-Sent Events',
        description:
          'A ClusterMetrics snapshot as an unnamed event (`data: {…}`) at once and every `intervalSeconds` (1–60, ' +
          'default 5), until the client leaves or OBSERVABILITY_STREAM_MAX_SECONDS pass (`end` event). The first ' +
          'snapshot is taken before the 200, so a missing metrics API is a 503.',
        params: ClusterParamsSchema,
        querystring: StreamQuerySchema,
        response: {
          200: sseDescription('ClusterMetrics snapshots as server-sent events', ClusterMetricsEventStreamSchema),
        },
      },
    },
    async (request, reply) => {
      const namespace = namespaceOf(request);
      const { clusterName: name } = request.params;
      let first: unknown = await observability.clusterMetrics(namespace, name);
      return runStream(
        request,
        reply,
        snapshots(request.query.intervalSeconds, async () => {
          const next = first ?? (await observability.clusterMetrics(namespace, name));
          first = undefined;
          return next;
        }),
      );
    },
  );

  routes.get(
    '/api/clusters/:clusterName/pods/:podName/metrics',
    {
      ...guard,
      config: { errorResponses: [404, 422, 503] },
      schema: {
        operationId: 'getPodMetrics',
        tags,
        summary: 'Get Prometheus metrics from a pod parsed into structured JSON',
        description:
          "The pod's CPU and memory usage per container from the Kubernetes metrics API, as Prometheus metric " +
          'families (`container_cpu_usage_cores`, `container_memory_working_set_bytes`, labels `pod` and ' +
          '`container`). 404 when the pod is not one of the cluster; 503 without the metrics API.',
        params: PodParamsSchema,
        querystring: NamespaceQuerySchema,
        response: { 200: PromMetricFamiliesSchema },
      },
    },
    async (request) =>
      observability.podMetrics(namespaceOf(request), request.params.clusterName, request.params.podName),
  );

  routes.get(
    '/api/clusters/:clusterName/pods/:podName/metrics/stream',
    {
      ...guard,
      config: { errorResponses: [404, 422, 429, 503], requestDeadline: false },
      schema: {
        operationId: 'streamPodMetrics',
        tags,
        summary: 'Stream parsed Prometheus pod metrics as Server-Sent Events',
        description:
          "The pod's metric families as an unnamed event at once and every `intervalSeconds` (1–60, default 5), " +
          'until the client leaves or OBSERVABILITY_STREAM_MAX_SECONDS pass (`end` event).',
        params: PodParamsSchema,
        querystring: StreamQuerySchema,
        response: { 200: sseDescription('Metric families as server-sent events', PodMetricsEventStreamSchema) },
      },
    },
    async (request, reply) => {
      const namespace = namespaceOf(request);
      const { clusterName: name, podName } = request.params;
      let first: unknown = await observability.podMetrics(namespace, name, podName);
      return runStream(
        request,
        reply,
        snapshots(request.query.intervalSeconds, async () => {
          const next = first ?? (await observability.podMetrics(namespace, name, podName));
          first = undefined;
          return next;
        }),
      );
    },
  );
}
