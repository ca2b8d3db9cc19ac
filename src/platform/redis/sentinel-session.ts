// One short conversation with a Sentinel: connect (bounded), run the caller's commands, drop the connection. Shared
// by the database pools (tokens with topology sentinel) and the token store behind Sentinel.
import { isIP } from 'node:net';
import { newRedisClient } from './redis-client.js';

export interface SentinelEndpoint {
  /** As configured or given (the TLS server name when it is a host name). */
  host: string;
  port: number;
  /** What to dial, when the caller resolved and checked the host itself. */
  address?: string;
  tls?: { ca?: string };
  auth?: { username?: string; password?: string };
}

export type SentinelSend = <T>(args: string[]) => Promise<T>;

export async function withSentinel<T>(
  endpoint: SentinelEndpoint,
  timeoutMs: number,
  work: (send: SentinelSend) => Promise<T>,
): Promise<T> {
  const client = newRedisClient({
    socket: {
      host: endpoint.address ?? endpoint.host,
      port: endpoint.port,
      connectTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      reconnectStrategy: false,
      ...(endpoint.tls
        ? { tls: true as const, ca: endpoint.tls.ca, ...(isIP(endpoint.host) ? {} : { servername: endpoint.host }) }
        : {}),
    },
    ...(endpoint.auth?.username ? { username: endpoint.auth.username } : {}),
    ...(endpoint.auth?.password ? { password: endpoint.auth.password } : {}),
    disableOfflineQueue: true,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await work(<R>(args: string[]) => client.sendCommand<R>(args));
  } finally {
    try {
      client.destroy();
    } catch {
      // never connected
    }
  }
}
