// The gauges the chart's backup and expiry alerts read (helm/graphdb-admin-server/templates/prometheusrule.yaml),
// computed when Prometheus scrapes. A look that needs the Kubernetes API waits at most LOOK_WAIT_MS: a scrape must not
// outlast its timeout during an API outage (that would read as the server being down), so a slow look answers with
// the last values it had and finishes for the next scrape. Label sets are fixed: four statuses, no cluster names.
import { Gauge, type Registry } from 'prom-client';
import type { ClusterScope } from '../platform/clusters/cluster-port.js';
import { BACKUP_STATUSES, type BackupHealth } from './backups/backup-health.js';

const LOOK_WAIT_MS = 2000;

/** Gauges read from one look within this time share it (one scrape reads both backup gauges). */
const SHARED_LOOK_MS = 1000;

/**
 * The last value of `look`, refreshed by each call (calls within SHARED_LOOK_MS of a finished look share it); a call
 * waits for the refresh at most `waitMs`, then answers the value before it.
 */
export function boundedLook<T>(look: () => Promise<T>, waitMs: number, onError: (error: unknown) => void) {
  let last: T | undefined;
  let lastAt = 0;
  let running: Promise<void> | undefined;
  return async (): Promise<T | undefined> => {
    if (!running && Date.now() - lastAt < SHARED_LOOK_MS) return last;
    running ??= look().then((value) => {
      last = value;
      lastAt = Date.now();
    }, onError);
    const current = running.finally(() => {
      running = undefined;
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([current, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
    return last;
  };
}

/**
 * A look whose failures are logged once, not at every scrape, until it succeeds again (the Kubernetes API's failures
 * are also counted in graphdb_kubernetes_api_errors_total).
 */
function loggedOnce<T>(look: () => Promise<T>, logger: AlertMetricsOptions['logger'], message: string) {
  let failing = false;
  return boundedLook(
    async () => {
      const value = await look();
      failing = false;
      return value;
    },
    LOOK_WAIT_MS,
    (error) => {
      if (failing) return;
      failing = true;
      logger.warn({ err: error }, message);
    },
  );
}

export interface AlertMetricsOptions {
  registry: Registry;
  /** The deployments' backups in the scope the server manages now. */
  backupHealth: (scope: ClusterScope) => Promise<BackupHealth>;
  /** The cluster namespace, or every namespace while multi_cluster_mode is on. */
  scope: () => Promise<ClusterScope>;
  /** When the first working service-account token expires (ms; 0 when none). */
  nextTokenExpiry: () => Promise<number>;
  logger: { warn(object: object, message: string): void };
}

export function registerAlertMetrics(options: AlertMetricsOptions): void {
  const { registry, logger } = options;
  const backups = loggedOnce(
    async () => options.backupHealth(await options.scope()),
    logger,
    'backup metrics: could not list the backups (the gauges keep their last figures)',
  );
  new Gauge({
    name: 'graphdb_backups',
    help: 'Backups of the deployments this server manages (cluster namespace, or all with multi_cluster_mode) by status',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const health = await backups();
      if (!health) return;
      for (const status of BACKUP_STATUSES) this.set({ status }, health.byStatus[status]);
    },
  });
  new Gauge({
    name: 'graphdb_backup_last_failure_timestamp_seconds',
    help: 'When the newest failed backup of those deployments ended (Unix seconds; 0 when none failed)',
    registers: [registry],
    async collect() {
      const health = await backups();
      if (health) this.set(health.lastFailureMs / 1000);
    },
  });
  const tokens = loggedOnce(
    options.nextTokenExpiry,
    logger,
    'token expiry metric: could not read the service accounts (it keeps its last figure)',
  );
  new Gauge({
    name: 'graphdb_service_account_token_next_expiry_timestamp_seconds',
    help: 'When the first service-account token that still works expires (Unix seconds; 0 when none)',
    registers: [registry],
    async collect() {
      const next = await tokens();
      if (next !== undefined) this.set(next / 1000);
    },
  });
}
