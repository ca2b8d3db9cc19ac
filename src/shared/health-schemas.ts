// Shapes of /healthz and /readyz.
import { z } from 'zod';

export const LivenessSchema = z.object({ status: z.literal('ok') });

export const ReadinessSchema = z.object({
  status: z.enum(['ready', 'degraded', 'not ready']),
  checks: z.record(z.string(), z.object({ ok: z.boolean() })),
});
