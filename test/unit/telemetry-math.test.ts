// Pure helpers of pod logs and metrics: quantities, the cluster's sums, metric families, log line framing.
import { describe, expect, it } from 'vitest';
import {
  clusterUsage,
  formatCpu,
  formatMemory,
  LineSplitter,
  logLineEvent,
  logLines,
  podMetricFamilies,
} from '../../src/admin/observability/telemetry-math.js';

describe('quantities', () => {
  it('formats CPU in millicores and memory in Mi', () => {
    expect(formatCpu(0.2504)).toBe('250m');
    expect(formatCpu(0)).toBe('0m');
    expect(formatMemory(256 * 2 ** 20)).toBe('256Mi');
    expect(formatMemory(1.4 * 2 ** 20)).toBe('1Mi');
  });
});

describe('clusterUsage', () => {
  const pods = [
    {
      name: 'a-0',
      containers: [
        { name: 'db', cpuLimit: '1', memoryLimit: '1Gi', cpuRequest: '500m', memoryRequest: '512Mi' },
        { name: 'exporter', cpuRequest: '100m', memoryRequest: '64Mi' },
        { name: 'bare' },
      ],
    },
    { name: 'a-1', containers: [{ name: 'db', cpuLimit: '1', memoryLimit: '1Gi' }] },
  ];

  it("sums the pods' usage against limits, requests where a container has no limit", () => {
    const usage = [
      { name: 'a-0', containers: [{ name: 'db', cpu: '100m', memory: '100Mi' }] },
      { name: 'a-1', containers: [{ name: 'db', cpu: '50000000n', memory: '28Mi' }] },
      // Not a pod of the cluster (any more): not counted.
      { name: 'gone-0', containers: [{ name: 'db', cpu: '9', memory: '9Gi' }] },
    ];
    expect(clusterUsage(pods, usage)).toEqual({
      usedCpu: '150m',
      totalCpu: '2100m',
      usedMemory: '128Mi',
      totalMemory: '2112Mi',
    });
  });

  it('is zero without usage (a pod metrics-server has not sampled yet)', () => {
    expect(clusterUsage(pods, [])).toMatchObject({ usedCpu: '0m', usedMemory: '0Mi' });
    expect(clusterUsage([], [])).toEqual({ usedCpu: '0m', totalCpu: '0m', usedMemory: '0Mi', totalMemory: '0Mi' });
  });
});

describe('podMetricFamilies', () => {
  it('has one sample per container, labelled, with the sampling time', () => {
    const families = podMetricFamilies({
      name: 'a-0',
      timestamp: '2026-01-01T00:00:00Z',
      window: '30s',
      containers: [{ name: 'db', cpu: '250m', memory: '1Mi' }],
    });
    expect(families).toEqual([
      {
        name: 'container_cpu_usage_cores',
        help: 'CPU the container uses, in cores (metrics.k8s.io, averaged over 30s)',
        type: 'gauge',
        samples: [
          { labels: { pod: 'a-0', container: 'db' }, value: 0.25, timestamp: Date.parse('2026-01-01T00:00:00Z') },
        ],
      },
      {
        name: 'container_memory_working_set_bytes',
        help: 'Working-set memory of the container, in bytes (metrics.k8s.io)',
        type: 'gauge',
        samples: [
          { labels: { pod: 'a-0', container: 'db' }, value: 2 ** 20, timestamp: Date.parse('2026-01-01T00:00:00Z') },
        ],
      },
    ]);
  });

  it('leaves the timestamp out when there is none', () => {
    const [cpu] = podMetricFamilies({ name: 'a-0', containers: [{ name: 'db', cpu: '1', memory: '0' }] });
    expect(cpu!.samples[0]).toEqual({ labels: { pod: 'a-0', container: 'db' }, value: 1 });
  });
});

describe('LineSplitter', () => {
  it('keeps a piece that ends mid-line until the rest arrives', () => {
    const splitter = new LineSplitter();
    expect(splitter.push('one\ntw')).toEqual(['one']);
    expect(splitter.push('o\r\nthree')).toEqual(['two']);
    expect(splitter.push('\n\n')).toEqual(['three', '']);
    expect(splitter.flush()).toEqual([]);
  });

  it('cuts an endless line at the limit, so the buffer stays bounded', () => {
    const splitter = new LineSplitter(4);
    expect(splitter.push('abcdefghij')).toEqual(['abcd', 'efgh']);
    expect(splitter.push('\n')).toEqual(['ij']);
  });

  it('flushes a last line without a newline', () => {
    const splitter = new LineSplitter();
    splitter.push('tail\r');
    expect(splitter.flush()).toEqual(['tail']);
  });

  it('reads a whole log as its lines', () => {
    expect(logLines('a\nb\n')).toEqual(['a', 'b']);
    expect(logLines('a\nb')).toEqual(['a', 'b']);
    expect(logLines('')).toEqual([]);
  });
});

describe('logLineEvent', () => {
  it('frames one line as one unnamed event, with no stray carriage return', () => {
    expect(logLineEvent('hello')).toBe('data: hello\n\n');
    expect(logLineEvent('a\rb')).toBe('data: ab\n\n');
  });
});
