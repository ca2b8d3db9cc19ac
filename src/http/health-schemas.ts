// Shapes of /healthz and /readyz.
import { z } from 'zod';
import { timestamp } from '../lib/timestamp-schema.js';

const alive = { status: z.literal('ok').meta({ description: 'Always `ok`: the process answers' }) };
export const LivenessSchema = z.object(alive).meta({ examples: [{ status: 'ok' }] });

const readiness = {
  status: z.enum(['ready', 'degraded', 'not ready']).meta({
    description:
      '`ready`: every check passes; `degraded`: an optional one fails; `not ready` (503): a required one fails',
  }),
  checks: z
    .record(z.string(), z.object({ ok: z.boolean().meta({ description: 'Whether the check passed' }) }))
    .meta({ description: 'Each check by name (the token store, the settings, Kubernetes when used)' }),
};
const CHECKS_EXAMPLE = { tokenStore: { ok: true }, settings: { ok: true } };
export const ReadinessSchema = z.object(readiness).meta({ examples: [{ status: 'ready', checks: CHECKS_EXAMPLE }] });

/** /health: the FalkorDB Enterprise admin API's liveness body. */
export const HealthSchema = z
  .object({
    ...alive,
    timestamp: timestamp('The time of the answer'),
    version: z.string().meta({ description: "The server's version" }),
    uptime: z.number().meta({ description: 'Seconds since the process started' }),
  })
  .meta({ examples: [{ status: 'ok', timestamp: '2026-11-28T09:30:00.000Z', version: '0.1.0', uptime: 3600.25 }] });

/** /ready: the FalkorDB Enterprise admin API's readiness body (status, timestamp) with the checks of /readyz. */
export const ReadySchema = z
  .object({ ...readiness, timestamp: timestamp('The time of the answer') })
  .meta({ examples: [{ status: 'ready', checks: CHECKS_EXAMPLE, timestamp: '2026-11-28T09:30:00.000Z' }] });
