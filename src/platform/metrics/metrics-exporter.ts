// The Prometheus exporter: its own HTTP listener serving /metrics, started, moved or stopped as settings change.
import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import type { PlatformLogger } from '../logger.js';

export interface MetricsExporter {
  /** Listens on `port` when enabled, stops otherwise; a port change moves the listener. */
  apply(enabled: boolean, port: number): Promise<void>;
  readonly port: number | undefined;
  close(): Promise<void>;
}

export function createMetricsExporter(registry: Registry, logger: PlatformLogger, host = '0.0.0.0'): MetricsExporter {
  let server: Server | undefined;
  let listeningOn: number | undefined;
  let pending: Promise<void> = Promise.resolve();

  const stop = async () => {
    const current = server;
    server = undefined;
    listeningOn = undefined;
    if (current) {
      current.closeAllConnections();
      await new Promise<void>((resolve) => current.close(() => resolve()));
    }
  };

  const start = async (port: number) => {
    const next = createServer((req, res) => {
      if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      registry
        .metrics()
        .then((text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text))
        .catch(() => res.writeHead(500).end());
    });
    await new Promise<void>((resolve, reject) => {
      next.once('error', reject);
      next.listen(port, host, () => resolve());
    });
    server = next;
    listeningOn = port;
    logger.info({ port }, `metrics exporter listening on ${host}:${port}`);
  };

  return {
    get port() {
      return listeningOn;
    },
    apply(enabled, port) {
      // Serialised: settings refreshes may overlap.
      pending = pending.then(async () => {
        if (enabled && listeningOn === port) return;
        await stop();
        if (!enabled) return;
        try {
          await start(port);
        } catch (error) {
          logger.error({ err: error, port }, 'metrics exporter could not listen');
        }
      });
      return pending;
    },
    async close() {
      await pending;
      await stop();
    },
  };
}
