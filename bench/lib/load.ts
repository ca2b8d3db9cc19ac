// Two load generators with the same shape: autocannon for our HTTP endpoints, and a closed loop of
// concurrent calls for the raw FalkorDB client, both bounded by duration.
import autocannon from 'autocannon';
import { percentile, type Measurement } from './stats.js';

export interface HttpLoad {
  url: string;
  connections: number;
  durationSeconds: number;
  headers?: Record<string, string>;
  method?: 'GET' | 'POST';
  body?: string;
  /** Per-connection headers, e.g. a different token for each simulated client. */
  headersFor?: (connection: number) => Record<string, string>;
  /** A fixed offered load (requests per second over all connections) instead of as fast as the server answers. */
  overallRate?: number;
}

export async function measureHttp(load: HttpLoad): Promise<Measurement> {
  let connection = 0;
  // autocannon's histogram keeps whole milliseconds, too coarse beside the raw client's sub-millisecond latencies
  // (a p99 of 2 ms could be 2.0 or 2.9): the percentiles come from every response's own time instead.
  const latencies: number[] = [];
  const onResponse = (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
  };
  // Without a callback autocannon returns its event emitter made thenable (its types show only the promise).
  const instance = autocannon({
    url: load.url,
    connections: load.connections,
    duration: load.durationSeconds,
    headers: load.headers,
    method: load.method ?? 'GET',
    ...(load.body === undefined ? {} : { body: load.body }),
    ...(load.overallRate === undefined ? {} : { overallRate: load.overallRate }),
    setupClient: load.headersFor
      ? (client) => {
          client.setHeaders({ ...load.headers, ...load.headersFor!(connection++) });
        }
      : undefined,
  }) as unknown as autocannon.Instance & Promise<autocannon.Result>;
  const events: NodeJS.EventEmitter = instance;
  events.on('response', onResponse);
  const result = await instance;
  latencies.sort((a, b) => a - b);
  const failures = result.errors + result.timeouts + result.non2xx;
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    requests: result.requests.total,
    errors: failures,
  };
}

export async function measureRaw(
  work: () => Promise<unknown>,
  concurrency: number,
  durationSeconds: number,
): Promise<Measurement> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + durationSeconds * 1000;
  const started = performance.now();
  const worker = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        await work();
        latencies.push(performance.now() - t0);
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsedSeconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: latencies.length / elapsedSeconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    requests: latencies.length,
    errors,
  };
}
