// Shapes of /api/admin/diagnostics/*: HealthStatus, Diagnostics and the support-package request, field for field
// the FalkorDB Enterprise admin API's.
import { z } from 'zod';
import { EmailSchema } from '../../lib/email.js';
import { LOG_RING_CAPACITY } from '../../logging/log-ring.js';
import { timestamp } from '../../lib/timestamp-schema.js';

const Check = z.enum(['healthy', 'unhealthy']);

const HealthFields = z.object({
  status: z
    .enum(['healthy', 'degraded', 'unhealthy'])
    .meta({ description: '`healthy`: every check passes; `degraded`: some do; `unhealthy`: none does' }),
  checks: z
    .object({
      k8sApi: Check.meta({ description: 'The Kubernetes API answers' }),
      kubeBlocks: Check.meta({ description: 'KubeBlocks and its resource kinds are installed' }),
      database: Check.meta({ description: 'The database answers' }),
    })
    .meta({ description: 'Each check' }),
  timestamp: timestamp('When the checks ran'),
  error: z.string().optional().meta({ description: 'What failed, when a check did' }),
  /** Not a field of the FalkorDB Enterprise admin API: checks that do not apply here (no Kubernetes in embedded mode). */
  notApplicable: z
    .array(z.enum(['k8sApi', 'kubeBlocks']))
    .optional()
    .meta({ description: 'Checks that do not apply to this deployment (no Kubernetes in embedded mode)' }),
});
export type HealthStatus = z.infer<typeof HealthFields>;
const HEALTH_EXAMPLE: HealthStatus = {
  status: 'healthy',
  checks: { k8sApi: 'healthy', kubeBlocks: 'healthy', database: 'healthy' },
  timestamp: '2026-11-28T12:00:00.000Z',
};
export const HealthStatusSchema = HealthFields.meta({ examples: [HEALTH_EXAMPLE] });

const Component = z.object({
  image: z.string().optional().meta({ description: 'The container image' }),
  version: z.string().meta({ description: 'Its version' }),
  namespace: z.string().optional().meta({ description: 'The namespace it runs in' }),
  podName: z.string().optional().meta({ description: 'The pod it runs in' }),
  containerName: z.string().optional().meta({ description: 'Its container' }),
});

const DiagnosticsFields = z.object({
  server: z
    .object({
      uptime: z.number().meta({ description: 'Seconds since the host started' }),
      version: z.string().meta({ description: "This server's version" }),
      nodeVersion: z.string().meta({ description: 'The Node.js version' }),
      platform: z.string().meta({ description: 'The operating system (`linux`)' }),
      arch: z.string().meta({ description: 'The CPU architecture (`x64`, `arm64`)' }),
      memory: z
        .object({
          total: z.number().meta({ description: "The host's memory, in bytes" }),
          free: z.number().meta({ description: 'Free memory, in bytes' }),
          used: z.number().meta({ description: 'Used memory, in bytes' }),
          usagePercent: z.number().meta({ description: 'Used memory, in percent of the total' }),
        })
        .meta({ description: "The host's memory" }),
      cpus: z.number().meta({ description: 'How many CPUs the host has' }),
    })
    .meta({ description: 'The host this server runs on' }),
  versions: z
    .object({
      server: Component.optional().meta({ description: 'This server' }),
      addon: z
        .object({
          version: z.string().meta({ description: 'The installed version' }),
          availableVersions: z.array(z.string()).meta({ description: 'The versions that can be deployed' }),
          componentDefinitions: z.array(z.string()).meta({ description: 'Its component definitions' }),
        })
        .optional()
        .meta({ description: 'The KubeBlocks FalkorDB add-on' }),
    })
    .meta({ description: 'Versions of the parts' }),
  health: HealthStatusSchema.meta({ description: 'The health checks' }),
  resources: z
    .object({
      totalClusters: z.number().meta({ description: 'How many deployments the caller may see' }),
      recentActivityCount: z.number().meta({ description: 'Requests answered in the last hour' }),
    })
    .meta({ description: 'What this server manages' }),
  /** The latest error lines of this server's log: time, level, message and request id. */
  recentErrors: z
    .array(
      z.object({
        time: timestamp('When it was logged'),
        level: z.number().meta({ description: 'The log level (50: error, 60: fatal)' }),
        msg: z.string().meta({ description: 'The message' }),
        reqId: z.string().optional().meta({ description: 'The request it was logged for' }),
      }),
    )
    .meta({ description: "The latest error lines of this server's log" }),
});
const DIAGNOSTICS_EXAMPLE: z.input<typeof DiagnosticsFields> = {
  server: {
    uptime: 86400,
    version: '1.4.6',
    nodeVersion: 'v22.11.0',
    platform: 'linux',
    arch: 'x64',
    memory: { total: 8_589_934_592, free: 4_294_967_296, used: 4_294_967_296, usagePercent: 50 },
    cpus: 4,
  },
  versions: { server: { version: '1.4.6', namespace: 'graphdb-system' } },
  health: HEALTH_EXAMPLE,
  resources: { totalClusters: 2, recentActivityCount: 37 },
  recentErrors: [{ time: '2026-11-28T11:58:02.114Z', level: 50, msg: 'request failed', reqId: 'req-7f3a' }],
};
export const DiagnosticsSchema = DiagnosticsFields.meta({ examples: [DIAGNOSTICS_EXAMPLE] });

export const DiagnosticsExportSchema = DiagnosticsFields.extend({
  timestamp: timestamp('When the document was made'),
}).meta({ examples: [{ ...DIAGNOSTICS_EXAMPLE, timestamp: '2026-11-28T12:00:00.000Z' }] });

const Name = z.string().min(1).max(253);
export const MAX_AUDIT_ENTRIES = 1000;
export const DEFAULT_LOG_LINES = 500;

/** §1.11: no other properties; every list and count bounded. */
export const SupportPackageBodySchema = z
  .strictObject({
    clusters: z
      .array(
        z.strictObject({
          name: Name.meta({ description: "The deployment's name" }),
          namespace: Name.meta({ description: 'Its namespace' }),
        }),
      )
      .max(100)
      .optional()
      .meta({ description: 'The deployments to describe (at most 100); all when absent or empty' }),
    issueDescription: z.string().max(10_000).optional().meta({ description: 'What went wrong, for support' }),
    contactEmail: EmailSchema.optional().meta({ description: 'Whom support should answer' }),
    includeLogs: z.boolean().optional().meta({ description: "Include this replica's log lines (default true)" }),
    includeMetrics: z.boolean().optional().meta({ description: 'Include the Prometheus metrics (default true)' }),
    logTailLines: z
      .int()
      .min(0)
      .max(LOG_RING_CAPACITY)
      .optional()
      .meta({ description: `How many of the last log lines (default ${DEFAULT_LOG_LINES})` }),
    auditLimit: z
      .int()
      .min(0)
      .max(MAX_AUDIT_ENTRIES)
      .optional()
      .meta({ description: `How many of the latest audit entries (default 100, at most ${MAX_AUDIT_ENTRIES})` }),
  })
  .meta({
    examples: [
      {
        clusters: [{ name: 'orders', namespace: 'graphdb' }],
        issueDescription: 'Queries on orders time out since the upgrade',
        contactEmail: 'ada@example.com',
        includeLogs: true,
        includeMetrics: true,
        logTailLines: 500,
        auditLimit: 100,
      },
    ],
  });
export type SupportPackageBody = z.infer<typeof SupportPackageBodySchema>;
