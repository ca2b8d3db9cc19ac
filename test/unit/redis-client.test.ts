// src/platform/redis/redis-client.ts: every client shares the class node-redis builds once, so a new connection
// (a token store, a pool's command connection, a Sentinel conversation) costs no rebuild of ~600 command methods.
import { describe, expect, it } from 'vitest';
import { newRedisClient } from '../../src/platform/redis/redis-client.js';

describe('newRedisClient', () => {
  it('makes clients of different addresses and accounts from one class', () => {
    const first = newRedisClient({ url: 'redis://store:secret@127.0.0.1:1/1', disableOfflineQueue: true });
    const second = newRedisClient({
      socket: { host: '127.0.0.1', port: 2, connectTimeout: 5000 },
      username: 'reader',
      password: 'other',
    });
    // createClient() would have built a class for each: its cache keeps one set of options, compared as JSON.
    expect(first.constructor).toBe(second.constructor);
    expect(first.isOpen).toBe(false);
    expect(second.isOpen).toBe(false);
  });

  it('gives each client its own options, as createClient would', async () => {
    const client = newRedisClient({
      socket: { host: '127.0.0.1', port: 1, connectTimeout: 200, reconnectStrategy: false },
      disableOfflineQueue: true,
    });
    client.on('error', () => undefined);
    // Nothing listens on port 1: the connection is refused, and a command while offline fails at once.
    await expect(client.connect()).rejects.toThrow();
    await expect(client.sendCommand(['PING'])).rejects.toThrow();
  });
});
