// Shapes of GET /api/audit/, GET /api/users/me/activity and GET /api/clusters/{name}/events (the FalkorDB Enterprise admin API's
// AuditEntry).
import { z } from 'zod';
import { ClusterNameParamsSchema } from '../clusters/schemas.js';
import type { AuditEntry } from '../../platform/stores/audit-query.js';

const FILTER_MAX = 512;
const filter = (what: string) =>
  z.string().min(1, `${what} must not be empty`).max(FILTER_MAX, `${what} must be at most ${FILTER_MAX} characters`);
const offset = z.coerce.number().int().min(0).max(10_000_000).default(0);
const ResultSchema = z.enum(['success', 'failure']);

export const AuditQuerySchema = z.object({
  userId: filter('userId').optional().meta({ description: "The actor's e-mail (case-insensitive)" }),
  action: filter('action').optional().meta({ description: 'e.g. `user.create`, `cluster.restart`, `auth.login`' }),
  resourceType: filter('resourceType')
    .optional()
    .meta({ description: 'e.g. `user`, `cluster`, `settings`, `session`' }),
  resourceName: filter('resourceName').optional(),
  result: ResultSchema.optional(),
  startDate: filter('startDate')
    .optional()
    .meta({ description: 'ISO 8601 date or date-time (UTC when no zone); a bare date starts at 00:00Z' }),
  endDate: filter('endDate').optional().meta({
    description: 'ISO 8601 date or date-time (UTC when no zone), inclusive; a bare date ends at 23:59:59.999Z',
  }),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset,
});
export type AuditQuery = z.infer<typeof AuditQuerySchema>;

export const ActivityQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset,
});

export const ClusterEventsQuerySchema = z.object({
  namespace: z.string().min(1, 'namespace is required').max(253),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset,
});
export const ClusterEventsParamsSchema = ClusterNameParamsSchema;

export const AuditEntrySchema = z
  .object({
    userId: z.string(),
    tokenId: z
      .string()
      .optional()
      .meta({ description: 'The service account token the call was made with (userId is then serviceaccount:<name>)' }),
    timestamp: z.string().meta({ description: 'ISO 8601, UTC' }),
    action: z.string(),
    resourceType: z.string().optional(),
    resourceName: z.string().optional(),
    result: ResultSchema,
    message: z.string().optional(),
    ip: z.string().optional(),
    userAgent: z.string().optional(),
  })
  .meta({ id: 'AuditEntry' });

export const AuditLogSchema = z.object({
  logs: z.array(AuditEntrySchema),
  total: z.number(),
  limit: z.number(),
  offset: z.number(),
});

export const ActivitySchema = z.object({
  timestamp: z.string(),
  action: z.string(),
  resourceType: z.string(),
  resourceName: z.string().optional(),
  result: ResultSchema,
  message: z.string().optional(),
});

export const ActivityListSchema = z.object({
  activities: z.array(ActivitySchema),
  total: z.number(),
  limit: z.number(),
  offset: z.number(),
});

/** Picked fields: the namespace, cluster and request id stay in the store and the log line. */
export function toAuditView(entry: AuditEntry): z.infer<typeof AuditEntrySchema> {
  return {
    userId: entry.userId,
    ...(entry.tokenId === undefined ? {} : { tokenId: entry.tokenId }),
    ...toActivityView(entry),
    ...(entry.ip === undefined ? {} : { ip: entry.ip }),
    ...(entry.userAgent === undefined ? {} : { userAgent: entry.userAgent }),
  };
}

export function toActivityView(entry: AuditEntry): z.infer<typeof ActivitySchema> {
  return {
    timestamp: new Date(entry.time).toISOString(),
    action: entry.action,
    resourceType: entry.resourceType,
    ...(entry.resourceName === undefined ? {} : { resourceName: entry.resourceName }),
    result: entry.result,
    message: entry.message,
  };
}
