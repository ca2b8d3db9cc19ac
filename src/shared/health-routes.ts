// /healthz (the process answers) and /readyz (every dependency answers), for probes and load balancers.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';

export interface ReadinessCheck {
  name: string;
  /** Resolves when the dependency is usable; rejects (or times out) otherwise. */
  check: () => Promise<void>;
}

const CHECK_TIMEOUT_MS = 2000;

const ReadinessSchema = z.object({
  status: z.enum(['ready', 'not ready']),
  checks: z.record(z.string(), z.object({ ok: z.boolean() })),
});

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function registerHealthRoutes(app: FastifyInstance, checks: ReadinessCheck[]): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.get(
    '/healthz',
    {
      logLevel: 'warn',
      schema: { operationId: 'getHealth', tags: ['ops'], summary: 'Liveness: the process is up', response: { 200: z.object({ status: z.literal('ok') }) } },
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
        summary: 'Readiness: the token store (and Kubernetes, when configured) answer',
        response: { 200: ReadinessSchema, 503: ReadinessSchema },
      },
    },
    async (request, reply) => {
      const results = await Promise.all(
        checks.map(async ({ name, check }) => {
          try {
            await withTimeout(check(), CHECK_TIMEOUT_MS);
            return [name, { ok: true }] as [string, { ok: boolean }];
          } catch (error) {
            // The reason goes to the log only: the probe is unauthenticated and must not reveal internal addresses.
            request.log.warn({ check: name, reason: (error as Error).message }, 'readiness check failed');
            return [name, { ok: false }] as [string, { ok: boolean }];
          }
        }),
      );
      const ready = results.every(([, result]) => result.ok);
      const checksByName: Record<string, { ok: boolean }> = Object.fromEntries(results);
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks: checksByName });
    },
  );
}
