// Local users in one Secret (`graphdb-admin-users`, data key `users.json`), changed with optimistic concurrency.
// Reads are served from the last copy read or written while it is younger than `refreshMs` (every session check
// needs the user, and a store round trip per request capped the admin API at a few thousand requests a second);
// when the store cannot be read, the last good copy is served.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { ChangeChannel } from '../../platform/redis/change-channel.js';
import type { SecretPort } from '../../platform/stores/ports.js';
import { Mutex } from '../../lib/mutex.js';
import { RoleNameSchema } from '../rbac/schemas.js';
import { withConflictRetries } from '../conflict-retries.js';

export const USERS_SECRET = 'graphdb-admin-users';
const USERS_KEY = 'users.json';

export const StoredUserSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  /** A shipped or custom role (admin/rbac); one that no longer exists grants nothing. */
  role: RoleNameSchema,
  provider: z.enum(['local', 'alpha', 'beta']),
  /** Linked OAuth identities: provider → subject (`sub` for alpha, `tid:oid` for beta). */
  identities: z.object({ alpha: z.string().optional(), beta: z.string().optional() }).optional(),
  passwordHash: z.string().optional(),
  createdAt: z.string(),
  lastLoginAt: z.string().optional(),
  disabled: z.boolean(),
  /**
   * Sessions carry the version they were issued under; bumping it (logout, password, role or disabled change)
   * ends every earlier session of the user, on every replica (all read this store). Absent: 0.
   */
  sessionVersion: z.number().int().nonnegative().optional(),
  /** Set by an admin's password reset: until the user picks a new password, the session may do little else. */
  mustChangePassword: z.boolean().optional(),
});
export type StoredUser = z.infer<typeof StoredUserSchema>;
const UsersSchema = z.array(StoredUserSchema);

export interface UserStoreOptions {
  /** How long a copy read from (or written to) the store is served without reading again; 0 reads every time. */
  refreshMs: number;
  now: () => number;
  logger: Pick<FastifyBaseLogger, 'warn'>;
  /** The Secret holding the list (USERS_SECRET_NAME); USERS_SECRET when not given. */
  secretName?: string;
  /** Announces writes to the other replicas and drops the copy when they write (so revocations apply at once). */
  changes?: ChangeChannel;
}

interface Snapshot {
  users: StoredUser[];
  version: string | undefined;
  at: number;
}

export function createUserStore(secrets: SecretPort, options: UserStoreOptions) {
  const mutex = new Mutex();
  const secretName = options.secretName ?? USERS_SECRET;
  let snapshot: Snapshot | undefined;
  let reading: Promise<StoredUser[]> | undefined;
  /** Bumped by every announcement: a read that began before one may hold what it announced as changed. */
  let generation = 0;
  // Stale, not dropped: it stays the last good copy should the store be unreadable when it is next needed.
  const markStale = () => {
    generation++;
    if (snapshot) snapshot = { ...snapshot, at: Number.NEGATIVE_INFINITY };
  };
  options.changes?.onChange('users', markStale);

  async function readAll(): Promise<Snapshot> {
    const stored = await secrets.read(secretName);
    const at = options.now();
    if (!stored) return { users: [], version: undefined, at };
    const parsed = UsersSchema.safeParse(JSON.parse(stored.value[USERS_KEY] ?? '[]'));
    if (!parsed.success) throw new Error(`Secret ${secretName} does not hold a valid user list`);
    return { users: parsed.data, version: stored.version, at };
  }

  /** Single flight: concurrent requests share one read. */
  function refresh(): Promise<StoredUser[]> {
    const startedAt = generation;
    reading ??= readAll()
      .then((fresh) => {
        // Served to the requests that waited for it, but not kept as fresh when a change was announced meanwhile.
        snapshot = generation === startedAt ? fresh : { ...fresh, at: Number.NEGATIVE_INFINITY };
        return fresh.users;
      })
      .catch((error: unknown) => {
        if (!snapshot) throw error;
        options.logger.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          'could not read the user store; serving the last good copy',
        );
        return snapshot.users;
      })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  }

  return {
    /** The next read goes to the store. */
    invalidate: markStale,

    list: async (): Promise<StoredUser[]> => {
      if (snapshot && options.now() - snapshot.at < options.refreshMs) return snapshot.users;
      return refresh();
    },

    /** The copy `list` would serve without reading the store, or undefined when it would read: no promise. */
    listFromMemory: (): readonly StoredUser[] | undefined =>
      snapshot && options.now() - snapshot.at < options.refreshMs ? snapshot.users : undefined,

    /**
     * Applies `change` to the current list and writes it back; re-reads and re-applies when another writer
     * changed the list in between. `change` may throw (HttpError) to refuse; it must not have side effects.
     */
    async update<T>(change: (users: StoredUser[]) => { users: StoredUser[]; result: T }): Promise<T> {
      const result = await mutex.run(() =>
        withConflictRetries(async () => {
          const { users, version } = await readAll();
          const { users: next, result } = change(structuredClone(users));
          const written = await secrets.write(secretName, { [USERS_KEY]: JSON.stringify(next) }, version);
          return { result, fresh: { users: next, version: written.version, at: options.now() } };
        }),
      );
      await options.changes?.announce('users');
      // After the announcement: its local delivery drops the copy, and this write is the freshest there is.
      snapshot = result.fresh;
      return result.result;
    },
  };
}

export type UserStore = ReturnType<typeof createUserStore>;

export function newUserId(): string {
  return randomUUID();
}
