// The Prometheus exporter: its own HTTP listener serving /metrics, started, moved or stopped as settings change.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import type { PlatformLogger } from '../logger.js';

export interface MetricsExporter {
  /** Listens on `port` when enabled, stops otherwise; a port change moves the listener. */
  apply(enabled: boolean, port: number): Promise<void>;
  readonly port: number | undefined;
  close(): Promise<void>;
}

export interface MetricsExporterOptions {
  /** Where to listen: the API's HOST (it listened on 0.0.0.0 whatever HOST said). */
  host: string;
  /** When given, every scrape must send these with HTTP Basic authentication. */
  basicAuth?: { username: string; password: string };
  /**
   * When the port is taken, listen on a free port instead (and say which, once). For local instances, where two
   * servers on one machine would otherwise fight over one port; in Kubernetes the port is what scrapers are told, so
   * it is kept and the exporter stays off until it is free.
   */
  fallbackToFreePort?: boolean;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** Whether the request carries the expected Basic credentials; compared in constant time (over equal-length digests). */
export function basicAuthMatches(request: IncomingMessage, expected: { username: string; password: string }): boolean {
  const header = request.headers.authorization ?? '';
  const match = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
  const given = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
  const colon = given.indexOf(':');
  const username = colon === -1 ? '' : given.slice(0, colon);
  const password = colon === -1 ? '' : given.slice(colon + 1);
  // Both comparisons always run, so the answer's timing does not tell which part was wrong.
  const userOk = timingSafeEqual(digest(username), digest(expected.username));
  const passwordOk = timingSafeEqual(digest(password), digest(expected.password));
  return match !== null && colon !== -1 && userOk && passwordOk;
}

export function createMetricsExporter(
  registry: Registry,
  logger: PlatformLogger,
  options: MetricsExporterOptions,
): MetricsExporter {
  const { host, basicAuth } = options;
  let server: Server | undefined;
  let listeningOn: number | undefined;
  /** The port settings ask for (listeningOn differs after a fallback). */
  let wanted: number | undefined;
  /** Ports whose being taken was already reported: a settings refresh does not repeat it. */
  const reported = new Set<number>();
  let pending: Promise<void> = Promise.resolve();
  const shown = (port: number) => `${host.includes(':') ? `[${host}]` : host}:${port}`;

  const stop = async () => {
    const current = server;
    server = undefined;
    listeningOn = undefined;
    if (current) {
      current.closeAllConnections();
      await new Promise<void>((resolve) => current.close(() => resolve()));
    }
  };

  const start = async (port: number): Promise<void> => {
    const next = createServer((req, res) => {
      if (basicAuth && !basicAuthMatches(req, basicAuth)) {
        res
          .writeHead(401, {
            'www-authenticate': 'Basic realm="metrics", charset="UTF-8"',
            'content-type': 'text/plain',
          })
          .end('Unauthorized\n');
        return;
      }
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
    const address = next.address();
    listeningOn = address && typeof address === 'object' ? address.port : port;
    logger.info(
      { host, port: listeningOn, basicAuth: basicAuth !== undefined },
      `metrics exporter listening on ${shown(listeningOn)}${basicAuth ? ' (basic authentication)' : ''}`,
    );
  };

  /** One plain line per taken port (no stack: nothing is broken in this server), and a free port when allowed. */
  const portTaken = async (port: number) => {
    const first = !reported.has(port);
    reported.add(port);
    if (!options.fallbackToFreePort) {
      if (first)
        logger.warn(
          { port },
          `metrics exporter: ${shown(port)} is in use by another program, so this server exports no metrics until it is free or metrics.exporter_port names another port`,
        );
      return;
    }
    await start(0);
    if (first)
      logger.warn(
        { port, fallbackPort: listeningOn },
        `metrics exporter: ${shown(port)} is in use by another program (another local instance?), so this server's metrics are on ${shown(listeningOn!)} instead`,
      );
  };

  return {
    get port() {
      return listeningOn;
    },
    apply(enabled, port) {
      // Serialised: settings refreshes may overlap.
      pending = pending.then(async () => {
        if (enabled && wanted === port && server) return;
        await stop();
        wanted = enabled ? port : undefined;
        if (!enabled) return;
        try {
          await start(port);
        } catch (error) {
          try {
            if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') await portTaken(port);
            else throw error;
          } catch (failure) {
            logger.error(
              { port, reason: (failure as Error).message },
              `metrics exporter could not listen on ${shown(port)}: ${(failure as Error).message}`,
            );
          }
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
