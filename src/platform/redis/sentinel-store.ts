// The token store behind Sentinel: a node-redis client whose every (re)connection asks the sentinels where the
// primary is. node-redis dials through net.connect, whose `lookup` option resolves the host name: that lookup asks
// the sentinels, so a reconnect after a failover reaches the new primary, and `duplicate()` (the subscribers) does
// the same. The data nodes must share one port, as a KubeBlocks deployment's pods do (6379).
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { newRedisClient } from './redis-client.js';
import type { Logger } from 'pino';
import { logStoreErrors, storeReconnectStrategy } from './redis-connection.js';
import { withSentinel } from './sentinel-session.js';
import type { StoreTarget } from './store-url.js';

type SentinelTarget = Extract<StoreTarget, { kind: 'sentinel' }>;

const SENTINEL_ANSWER_MS = 2000;

/** The primary's address as the first sentinel that knows the master name says. */
export async function primaryOf(target: SentinelTarget): Promise<{ host: string; port: number }> {
  const failures: string[] = [];
  for (const sentinel of target.sentinels) {
    try {
      const reply = await withSentinel(sentinel, SENTINEL_ANSWER_MS, (send) =>
        send<[string, string] | null>(['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', target.masterName]),
      );
      if (reply) return { host: reply[0], port: Number(reply[1]) };
      failures.push(`${sentinel.host}:${sentinel.port} does not know ${target.masterName}`);
    } catch (error) {
      failures.push(`${sentinel.host}:${sentinel.port}: ${(error as Error).message}`);
    }
  }
  throw new Error(`no sentinel named the primary of ${target.masterName} (${failures.join('; ')})`);
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/** Resolves the placeholder host to the primary's address, asking the sentinels each time a socket is opened. */
function sentinelLookup(target: SentinelTarget, port: number) {
  return (_hostname: string, options: LookupOptions, callback: LookupCallback) => {
    primaryOf(target).then(
      (primary) => {
        if (primary.port !== port) {
          callback(new Error(`the primary of ${target.masterName} moved to port ${primary.port}, not ${port}`), '');
          return;
        }
        const family = isIP(primary.host) || 4;
        if (options.all) callback(null, [{ address: primary.host, family }]);
        else callback(null, primary.host, family);
      },
      (error: unknown) => callback(error as Error, ''),
    );
  };
}

/** A placeholder name: never resolved by DNS, only by the sentinel lookup. */
const placeholderHost = (masterName: string) => `${masterName}.sentinel.invalid`;

export async function createSentinelStoreConnection(target: SentinelTarget, logger: Logger) {
  const primary = await primaryOf(target);
  const client = newRedisClient({
    socket: {
      host: placeholderHost(target.masterName),
      port: primary.port,
      lookup: sentinelLookup(target, primary.port),
      connectTimeout: 5000,
      reconnectStrategy: storeReconnectStrategy,
      ...(target.tls ? { tls: true as const, servername: isIP(primary.host) ? undefined : primary.host } : {}),
    },
    ...(target.username ? { username: target.username } : {}),
    ...(target.password !== undefined ? { password: target.password } : {}),
    database: target.database,
    disableOfflineQueue: true,
  });
  logStoreErrors(client, logger);
  return client;
}
