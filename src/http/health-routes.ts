// /healthz (the process answers) and /readyz (every dependency answers), for probes and load balancers; /health and
// /ready are the FalkorDB Enterprise admin API's spellings of the same probes, with its fields (timestamp, version, uptime) added.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SERVER_VERSION } from '../platform/build-info.js';
import { HealthSchema, LivenessSchema, ReadinessSchema, ReadySchema } from './health-schemas.js';

export interface ReadinessCheck {
  name: string;
  /** Resolves when the dependency is usable; rejects (or times out) otherwise. */
  check: () => Promise<void>;
  /**
   * How long the dependency may fail, after it last answered, before the replica stops being ready. Meanwhile the
   * replica answers 200 `degraded`: it serves what it can from the last good copy, and a short outage shared by
   * every replica (the Kubernetes API restarting) does not take them all out of the Service at once. Without it,
   * any failure makes the replica not ready; a dependency that never answered always does.
   */
  toleratedOutageMs?: number;
  /** Failures that waiting does not fix (refused credentials): not tolerated, however recent the last success. */
  isLasting?: (error: unknown) => boolean;
}

const CHECK_TIMEOUT_MS = 2000;

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function registerHealthRoutes(
  app: FastifyInstance,
  checks: ReadinessCheck[],
  now: () => number = Date.now,
): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const lastSuccess = new Map<string, number>();
  /** Whether a failing check still leaves the replica ready (its outage is young enough). */
  const tolerated = ({ name, toleratedOutageMs, isLasting }: ReadinessCheck, error: unknown): boolean => {
    if (isLasting?.(error)) return false;
    const since = lastSuccess.get(name);
    return toleratedOutageMs !== undefined && since !== undefined && now() - since <= toleratedOutageMs;
  };
  /** Runs every check (each within its deadline) and judges the replica. */
  async function readiness(request: FastifyRequest) {
    const results = await Promise.all(
      checks.map(async (entry) => {
        try {
          await withTimeout(entry.check(), CHECK_TIMEOUT_MS);
          lastSuccess.set(entry.name, now());
          return { entry, ok: true, error: undefined as unknown };
        } catch (error) {
          // The reason goes to the log only: the probe is unauthenticated and must not reveal internal addresses.
          request.log.warn({ check: entry.name, reason: (error as Error).message }, 'readiness check failed');
          return { entry, ok: false, error };
        }
      }),
    );
    const failed = results.filter((result) => !result.ok);
    const status: 'ready' | 'degraded' | 'not ready' =
      failed.length === 0
        ? 'ready'
        : failed.every((result) => tolerated(result.entry, result.error))
          ? 'degraded'
          : 'not ready';
    const checksByName = Object.fromEntries(results.map((result) => [result.entry.name, { ok: result.ok }]));
    return { status, checks: checksByName };
  }
  routes.get(
    '/healthz',
    {
      logLevel: 'warn',
      schema: {
        operationId: 'getHealth',
        tags: ['ops'],
        summary: 'Liveness: the process is up',
        description:
          'Public, no credentials. Answers 200 `{"status":"ok"}` while the process runs; it checks no dependency, so an orchestrator restarts the process only when it is stuck.',
        response: { 200: LivenessSchema },
      },
    },
    () => ({ status: 'ok' as const }),
  );
  routes.get(
    '/readyz',
    {
      logLevel: 'warn',
      schema: {
        operationId: 'getReadiness',
        tags: ['ops'],
        summary:
          'Readiness: the token store answers; Kubernetes (when configured) answers or failed only recently (`degraded`)',
        description:
          'Public, no credentials. Answers 200 with `ready` or `degraded` and the result of each check, or 503 `not ready` when a dependency has failed beyond its tolerated outage, so a load balancer stops sending traffic.',
        response: { 200: ReadinessSchema, 503: ReadinessSchema },
      },
    },
    async (request, reply) => {
      const { status, checks: checksByName } = await readiness(request);
      return reply.code(status === 'not ready' ? 503 : 200).send({ status, checks: checksByName });
    },
  );
  routes.get(
    '/health',
    {
      logLevel: 'warn',
      schema: {
        operationId: 'getHealthStatus',
        tags: ['ops'],
        summary: 'Liveness (as /healthz) with the time, version and uptime',
        description: 'Public. Answers 200 while the process runs.',
        response: { 200: HealthSchema },
      },
    },
    () => ({
      status: 'ok' as const,
      timestamp: new Date(now()).toISOString(),
      version: SERVER_VERSION,
      uptime: Math.round(process.uptime() * 1000) / 1000,
    }),
  );
  routes.get(
    '/ready',
    {
      logLevel: 'warn',
      schema: {
        operationId: 'getReadyStatus',
        tags: ['ops'],
        summary: 'Readiness (as /readyz) with the time',
        description: 'Public. 503 `not ready` when a dependency fails beyond its tolerated outage, as /readyz.',
        response: { 200: ReadySchema, 503: ReadySchema },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const result = await readiness(request);
      return reply
        .code(result.status === 'not ready' ? 503 : 200)
        .send({ ...result, timestamp: new Date(now()).toISOString() });
    },
  );
}
