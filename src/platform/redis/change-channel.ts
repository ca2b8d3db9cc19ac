// Tells every replica at once that something it may hold in memory changed (a user's sessions, the RBAC roles,
// the settings). Replicas share the token store, so its pub/sub carries the announcements; each replica drops the
// named cache when one arrives. Announcements can be lost while a subscriber is disconnected, so every listener is
// also called when the subscription drops or comes back: a cache is then re-read rather than trusted.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { duplicateStoreConnection, type RedisConnection } from './redis-connection.js';

export const CHANGE_TOPICS = ['users', 'rbac', 'settings', 'serviceaccounts'] as const;
export type ChangeTopic = (typeof CHANGE_TOPICS)[number];

export interface ChangeChannel {
  /** Tells every replica, this one included, that `topic` changed. Never throws: the caches' refresh bounds a loss. */
  announce(topic: ChangeTopic): Promise<void>;
  /** Calls `listener` whenever `topic` may have changed; returns a function that stops calling it. */
  onChange(topic: ChangeTopic, listener: () => void): () => void;
  close(): Promise<void>;
}

export const CHANGE_CHANNEL = 'graphdb:admin-changes';

function isTopic(message: string): message is ChangeTopic {
  return (CHANGE_TOPICS as readonly string[]).includes(message);
}

/** An in-process channel: what a single replica without a shared store needs (and the base of the shared one). */
function localListeners() {
  const listeners = new Map<ChangeTopic, Set<() => void>>(CHANGE_TOPICS.map((topic) => [topic, new Set()]));
  return {
    notify(topic: ChangeTopic): void {
      for (const listener of listeners.get(topic) ?? []) listener();
    },
    notifyAll(): void {
      for (const topic of CHANGE_TOPICS) this.notify(topic);
    },
    add(topic: ChangeTopic, listener: () => void): () => void {
      const set = listeners.get(topic)!;
      set.add(listener);
      return () => set.delete(listener);
    },
  };
}

/** Announces through `store`'s pub/sub when given; otherwise changes are seen by this process only. */
export function createChangeChannel(
  store: RedisConnection | undefined,
  logger: Pick<FastifyBaseLogger, 'warn' | 'debug'>,
): ChangeChannel {
  const listeners = localListeners();
  if (!store) {
    return {
      announce: (topic) => Promise.resolve(listeners.notify(topic)),
      onChange: (topic, listener) => listeners.add(topic, listener),
      close: () => Promise.resolve(),
    };
  }

  const subscriber = duplicateStoreConnection(store);
  // Each replica hears its own announcements too; they carry its id so it does not drop what it just wrote.
  const self = randomUUID();
  let closed = false;
  const everythingMayHaveChanged = () => {
    if (!closed) listeners.notifyAll();
  };
  subscriber.on('error', (error: Error) => {
    logger.debug({ err: { message: error.message } }, 'admin change subscriber error');
  });
  subscriber.on('end', everythingMayHaveChanged);
  subscriber.on('ready', everythingMayHaveChanged);
  subscriber
    .connect()
    .then(() =>
      subscriber.subscribe(CHANGE_CHANNEL, (message: string) => {
        const [topic, origin] = message.split(' ');
        if (topic !== undefined && isTopic(topic) && origin !== self) listeners.notify(topic);
      }),
    )
    .catch((error: unknown) =>
      logger.warn({ err: error }, 'cannot subscribe to admin changes; other replicas see changes on their refresh'),
    );

  return {
    async announce(topic) {
      // Locally at once, whatever the store does: this replica must never serve its own stale copy.
      listeners.notify(topic);
      await store.publish(CHANGE_CHANNEL, `${topic} ${self}`).catch((error: unknown) => {
        logger.warn({ err: error, topic }, 'could not announce an admin change to the other replicas');
      });
    },
    onChange: (topic, listener) => listeners.add(topic, listener),
    async close() {
      closed = true;
      if (subscriber.isOpen) await subscriber.close().catch(() => subscriber.destroy());
    },
  };
}
