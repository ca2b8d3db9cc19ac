// REQUEST_TIMEOUT_MS for every request, with or without a body. Fastify's own handler timer listens for
// the request's `close`, which Node emits as soon as a body has been read, so a POST whose handler hangs (a silent
// database during a credential check) was never answered. This timer runs from arrival until the response closes.
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `false` for a route bounded by something else (a query's own timeout), so REQUEST_TIMEOUT_MS does not cut it short. */
    requestDeadline?: false;
  }
}

/** The request was not answered in time; `bodyReceived` tells a slow client (408) from a slow server (503). */
export class RequestDeadlineError extends Error {
  constructor(
    readonly bodyReceived: boolean,
    readonly deadlineMs: number,
  ) {
    super(`The request was not answered within ${deadlineMs} ms`);
    this.name = 'RequestDeadlineError';
  }
}

/**
 * The answer past the deadline is all the hook does: no AbortSignal per request for handlers to listen to. Every
 * outbound call a handler makes has its own bound (database commands, the Kubernetes API, OpenID providers), and no
 * handler listened; creating the signal cost about 2 µs of every request, /healthz's included.
 */
export function enforceRequestDeadline(app: FastifyInstance, deadlineMs: number): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (request.routeOptions.config.requestDeadline === false) {
      done();
      return;
    }
    const timer = setTimeout(() => {
      // A response already under way (an event stream, a streamed body) is bounded by its own rules.
      if (reply.sent || reply.raw.headersSent) return;
      void reply.send(new RequestDeadlineError(request.raw.complete, deadlineMs));
    }, deadlineMs);
    // 'close' of the response: sent, or its connection gone. (The request's own 'close' comes too early.)
    reply.raw.once('close', () => clearTimeout(timer));
    done();
  });
}
