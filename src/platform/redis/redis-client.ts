// Every node-redis client of the server (token store, database pools, Sentinel conversations) is made here, as a
// duplicate of one template that is never connected. node-redis builds a class per distinct set of options (each of
// its ~600 commands attached one by one as a method, for the client and again for its MULTI) and caches only the
// last one, keyed by the options' JSON: a connection URL or password makes every client a miss. Measured on an
// embedded start (docs/performance.md), that was about 10 MiB allocated per client, most of the start's garbage and
// a heap grown to hold it. `duplicate()` makes an instance of the template's class with the caller's options.
import { createClient, type RedisClientOptions } from '@redis/client';

type RedisClient = ReturnType<typeof createClient>;
type ClientOptions = Omit<RedisClientOptions, 'modules' | 'functions' | 'scripts' | 'RESP'>;

let template: RedisClient | undefined;

/** A node-redis client with `options` (not connected), as `createClient(options)` would make it. */
export function newRedisClient(options: ClientOptions): RedisClient {
  template ??= createClient();
  return template.duplicate(options);
}
