// Pod logs and resource usage from the Kubernetes API: the pods of a deployment (label
// `app.kubernetes.io/instance=<cluster>`), their log (`pods/log`, followed or not) and their usage from the
// metrics API (`metrics.k8s.io/v1beta1` PodMetrics), which only a cluster running metrics-server serves.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type RequestOptions as HttpsRequestOptions } from 'node:https';
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { PortError } from '../port-errors.js';
import { INSTANCE_LABEL, MANAGED_BY_LABEL } from '../../lib/kubernetes-labels.js';
import { statusBodyOf, translateKubeError } from './kube-errors.js';

/**
 * The pods of a deployment: KubeBlocks' instance label and its managed-by mark, so that nothing else labelled with
 * the deployment's name (the server's own pods carry app.kubernetes.io/instance=<Helm release>) is ever selected.
 */
export const kubeBlocksPodsOf = (cluster: string) => `${INSTANCE_LABEL}=${cluster},${MANAGED_BY_LABEL}=kubeblocks`;
export const METRICS_API = 'metrics.k8s.io/v1beta1';

export interface PodSummary {
  name: string;
  /** The `kubectl.kubernetes.io/default-container` annotation, when the pod names one. */
  defaultContainer?: string;
  containers: { name: string; cpuLimit?: string; memoryLimit?: string; cpuRequest?: string; memoryRequest?: string }[];
  /** The container port KubeBlocks' exporter serves on (named `http-metrics`), when the pod has one. */
  exporterPort?: number;
}

/** The port name of the metrics exporter container in KubeBlocks' component definitions (`exporter.scrapePort`). */
export const EXPORTER_PORT_NAME = 'http-metrics';
/** An exporter's page is read for at most this long and this many bytes. */
export const EXPORTER_TIMEOUT_MS = 3000;
export const EXPORTER_MAX_BYTES = 1024 * 1024;

export interface PodUsage {
  name: string;
  /** When metrics-server sampled it (RFC 3339), and over which window (`30s`). */
  timestamp?: string;
  window?: string;
  containers: { name: string; cpu: string; memory: string }[];
}

export interface LogOptions {
  container?: string;
  tailLines?: number;
  sinceSeconds?: number;
  timestamps?: boolean;
  previous?: boolean;
  /** The API server stops sending after this many bytes. */
  limitBytes: number;
}

/** The metrics API (metrics-server) is not served by this API server. */
export class MetricsApiUnavailableError extends PortError {
  constructor() {
    super(
      'unavailable',
      `The Kubernetes metrics API (${METRICS_API}) is not served by this cluster; install metrics-server to see CPU and memory usage`,
    );
  }
}

export interface PodTelemetryPort {
  /** The deployment's pods in its namespace (one list call with a label selector). */
  clusterPods(namespace: string, cluster: string): Promise<PodSummary[]>;
  /** At most `limitBytes` of the pod's log. */
  readLog(namespace: string, pod: string, options: LogOptions): Promise<string>;
  /**
   * Follows the pod's log (`follow=true`): `onText` gets each piece as it arrives; resolves when the API server ends
   * the log or `signal` aborts (the upstream request is then destroyed). Rejects, translated, when it cannot start.
   */
  followLog(
    namespace: string,
    pod: string,
    options: LogOptions,
    onText: (text: string) => void,
    signal: AbortSignal,
  ): Promise<void>;
  /** The deployment's pods' usage; MetricsApiUnavailableError when the metrics API is not served. */
  podUsage(namespace: string, cluster: string): Promise<PodUsage[]>;
  /**
   * The pod's exporter page (Prometheus text), through the API server's pod proxy (`pods/proxy`) to `port`'s
   * `/metrics`: bounded in time and size; rejects, translated, when it cannot be read.
   */
  scrapeExporter?(namespace: string, pod: string, port: number): Promise<string>;
}

function summaryOf(pod: V1Pod): PodSummary {
  const exporterPort = (pod.spec?.containers ?? [])
    .flatMap((container) => container.ports ?? [])
    .find((port) => port.name === EXPORTER_PORT_NAME)?.containerPort;
  return {
    ...(exporterPort !== undefined ? { exporterPort } : {}),
    name: pod.metadata?.name ?? '',
    defaultContainer: pod.metadata?.annotations?.['kubectl.kubernetes.io/default-container'],
    containers: (pod.spec?.containers ?? []).map((c) => ({
      name: c.name,
      cpuLimit: c.resources?.limits?.cpu,
      memoryLimit: c.resources?.limits?.memory,
      cpuRequest: c.resources?.requests?.cpu,
      memoryRequest: c.resources?.requests?.memory,
    })),
  };
}

function logQuery(options: LogOptions, follow: boolean): string {
  const query = new URLSearchParams();
  if (options.container) query.set('container', options.container);
  if (options.tailLines !== undefined) query.set('tailLines', String(options.tailLines));
  if (options.sinceSeconds !== undefined) query.set('sinceSeconds', String(options.sinceSeconds));
  if (options.timestamps) query.set('timestamps', 'true');
  if (options.previous) query.set('previous', 'true');
  query.set('limitBytes', String(options.limitBytes));
  if (follow) query.set('follow', 'true');
  return query.toString();
}

interface MetricsList {
  items?: {
    metadata?: { name?: string };
    timestamp?: string;
    window?: string;
    containers?: { name?: string; usage?: { cpu?: string; memory?: string } }[];
  }[];
}

export function createKubePodTelemetry(kubeConfig: KubeConfig, onError?: (kind: string) => void): PodTelemetryPort {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const fail = (error: unknown, verb: string, resource: string, namespace: string): never => {
    const translated =
      error instanceof LogHttpError
        ? logErrorOf(error, resource)
        : translateKubeError(error, { verb, resource, namespace });
    const code = (error as { code?: unknown }).code;
    onError?.(typeof code === 'number' ? String(code) : 'unreachable');
    throw translated;
  };

  /** A GET of the log through node's HTTP client, with the kubeconfig's credentials, which `signal` can cut. */
  function openLog(
    namespace: string,
    pod: string,
    options: LogOptions,
    follow: boolean,
    signal: AbortSignal,
  ): Promise<IncomingMessage> {
    return openGet(
      `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log?${logQuery(options, follow)}`,
      signal,
    );
  }

  /** A streamed GET of an API server path (the client-node API classes read whole bodies); `signal` cuts it. */
  async function openGet(path: string, signal: AbortSignal): Promise<IncomingMessage> {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new PortError('unavailable', 'No Kubernetes cluster is configured');
    const url = new URL(path, cluster.server);
    const requestOptions: HttpsRequestOptions = { method: 'GET', headers: {} };
    await kubeConfig.applyToHTTPSOptions(requestOptions);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<IncomingMessage>((resolve, reject) => {
      const req = send(url, { ...requestOptions, signal }, (res) => {
        // 204: an empty log (a pod no node runs yet).
        if (res.statusCode === 200 || res.statusCode === 204) return resolve(res);
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = statusBodyOf(Buffer.concat(chunks).toString('utf8'));
          reject(new LogHttpError(res.statusCode ?? 500, body.message));
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  }

  return {
    async clusterPods(namespace, cluster) {
      try {
        const list = await core.listNamespacedPod({ namespace, labelSelector: kubeBlocksPodsOf(cluster) });
        return list.items.map(summaryOf);
      } catch (error) {
        return fail(error, 'list', 'pods', namespace);
      }
    },

    async readLog(namespace, pod, options) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 15_000);
      try {
        const res = await openLog(namespace, pod, options, false, controller.signal);
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of res as AsyncIterable<Buffer>) {
          chunks.push(chunk);
          size += chunk.length;
          // The API server honours limitBytes; this guards against one that does not.
          if (size >= options.limitBytes) {
            res.destroy();
            break;
          }
        }
        return Buffer.concat(chunks).subarray(0, options.limitBytes).toString('utf8');
      } catch (error) {
        return fail(error, 'get', 'pods/log', namespace);
      } finally {
        clearTimeout(timer);
      }
    },

    async followLog(namespace, pod, options, onText, signal) {
      let res: IncomingMessage;
      try {
        res = await openLog(namespace, pod, options, true, signal);
      } catch (error) {
        if (signal.aborted) return;
        return fail(error, 'get', 'pods/log', namespace);
      }
      await new Promise<void>((resolve) => {
        res.setEncoding('utf8');
        res.on('data', (text: string) => onText(text));
        res.on('end', resolve);
        res.on('close', resolve);
        res.on('error', () => resolve());
        signal.addEventListener('abort', () => res.destroy(), { once: true });
      });
    },

    async scrapeExporter(namespace, pod, port) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), EXPORTER_TIMEOUT_MS);
      try {
        const res = await openGet(
          `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}:${port}/proxy/metrics`,
          controller.signal,
        );
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of res as AsyncIterable<Buffer>) {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= EXPORTER_MAX_BYTES) {
            res.destroy();
            break;
          }
        }
        // A page cut at the bound loses its last, partial line only: the parser skips what does not parse.
        return Buffer.concat(chunks).subarray(0, EXPORTER_MAX_BYTES).toString('utf8');
      } catch (error) {
        if (controller.signal.aborted)
          throw new PortError('timeout', `The exporter of pod ${pod} did not answer within ${EXPORTER_TIMEOUT_MS} ms`);
        return fail(error, 'get', 'pods/proxy', namespace);
      } finally {
        clearTimeout(timer);
      }
    },

    async podUsage(namespace, cluster) {
      try {
        const list = (await custom.listNamespacedCustomObject({
          group: 'metrics.k8s.io',
          version: 'v1beta1',
          namespace,
          plural: 'pods',
          labelSelector: kubeBlocksPodsOf(cluster),
        })) as MetricsList;
        return (list.items ?? []).map((item) => ({
          name: item.metadata?.name ?? '',
          timestamp: item.timestamp,
          window: item.window,
          containers: (item.containers ?? []).map((c) => ({
            name: c.name ?? '',
            cpu: c.usage?.cpu ?? '0',
            memory: c.usage?.memory ?? '0',
          })),
        }));
      } catch (error) {
        const translated = translateKubeError(error, { verb: 'list', resource: 'pods.metrics.k8s.io', namespace });
        // A 404 of the whole resource: the API server does not serve metrics.k8s.io (no metrics-server).
        if (translated.kind === 'not-found') throw new MetricsApiUnavailableError();
        // An API server whose aggregated metrics API is registered but down answers 503.
        if (translated.kind === 'unavailable' && (error as { code?: number }).code === 503)
          throw new MetricsApiUnavailableError();
        return fail(error, 'list', 'pods.metrics.k8s.io', namespace);
      }
    },
  };
}

/** A non-200 answer of the log endpoint, in the ApiException form translateKubeError reads. */
class LogHttpError extends Error {
  constructor(
    readonly code: number,
    readonly reason?: string,
  ) {
    super(reason ?? `HTTP ${code}`);
  }
}

function logErrorOf(error: LogHttpError, resource: string): PortError {
  switch (error.code) {
    case 403:
      return new PortError(
        'forbidden',
        `The server's service account may not get ${resource}; grant it in the chart's Role`,
      );
    case 404:
      return new PortError('not-found', error.reason ?? 'pod not found');
    case 400:
      // e.g. `container x is not valid for pod y`, or `previous terminated container not found`.
      return new PortError('rejected', error.reason ?? `the ${resource} request was refused`);
    default:
      return new PortError('unavailable', `The Kubernetes API server answered ${error.code} to get ${resource}`);
  }
}
