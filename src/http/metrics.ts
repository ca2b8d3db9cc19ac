// Prometheus metrics of one server: requests by route and status, FalkorDB pool sizes, token-store latency,
// Kubernetes API errors, and the process's own metrics. One registry per app, created by buildApp.
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({
      name: 'graphdb_http_requests_total',
      help: 'HTTP requests by method, route and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    requestSeconds: new Histogram({
      name: 'graphdb_http_request_duration_seconds',
      help: 'HTTP request latency by method, route and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    tokenStoreSeconds: new Histogram({
      name: 'graphdb_token_store_duration_seconds',
      help: 'Token-store operation latency',
      labelNames: ['operation'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
      registers: [registry],
    }),
    kubernetesErrors: new Counter({
      name: 'graphdb_kubernetes_api_errors_total',
      help: 'Failed Kubernetes API calls by kind',
      labelNames: ['kind'],
      registers: [registry],
    }),
    /** Set from the connection pools when scraped. */
    poolGauge: (collect: () => { pools: number; connections: number }) => {
      new Gauge({
        name: 'graphdb_falkordb_pool_connections',
        help: "Open connections to the users' FalkorDB servers",
        registers: [registry],
        collect() {
          this.set(collect().connections);
        },
      });
      new Gauge({
        name: 'graphdb_falkordb_pools',
        help: 'Connection pools (one per credential set)',
        registers: [registry],
        collect() {
          this.set(collect().pools);
        },
      });
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** Counts every response under its route template (never the raw URL, which would explode label cardinality). */
export function recordRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    metrics.requests.inc(labels);
    metrics.requestSeconds.observe(labels, reply.elapsedTime / 1000);
    done();
  });
}
