// Graceful close: stop accepting, let requests in flight finish, then drop every remaining connection at once.
// Node counts a connection that has not sent a request yet (browsers and fetch open spares) as busy, so
// without the sweep such a socket would hold close() until its headers timeout.
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    requestsInFlight(): number;
  }
}

/** Counts requests from arrival until their response is finished or their socket closed (SSE included). */
export function trackRequestsInFlight(app: FastifyInstance): void {
  let inFlight = 0;
  app.decorate('requestsInFlight', () => inFlight);
  app.addHook('onRequest', (_request, reply, done) => {
    inFlight++;
    // A response emits 'close' once: when it has been sent, or when its connection went away first.
    reply.raw.once('close', () => inFlight--);
    done();
  });
}

export async function closeGracefully(app: FastifyInstance, sweepEveryMs = 50): Promise<void> {
  const sweeper = setInterval(() => {
    if (app.requestsInFlight() === 0) app.server.closeAllConnections();
  }, sweepEveryMs);
  try {
    await app.close();
  } finally {
    clearInterval(sweeper);
  }
}
