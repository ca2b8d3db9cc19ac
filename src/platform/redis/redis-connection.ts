// A node-redis client for a Redis-protocol server (the token store): created here, connected by the caller.
import { createClient, RESP_TYPES } from 'redis';
import type { Logger } from 'pino';

export function createRedisConnection(url: string, logger: Logger) {
  const client = createClient({
    url,
    socket: { connectTimeout: 5000, reconnectStrategy: storeReconnectStrategy },
    // While disconnected, commands fail at once instead of queueing: a request must not hang on a dead store.
    disableOfflineQueue: true,
  });
  logStoreErrors(client, logger);
  return client;
}

/** Reconnect attempts of the token store: quickly at first, then every half second. */
export const storeReconnectStrategy = (retries: number) => Math.min(50 * 2 ** retries, 500);

/**
 * node-redis emits an error per failed reconnect, and without a listener it would crash the process; one line per
 * 10 seconds says the store is away without flooding the log.
 */
export function logStoreErrors(
  client: { on(event: 'error', listener: (error: Error) => void): unknown },
  logger: Logger,
): void {
  let lastLogged = 0;
  client.on('error', (error: Error) => {
    const now = Date.now();
    if (now - lastLogged < 10_000) return;
    lastLogged = now;
    logger.warn({ err: { message: error.message } }, 'token store connection error');
  });
}

export type RedisConnection = ReturnType<typeof createRedisConnection>;

/** QUIT when connected; otherwise (reconnecting to a server that is gone) drop the socket instead of waiting. */
export async function closeRedisConnection(client: RedisConnection): Promise<void> {
  if (client.isReady) {
    await client.close().catch(() => undefined);
    return;
  }
  try {
    client.destroy();
  } catch {
    // already closed
  }
}

/** Commands whose bulk-string replies arrive as Buffers (DUMP payloads and keys are binary). */
export function binaryCommands(client: RedisConnection) {
  return (args: (string | Buffer)[]): Promise<unknown> =>
    client.sendCommand(args, { typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer } });
}
