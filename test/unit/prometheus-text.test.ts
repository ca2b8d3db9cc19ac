import { describe, expect, it } from 'vitest';
import { EXPORTER_LIMITS, parseExposition, parseLabels } from '../../src/admin/observability/prometheus-text.js';

const EXPORTER_PAGE = [
  '# HELP go_goroutines Number of goroutines that currently exist.',
  '# TYPE go_goroutines gauge',
  'go_goroutines 9',
  '# HELP redis_up Information about the Redis instance',
  '# TYPE redis_up gauge',
  'redis_up 1',
  '# HELP redis_memory_used_bytes memory_used_bytes metric',
  '# TYPE redis_memory_used_bytes gauge',
  'redis_memory_used_bytes 1.048576e+06',
  '# HELP redis_commands_total Total number of calls per command',
  '# TYPE redis_commands_total counter',
  'redis_commands_total{cmd="graph.query"} 42',
  'redis_commands_total{cmd="ping"} 7 1700000000000',
  '# TYPE redis_latency_seconds histogram',
  'redis_latency_seconds_bucket{cmd="get",le="0.001"} 3',
  'redis_latency_seconds_bucket{cmd="get",le="+Inf"} 4',
  'redis_latency_seconds_sum{cmd="get"} 0.004',
  'redis_latency_seconds_count{cmd="get"} 4',
  'redis_rejected_connections_total NaN',
  'redis_label_escapes{value="a \\"quoted\\" \\\\ path\\nnext"} 1',
  'redis_broken{unterminated="x} 1',
  'not a sample line',
].join('\n');

describe('parseExposition', () => {
  it("keeps the database's families with their help, type, labels and timestamps, adding the pod label", () => {
    const families = parseExposition(EXPORTER_PAGE, EXPORTER_LIMITS, { pod: 'solo-falkordb-0' });
    expect(families.map((family) => family.name)).toEqual([
      'redis_up',
      'redis_memory_used_bytes',
      'redis_commands_total',
      'redis_latency_seconds_bucket',
      'redis_latency_seconds_sum',
      'redis_latency_seconds_count',
      'redis_label_escapes',
    ]);
    expect(families[1]).toEqual({
      name: 'redis_memory_used_bytes',
      help: 'memory_used_bytes metric',
      type: 'gauge',
      samples: [{ labels: { pod: 'solo-falkordb-0' }, value: 1048576 }],
    });
    expect(families[2]!.samples).toEqual([
      { labels: { cmd: 'graph.query', pod: 'solo-falkordb-0' }, value: 42 },
      { labels: { cmd: 'ping', pod: 'solo-falkordb-0' }, value: 7, timestamp: 1700000000000 },
    ]);
    expect(families[3]).toMatchObject({ type: 'histogram' });
    expect(families[3]!.samples.map((sample) => sample.labels.le)).toEqual(['0.001', '+Inf']);
    expect(families[6]!.samples[0]!.labels.value).toBe('a "quoted" \\ path\nnext');
  });

  it('stops at the family and sample bounds', () => {
    const many = Array.from({ length: 50 }, (_, i) => `redis_metric_${i} ${i}`).join('\n');
    expect(parseExposition(many, { prefixes: ['redis_'], maxFamilies: 10, maxSamples: 100 })).toHaveLength(10);
    const samples = parseExposition(many, { prefixes: ['redis_'], maxFamilies: 100, maxSamples: 5 });
    expect(samples.flatMap((family) => family.samples)).toHaveLength(5);
  });
});

describe('parseLabels', () => {
  it('reads quoted values with escapes and a trailing comma, and refuses garbage', () => {
    expect(parseLabels('a="1",b="two words",')).toEqual({ a: '1', b: 'two words' });
    expect(parseLabels('')).toEqual({});
    expect(parseLabels('a=1')).toBeUndefined();
  });
});
