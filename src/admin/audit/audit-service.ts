// The audit log's reads (the whole log, one user's activity, one deployment's events) and its retention purge.
import type { FastifyBaseLogger } from 'fastify';
import { BadRequestError } from '../../http/http-errors.js';
import type { SettingsService } from '../settings/settings-service.js';
import { parseDateBound, planQuery, type AuditFilters, type AuditPage } from '../../platform/stores/audit-query.js';
import type { AuditStore, AuditPageResult } from '../../platform/stores/audit-store.js';
import type { AuditQuery } from './schemas.js';

const DAY_MS = 86_400_000;
/** Entries deleted per store round trip while purging. */
const PURGE_BATCH = 1000;

export interface AuditServiceOptions {
  store: AuditStore;
  settings: Pick<SettingsService, 'current'>;
  logger: Pick<FastifyBaseLogger, 'info' | 'warn'>;
  now: () => number;
  /** How often the purge runs (besides at start). */
  purgeIntervalMs: number;
}

function dateBound(text: string | undefined, name: string, bound: 'start' | 'end'): number | undefined {
  if (text === undefined) return undefined;
  const time = parseDateBound(text, bound);
  if (time === undefined) throw new BadRequestError(`${name} must be an ISO 8601 date or date-time`);
  return time;
}

export function createAuditService(options: AuditServiceOptions) {
  const { store, settings, logger, now } = options;
  let timer: NodeJS.Timeout | undefined;
  let purging: Promise<number> | undefined;

  const page = (filters: AuditFilters, paging: AuditPage): Promise<AuditPageResult> =>
    store.query(planQuery(filters, paging));

  async function purgeExpired(): Promise<number> {
    const days = (await settings.current()).retention.audit_log_retention_days;
    const cutoff = now() - days * DAY_MS;
    let removed = 0;
    for (;;) {
      const count = await store.purgeBefore(cutoff, PURGE_BATCH);
      removed += count;
      if (count < PURGE_BATCH) break;
    }
    if (removed > 0) logger.info({ removed, retentionDays: days }, 'audit entries past their retention purged');
    return removed;
  }

  function purgeOnce(): Promise<number> {
    purging ??= purgeExpired().finally(() => {
      purging = undefined;
    });
    return purging;
  }

  return {
    shared: store.shared,

    list(query: AuditQuery): Promise<AuditPageResult> {
      return page(
        {
          userId: query.userId,
          action: query.action,
          resourceType: query.resourceType,
          resourceName: query.resourceName,
          result: query.result,
          from: dateBound(query.startDate, 'startDate', 'start'),
          to: dateBound(query.endDate, 'endDate', 'end'),
        },
        query,
      );
    },

    activityOf(email: string, paging: AuditPage): Promise<AuditPageResult> {
      return page({ userId: email }, paging);
    },

    eventsOf(namespace: string, name: string, paging: AuditPage): Promise<AuditPageResult> {
      return page({ cluster: { namespace, name } }, paging);
    },

    /** Deletes the entries older than retention.audit_log_retention_days; one run at a time per replica. */
    purgeExpired: purgeOnce,

    /** Purges now and then every interval; the timer does not keep the process alive. */
    startRetention(): void {
      if (timer) return;
      const run = () =>
        void purgeOnce().catch((error: unknown) =>
          logger.warn({ err: { message: (error as Error).message } }, 'audit retention purge failed'),
        );
      run();
      timer = setInterval(run, options.purgeIntervalMs);
      timer.unref();
    },

    stopRetention(): void {
      clearInterval(timer);
      timer = undefined;
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
