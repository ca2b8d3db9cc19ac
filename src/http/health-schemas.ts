// Shapes of /healthz and /readyz.
import { z } from 'zod';

export const LivenessSchema = z.object({ status: z.literal('ok') });

export const ReadinessSchema = z.object({
  status: z.enum(['ready', 'degraded', 'not ready']),
  checks: z.record(z.string(), z.object({ ok: z.boolean() })),
});

/** /health: the FalkorDB Enterprise admin API's liveness body. */
export const HealthSchema = LivenessSchema.extend({
  timestamp: z.string(),
  version: z.string(),
  /** Seconds since the process started. */
  uptime: z.number(),
});

/** /ready: the FalkorDB Enterprise admin API's readiness body (status, timestamp) with the checks of /readyz. */
export const ReadySchema = ReadinessSchema.extend({ timestamp: z.string() });
