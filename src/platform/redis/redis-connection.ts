// A node-redis client for a Redis-protocol server (the token store): created here, connected by the caller.
import { createClient } from 'redis';
import type { Logger } from 'pino';

export function createRedisConnection(url: string, logger: Logger) {
  const client = createClient({
    url,
    socket: { connectTimeout: 5000, reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 2000) },
  });
  let lastLogged = 0;
  // node-redis emits an error per failed reconnect; without a listener it would crash the process.
  client.on('error', (error: Error) => {
    const now = Date.now();
    if (now - lastLogged < 10_000) return;
    lastLogged = now;
    logger.warn({ err: { message: error.message } }, 'token store connection error');
  });
  return client;
}

export type RedisConnection = ReturnType<typeof createRedisConnection>;
