// The audit log's entries and how a filtered page of them is asked for: the audit stores' port (audit-store.ts);
// pure, unit-tested (test/unit/audit-query.test.ts).

export type AuditResult = 'success' | 'failure';

/** One recorded call, as stored. */
export interface AuditEntry {
  id: string;
  /** Milliseconds since the epoch. */
  time: number;
  /**
   * The actor's e-mail (lower case), or `serviceaccount:<name>` for a service account's token; for a failed
   * sign-in, the e-mail the attempt named (or `anonymous`).
   */
  userId: string;
  /** The service account token the call was made with (its id, never its value). */
  tokenId?: string;
  action: string;
  resourceType: string;
  resourceName?: string;
  namespace: string;
  cluster?: string;
  result: AuditResult;
  message: string;
  requestId: string;
  ip?: string;
  userAgent?: string;
}

/** The indexed fields, each a sorted set of entry ids by time in the Redis store. */
export const INDEX_FAMILIES = ['user', 'action', 'type', 'name', 'result', 'cluster'] as const;
export type IndexFamily = (typeof INDEX_FAMILIES)[number];

export interface IndexFilter {
  family: IndexFamily;
  value: string;
}

/** The index entries of `entry`: one per indexed field it has. */
export function indexesOf(entry: AuditEntry): IndexFilter[] {
  const indexes: IndexFilter[] = [
    { family: 'user', value: entry.userId },
    { family: 'action', value: entry.action },
    { family: 'type', value: entry.resourceType },
    { family: 'result', value: entry.result },
  ];
  if (entry.resourceName !== undefined) indexes.push({ family: 'name', value: entry.resourceName });
  if (entry.cluster !== undefined)
    indexes.push({ family: 'cluster', value: clusterKey(entry.namespace, entry.cluster) });
  return indexes;
}

export const clusterKey = (namespace: string, name: string) => `${namespace}/${name}`;

/** What a caller asks for: every given filter must hold. */
export interface AuditFilters {
  userId?: string;
  action?: string;
  resourceType?: string;
  resourceName?: string;
  result?: AuditResult;
  cluster?: { namespace: string; name: string };
  /** Inclusive bounds, in milliseconds. */
  from?: number;
  to?: number;
}

export interface AuditPage {
  limit: number;
  offset: number;
}

/** What a store runs: the intersection of `indexes` (all entries when none), newest first, within [min, max]. */
export interface AuditPlan {
  indexes: IndexFilter[];
  min: number;
  max: number;
  limit: number;
  offset: number;
  /** Nothing can match (an empty time range): no store call is needed. */
  empty: boolean;
}

export function planQuery(filters: AuditFilters, page: AuditPage): AuditPlan {
  const indexes: IndexFilter[] = [];
  const add = (family: IndexFamily, value: string | undefined) => {
    if (value !== undefined && !indexes.some((index) => index.family === family)) indexes.push({ family, value });
  };
  add('cluster', filters.cluster && clusterKey(filters.cluster.namespace, filters.cluster.name));
  add('user', filters.userId?.toLowerCase());
  add('name', filters.resourceName);
  add('action', filters.action);
  add('type', filters.resourceType);
  add('result', filters.result);
  const min = filters.from ?? Number.NEGATIVE_INFINITY;
  const max = filters.to ?? Number.POSITIVE_INFINITY;
  return { indexes, min, max, limit: page.limit, offset: page.offset, empty: min > max };
}

export function matches(entry: AuditEntry, plan: AuditPlan): boolean {
  if (entry.time < plan.min || entry.time > plan.max) return false;
  const own = indexesOf(entry);
  return plan.indexes.every((wanted) =>
    own.some((index) => index.family === wanted.family && index.value === wanted.value),
  );
}

/**
 * A date filter as milliseconds: an ISO 8601 date or date-time. A bare date is a whole day (UTC): as `startDate`
 * its first millisecond, as `endDate` its last; a date-time without a zone is UTC. Undefined when the text is not a
 * date.
 */
export function parseDateBound(text: string, bound: 'start' | 'end'): number | undefined {
  const trimmed = text.trim();
  if (!/^\d{4}-\d{2}-\d{2}([Tt ][\d:.]+([Zz]|[+-]\d{2}:?\d{2})?)?$/.test(trimmed)) return undefined;
  const dateOnly = trimmed.length === 10;
  // A date-time without a zone is UTC, as a bare date is: the answer must not depend on the server's zone.
  const zoned = dateOnly || /([Zz]|[+-]\d{2}:?\d{2})$/.test(trimmed) ? trimmed : `${trimmed}Z`;
  const time = Date.parse(zoned.replace(' ', 'T'));
  if (Number.isNaN(time)) return undefined;
  return dateOnly && bound === 'end' ? time + 86_400_000 - 1 : time;
}
