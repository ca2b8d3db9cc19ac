// Pure helpers of pod logs and metrics: Kubernetes quantities (metrics-server speaks nanocores), the cluster's
// used/total sums, the pod's usage as Prometheus-style metric families, and the line framing of a followed log.
import type { PodSummary, PodUsage } from '../../platform/kubernetes/kube-pod-telemetry.js';
import { parseQuantity } from '../../platform/kubernetes/quantities.js';

export { parseQuantity };

/** Cores as a Kubernetes quantity in millicores: 0.2504 → `250m`. */
export function formatCpu(cores: number): string {
  return `${Math.round(cores * 1000)}m`;
}

/** Bytes as a Kubernetes quantity in mebibytes: 268435456 → `256Mi` (rounded to a whole Mi). */
export function formatMemory(bytes: number): string {
  return `${Math.round(bytes / 2 ** 20)}Mi`;
}

export interface ClusterUsage {
  usedCpu: string;
  totalCpu: string;
  usedMemory: string;
  totalMemory: string;
}

/**
 * What the deployment uses (the sum of its pods' usage) and what it may use: the sum of its containers' limits,
 * or of their requests where a container has no limit (a container with neither counts 0).
 */
export function clusterUsage(pods: readonly PodSummary[], usage: readonly PodUsage[]): ClusterUsage {
  let usedCpu = 0;
  let usedMemory = 0;
  const names = new Set(pods.map((pod) => pod.name));
  for (const pod of usage) {
    if (!names.has(pod.name)) continue;
    for (const container of pod.containers) {
      usedCpu += parseQuantity(container.cpu) ?? 0;
      usedMemory += parseQuantity(container.memory) ?? 0;
    }
  }
  let totalCpu = 0;
  let totalMemory = 0;
  for (const pod of pods)
    for (const container of pod.containers) {
      totalCpu += parseQuantity(container.cpuLimit ?? container.cpuRequest) ?? 0;
      totalMemory += parseQuantity(container.memoryLimit ?? container.memoryRequest) ?? 0;
    }
  return {
    usedCpu: formatCpu(usedCpu),
    totalCpu: formatCpu(totalCpu),
    usedMemory: formatMemory(usedMemory),
    totalMemory: formatMemory(totalMemory),
  };
}

export interface MetricFamily {
  name: string;
  help?: string;
  type?: string;
  samples: { labels: Record<string, string>; value: number; timestamp?: number }[];
}

/** One pod's usage as the families a cAdvisor-style exporter names them, one sample per container. */
export function podMetricFamilies(pod: PodUsage): MetricFamily[] {
  const timestamp = pod.timestamp ? Date.parse(pod.timestamp) : Number.NaN;
  const at = Number.isFinite(timestamp) ? { timestamp } : {};
  const sample = (container: string, value: number) => ({ labels: { pod: pod.name, container }, value, ...at });
  return [
    {
      name: 'container_cpu_usage_cores',
      help: `CPU the container uses, in cores (metrics.k8s.io, averaged over ${pod.window ?? 'the sampling window'})`,
      type: 'gauge',
      samples: pod.containers.map((c) => sample(c.name, parseQuantity(c.cpu) ?? 0)),
    },
    {
      name: 'container_memory_working_set_bytes',
      help: 'Working-set memory of the container, in bytes (metrics.k8s.io)',
      type: 'gauge',
      samples: pod.containers.map((c) => sample(c.name, parseQuantity(c.memory) ?? 0)),
    },
  ];
}

/**
 * Splits a followed log into lines as its pieces arrive: a piece may end mid-line (kept until the rest comes), a
 * line longer than `maxLineChars` is cut (so one endless line cannot grow the buffer without bound), `\r\n` and a
 * lone `\r` at a line's end are dropped.
 */
export class LineSplitter {
  private pending = '';

  constructor(private readonly maxLineChars = 16_384) {}

  push(text: string): string[] {
    const lines: string[] = [];
    let rest = this.pending + text;
    for (let index = rest.indexOf('\n'); index >= 0; index = rest.indexOf('\n')) {
      lines.push(rest.slice(0, index).replace(/\r$/, ''));
      rest = rest.slice(index + 1);
    }
    while (rest.length > this.maxLineChars) {
      lines.push(rest.slice(0, this.maxLineChars));
      rest = rest.slice(this.maxLineChars);
    }
    this.pending = rest;
    return lines;
  }

  /** What is left when the log ends without a final newline. */
  flush(): string[] {
    const rest = this.pending.replace(/\r$/, '');
    this.pending = '';
    return rest === '' ? [] : [rest];
  }
}

/** A whole log (not followed) as its lines: the last empty piece after a final newline is not a line. */
export function logLines(text: string): string[] {
  const splitter = new LineSplitter();
  return [...splitter.push(text), ...splitter.flush()];
}

/** One unnamed SSE event (what EventSource's onmessage gets) per log line; a stray `\r` would break the framing. */
export function logLineEvent(line: string): string {
  return `data: ${line.replace(/\r/g, '')}\n\n`;
}
