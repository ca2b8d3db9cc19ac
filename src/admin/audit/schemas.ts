// Shapes of GET /api/audit/, GET /api/users/me/activity and GET /api/clusters/{name}/events (the FalkorDB Enterprise admin API's
// AuditEntry).
import { z } from 'zod';
import { queryInteger, wholeNumber } from '../../lib/wire-values.js';
import { ClusterNameParamsSchema } from '../clusters/schemas.js';
import type { AuditEntry } from '../../platform/stores/audit-query.js';
import { timestamp } from '../../lib/timestamp-schema.js';

const FILTER_MAX = 512;
const filter = (what: string) =>
  z.string().min(1, `${what} must not be empty`).max(FILTER_MAX, `${what} must be at most ${FILTER_MAX} characters`);
const offset = queryInteger(wholeNumber(0, 10_000_000).default(0)).meta({
  description: 'How many entries to skip, newest first',
});
const ResultSchema = z.enum(['success', 'failure']).meta({ description: 'Whether the action succeeded' });

export const AuditQuerySchema = z.object({
  userId: filter('userId').optional().meta({ description: "The actor's e-mail (case-insensitive)" }),
  action: filter('action').optional().meta({ description: 'e.g. `user.create`, `cluster.restart`, `auth.login`' }),
  resourceType: filter('resourceType')
    .optional()
    .meta({ description: 'e.g. `user`, `cluster`, `settings`, `session`' }),
  resourceName: filter('resourceName').optional().meta({ description: 'The resource, e.g. a cluster or user name' }),
  result: ResultSchema.optional().meta({ description: 'Only successes or only failures' }),
  startDate: filter('startDate')
    .optional()
    .meta({ description: 'ISO 8601 date or date-time (UTC when no zone); a bare date starts at 00:00Z' }),
  endDate: filter('endDate').optional().meta({
    description: 'ISO 8601 date or date-time (UTC when no zone), inclusive; a bare date ends at 23:59:59.999Z',
  }),
  limit: queryInteger(wholeNumber(1, 1000).default(100)).meta({ description: 'At most this many entries' }),
  offset,
});
export type AuditQuery = z.infer<typeof AuditQuerySchema>;

export const ActivityQuerySchema = z.object({
  limit: queryInteger(wholeNumber(1, 100).default(50)).meta({ description: 'At most this many entries' }),
  offset,
});

export const ClusterEventsQuerySchema = z.object({
  namespace: z.string().min(1, 'namespace is required').max(253).meta({ description: "The cluster's namespace" }),
  limit: queryInteger(wholeNumber(1, 1000).default(100)).meta({ description: 'At most this many entries' }),
  offset,
});
export const ClusterEventsParamsSchema = ClusterNameParamsSchema;

const AuditEntryFields = z.object({
  userId: z.string().meta({ description: 'Who acted: an e-mail, or serviceaccount:<name>' }),
  tokenId: z
    .string()
    .optional()
    .meta({ description: 'The service account token the call was made with (userId is then serviceaccount:<name>)' }),
  timestamp: timestamp('When it happened (UTC)'),
  action: z.string().meta({ description: 'What was done, e.g. `user.create`, `cluster.restart`, `auth.login`' }),
  resourceType: z.string().optional().meta({ description: 'The kind of resource, e.g. `user`, `cluster`' }),
  resourceName: z.string().optional().meta({ description: 'The resource acted on' }),
  result: ResultSchema,
  message: z.string().optional().meta({ description: 'What happened, in words' }),
  ip: z.string().optional().meta({ description: 'The address the request came from' }),
  userAgent: z.string().optional().meta({ description: "The client's User-Agent" }),
});
const AUDIT_ENTRY_EXAMPLE: z.infer<typeof AuditEntryFields> = {
  userId: 'ada@example.com',
  timestamp: '2026-11-28T09:41:07.512Z',
  action: 'cluster.restart',
  resourceType: 'cluster',
  resourceName: 'orders',
  result: 'success',
  message: 'Restart requested',
  ip: '10.2.3.4',
  userAgent: 'graphdb-admin/1.4.0',
};
export const AuditEntrySchema = AuditEntryFields.meta({
  id: 'AuditEntry',
  description: 'One entry of the audit log',
  examples: [AUDIT_ENTRY_EXAMPLE],
});

const page = {
  total: z.number().meta({ description: 'Entries matching, on all pages' }),
  limit: z.number().meta({ description: 'The limit applied' }),
  offset: z.number().meta({ description: 'The offset applied' }),
};
export const AuditLogSchema = z
  .object({ logs: z.array(AuditEntrySchema).meta({ description: 'The entries, newest first' }), ...page })
  .meta({ examples: [{ logs: [AUDIT_ENTRY_EXAMPLE], total: 1, limit: 100, offset: 0 }] });

export const ActivitySchema = z.object({
  timestamp: timestamp('When it happened (UTC)'),
  action: z.string().meta({ description: 'What was done, e.g. `auth.login`, `user.update`' }),
  resourceType: z.string().meta({ description: 'The kind of resource, e.g. `session`, `user`, `cluster`' }),
  resourceName: z.string().optional().meta({ description: 'The resource acted on' }),
  result: ResultSchema,
  message: z.string().optional().meta({ description: 'What happened, in words' }),
});

export const ActivityListSchema = z
  .object({
    activities: z.array(ActivitySchema).meta({ description: "The signed-in user's entries, newest first" }),
    ...page,
  })
  .meta({
    examples: [
      {
        activities: [
          {
            timestamp: '2026-11-28T09:30:00.000Z',
            action: 'auth.login',
            resourceType: 'session',
            resourceName: 'ada@example.com',
            result: 'success',
            message: 'Signed in',
          },
        ],
        total: 1,
        limit: 50,
        offset: 0,
      },
    ],
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
