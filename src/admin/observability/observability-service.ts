// Pod logs and resource metrics of a deployment: checks the pod belongs to the cluster, reads or follows its log
// within bounds, and turns the metrics API's usage into the FalkorDB Enterprise admin API's ClusterMetrics and metric families.
// Event streams are limited per user and in time. Without Kubernetes (the embedded FalkorDB) there are no pods: 422.
import type { PodSummary, PodTelemetryPort } from '../../platform/kubernetes/kube-pod-telemetry.js';
import { BadRequestError, HttpError, NotFoundError, UnprocessableError } from '../../http/http-errors.js';
import type { ClusterService } from '../clusters/cluster-service.js';
import { EXPORTER_LIMITS, parseExposition } from './prometheus-text.js';
import { clusterUsage, logLines, podMetricFamilies, type ClusterUsage, type MetricFamily } from './telemetry-math.js';

/** Lines returned by the logs route when `tailLines` is absent, and the most any read returns. */
export const DEFAULT_TAIL_LINES = 500;
export const MAX_TAIL_LINES = 10_000;
/** Bytes of log one read (or one stream) may carry. */
export const MAX_LOG_BYTES = 2 * 1024 * 1024;

export interface ObservabilityLimits {
  /** Longest life of one event stream. */
  maxStreamSeconds: number;
  /** Event streams one user may hold open at once (per replica). */
  streamsPerUser: number;
  /** Pod metrics also carry the pod's exporter families (EXPORTER_METRICS). */
  scrapeExporters?: boolean;
}

export interface LogRequest {
  container?: string;
  tailLines?: number;
  sinceSeconds?: number;
  timestamps?: boolean;
  previous?: boolean;
}

export interface ClusterMetrics extends ClusterUsage {
  clusterName: string;
  namespace: string;
  timestamp: string;
}

export interface ObservabilityDeps {
  /** Absent without Kubernetes: the embedded FalkorDB runs in this server's process, not in a pod. */
  telemetry?: PodTelemetryPort;
  clusters: ClusterService;
  limits: ObservabilityLimits;
  /** Where a failed exporter scrape is reported (it does not fail the route). */
  logger?: { warn(object: object, message: string): void };
  now?: () => number;
}

export function createObservabilityService(deps: ObservabilityDeps) {
  const { clusters, limits, logger } = deps;
  const now = deps.now ?? Date.now;
  const openStreams = new Map<string, number>();

  function platform(cluster: string, what: string): PodTelemetryPort {
    if (!deps.telemetry)
      throw new UnprocessableError(
        `Cluster ${cluster} is this server's embedded FalkorDB: a child process the server runs on its own machine, not a Kubernetes pod, so it has no ${what}`,
      );
    return deps.telemetry;
  }

  /** The cluster exists (404 otherwise) and the pod is one of its pods (404 otherwise). */
  async function podOf(namespace: string, cluster: string, pod: string) {
    await clusters.get(namespace, cluster);
    const telemetry = platform(cluster, 'pod logs or pod metrics');
    const pods = await telemetry.clusterPods(namespace, cluster);
    const found = pods.find((candidate) => candidate.name === pod);
    if (!found) throw new NotFoundError(`Pod ${pod} not found in cluster ${cluster} (namespace ${namespace})`);
    return { telemetry, pods, pod: found };
  }

  /**
   * The database's own figures from the pod's exporter (commands, keys, memory as FalkorDB reports them), when the pod
   * has one and scraping is on. Best effort: an exporter that is down, slow or not reachable through the pod proxy
   * leaves them out (logged) and the route still answers the metrics API's families.
   */
  async function exporterFamilies(
    telemetry: PodTelemetryPort,
    namespace: string,
    pod: PodSummary,
  ): Promise<MetricFamily[]> {
    if (!limits.scrapeExporters || pod.exporterPort === undefined || !telemetry.scrapeExporter) return [];
    try {
      const page = await telemetry.scrapeExporter(namespace, pod.name, pod.exporterPort);
      return parseExposition(page, EXPORTER_LIMITS, { pod: pod.name });
    } catch (error) {
      logger?.warn({ err: error, pod: pod.name, namespace }, 'exporter metrics unavailable');
      return [];
    }
  }

  /**
   * The container asked for (400 when the pod has none of that name); otherwise the pod's default container
   * (annotation), else its first: the API server itself refuses a log request without one on a multi-container pod.
   */
  function logOptions(pod: PodSummary, request: LogRequest) {
    const names = pod.containers.map((container) => container.name);
    if (request.container !== undefined && !names.includes(request.container))
      throw new BadRequestError(
        `Container ${request.container} not found in pod ${pod.name}; its containers: ${names.join(', ')}`,
      );
    const container =
      request.container ??
      (pod.defaultContainer && names.includes(pod.defaultContainer) ? pod.defaultContainer : names[0]);
    return {
      ...request,
      container,
      tailLines: Math.min(request.tailLines ?? DEFAULT_TAIL_LINES, MAX_TAIL_LINES),
      limitBytes: MAX_LOG_BYTES,
    };
  }

  return {
    limits,

    async logs(namespace: string, cluster: string, pod: string, request: LogRequest) {
      const { telemetry, pod: found } = await podOf(namespace, cluster, pod);
      const options = logOptions(found, request);
      const lines = logLines(await telemetry.readLog(namespace, pod, options));
      // tailLines counts lines; a line cut by the byte limit is still a line.
      return { podName: pod, logs: lines.slice(-options.tailLines) };
    },

    /** Checks everything a log stream needs before its 200 is sent; `follow` then runs it. */
    async prepareLogStream(namespace: string, cluster: string, pod: string, request: LogRequest) {
      const { telemetry, pod: found } = await podOf(namespace, cluster, pod);
      const options = logOptions(found, request);
      return {
        follow: (onText: (text: string) => void, signal: AbortSignal) =>
          telemetry.followLog(namespace, pod, options, onText, signal),
      };
    },

    async clusterMetrics(namespace: string, cluster: string): Promise<ClusterMetrics> {
      await clusters.get(namespace, cluster);
      const telemetry = platform(cluster, 'pod metrics');
      const [pods, usage] = await Promise.all([
        telemetry.clusterPods(namespace, cluster),
        telemetry.podUsage(namespace, cluster),
      ]);
      return {
        clusterName: cluster,
        namespace,
        timestamp: new Date(now()).toISOString(),
        ...clusterUsage(pods, usage),
      };
    },

    async podMetrics(namespace: string, cluster: string, pod: string): Promise<MetricFamily[]> {
      const { telemetry, pod: found } = await podOf(namespace, cluster, pod);
      const [usage, exporter] = await Promise.all([
        telemetry.podUsage(namespace, cluster),
        exporterFamilies(telemetry, namespace, found),
      ]);
      const sampled = usage.find((candidate) => candidate.name === pod);
      // metrics-server has not sampled a new pod yet: its families, without samples.
      return [...podMetricFamilies(sampled ?? { name: pod, containers: [] }), ...exporter];
    },

    /** Takes one of the user's stream slots (429 when all are taken); the returned function gives it back. */
    acquireStream(userId: string): () => void {
      const held = openStreams.get(userId) ?? 0;
      if (held >= limits.streamsPerUser)
        throw new HttpError(
          429,
          `Too many open event streams (at most ${limits.streamsPerUser} per user); close one and try again`,
          { 'retry-after': '5' },
        );
      openStreams.set(userId, held + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (openStreams.get(userId) ?? 1) - 1;
        if (left <= 0) openStreams.delete(userId);
        else openStreams.set(userId, left);
      };
    },
  };
}

export type ObservabilityService = ReturnType<typeof createObservabilityService>;
