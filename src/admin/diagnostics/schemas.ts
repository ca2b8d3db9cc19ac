// Shapes of /api/admin/diagnostics/*: HealthStatus, Diagnostics and the support-package request, field for field
// the FalkorDB Enterprise admin API's.
import { z } from 'zod';
import { EmailSchema } from '../../lib/email.js';
import { LOG_RING_CAPACITY } from '../../logging/log-ring.js';

const Check = z.enum(['healthy', 'unhealthy']);

export const HealthStatusSchema = z.object({
  status: z.enum(['healthy', 'degraded', 'unhealthy']),
  checks: z.object({ k8sApi: Check, kubeBlocks: Check, database: Check }),
  timestamp: z.string(),
  error: z.string().optional(),
  /** Not a field of the FalkorDB Enterprise admin API: checks that do not apply here (no Kubernetes in embedded mode). */
  notApplicable: z.array(z.enum(['k8sApi', 'kubeBlocks'])).optional(),
});
export type HealthStatus = z.infer<typeof HealthStatusSchema>;

const Component = z.object({
  image: z.string().optional(),
  version: z.string(),
  namespace: z.string().optional(),
  podName: z.string().optional(),
  containerName: z.string().optional(),
});

export const DiagnosticsSchema = z.object({
  server: z.object({
    uptime: z.number(),
    version: z.string(),
    nodeVersion: z.string(),
    platform: z.string(),
    arch: z.string(),
    memory: z.object({ total: z.number(), free: z.number(), used: z.number(), usagePercent: z.number() }),
    cpus: z.number(),
  }),
  versions: z.object({
    server: Component.optional(),
    addon: z
      .object({
        version: z.string(),
        availableVersions: z.array(z.string()),
        componentDefinitions: z.array(z.string()),
      })
      .optional(),
  }),
  health: HealthStatusSchema,
  resources: z.object({ totalClusters: z.number(), recentActivityCount: z.number() }),
  /** The latest error lines of this server's log: time, level, message and request id. */
  recentErrors: z.array(
    z.object({ time: z.string(), level: z.number(), msg: z.string(), reqId: z.string().optional() }),
  ),
});

export const DiagnosticsExportSchema = DiagnosticsSchema.extend({ timestamp: z.string() });

const Name = z.string().min(1).max(253);
export const MAX_AUDIT_ENTRIES = 1000;
export const DEFAULT_LOG_LINES = 500;

/** §1.11: no other properties; every list and count bounded. */
export const SupportPackageBodySchema = z.strictObject({
  clusters: z
    .array(z.strictObject({ name: Name, namespace: Name }))
    .max(100)
    .optional(),
  issueDescription: z.string().max(10_000).optional(),
  contactEmail: EmailSchema.optional(),
  includeLogs: z.boolean().optional(),
  includeMetrics: z.boolean().optional(),
  logTailLines: z.int().min(0).max(LOG_RING_CAPACITY).optional(),
  auditLimit: z.int().min(0).max(MAX_AUDIT_ENTRIES).optional(),
});
export type SupportPackageBody = z.infer<typeof SupportPackageBodySchema>;
