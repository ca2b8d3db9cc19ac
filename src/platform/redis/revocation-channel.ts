// Listens for revocations announced by any replica and keeps the token cache honest. The cache is switched on
// only once the subscription is proven live end to end (a probe published through the store comes back on
// the subscriber); whenever the subscriber connection drops, the cache is emptied and switched off until the
// next successful probe.
import { randomUUID } from 'node:crypto';
import { duplicateStoreConnection, storeKeyPrefix, storeReady, type RedisConnection } from './redis-connection.js';
import type { PlatformLogger } from '../logger.js';
import { CHANGED_MESSAGE, REVOKED_MESSAGE, revocationChannel } from '../stores/token-store.js';

const PROBE_MESSAGE = 'probe ';
const PROBE_RETRY_MS = 2000;

/** What the listener tells the token cache (browser/auth/token-cache.ts): a token to drop, the channel up or down. */
export interface RevocationSubscriber {
  readonly enabled: boolean;
  revoked(tokenId: string): void;
  channelUp(): void;
  channelDown(): void;
}

export interface RevocationListener {
  close(): Promise<void>;
}

export function listenForRevocations(
  store: RedisConnection,
  cache: RevocationSubscriber,
  logger: PlatformLogger,
  prefix = storeKeyPrefix(store),
): RevocationListener {
  const channel = revocationChannel(prefix);
  const subscriber = duplicateStoreConnection(store);
  let pendingProbe: string | undefined;
  let closed = false;

  const onMessage = (message: string) => {
    if (message.startsWith(REVOKED_MESSAGE)) cache.revoked(message.slice(REVOKED_MESSAGE.length));
    else if (message.startsWith(CHANGED_MESSAGE)) cache.revoked(message.slice(CHANGED_MESSAGE.length));
    else if (message === `${PROBE_MESSAGE}${pendingProbe}`) {
      pendingProbe = undefined;
      cache.channelUp();
    }
  };

  const probe = () => {
    if (closed || cache.enabled || !storeReady(subscriber) || !storeReady(store)) return;
    pendingProbe = randomUUID();
    store.publish(channel, `${PROBE_MESSAGE}${pendingProbe}`).catch(() => undefined);
  };
  // Until a probe comes back (after a start or a reconnection), keep asking; cheap, and off when live.
  const retry = setInterval(probe, PROBE_RETRY_MS);
  retry.unref();

  const down = () => {
    pendingProbe = undefined;
    cache.channelDown();
  };
  subscriber.on('error', (error: Error) => {
    down();
    logger.debug({ err: { message: error.message } }, 'token revocation subscriber error');
  });
  subscriber.on('end', down);
  subscriber.on('reconnecting', down);
  subscriber.on('ready', probe);

  subscriber
    .connect()
    .then(() => subscriber.subscribe(channel, onMessage))
    .then(probe)
    .catch((error: unknown) =>
      logger.warn(
        { err: error },
        'cannot subscribe to token revocations; tokens are checked against the store on every request',
      ),
    );

  return {
    async close() {
      closed = true;
      clearInterval(retry);
      down();
      if (subscriber.isOpen) await subscriber.close().catch(() => subscriber.destroy());
    },
  };
}
