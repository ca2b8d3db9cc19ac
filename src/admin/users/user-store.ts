// Local users in one Secret (`graphdb-admin-users`, data key `users.json`), changed with optimistic concurrency.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { SecretPort } from '../../platform/stores/ports.js';
import { Mutex } from '../../shared/mutex.js';
import { ADMIN_ROLES } from '../permissions/permissions.js';
import { withConflictRetries, withStoreErrors } from '../store-errors.js';

export const USERS_SECRET = 'graphdb-admin-users';
const USERS_KEY = 'users.json';

export const StoredUserSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(ADMIN_ROLES),
  provider: z.enum(['local', 'alpha', 'beta']),
  /** Linked OAuth identities: provider → subject (`sub` for alpha, `tid:oid` for beta). */
  identities: z.object({ alpha: z.string().optional(), beta: z.string().optional() }).optional(),
  passwordHash: z.string().optional(),
  createdAt: z.string(),
  lastLoginAt: z.string().optional(),
  disabled: z.boolean(),
});
export type StoredUser = z.infer<typeof StoredUserSchema>;
const UsersSchema = z.array(StoredUserSchema);

export function createUserStore(secrets: SecretPort) {
  const mutex = new Mutex();

  async function readAll(): Promise<{ users: StoredUser[]; version: string | undefined }> {
    const stored = await secrets.read(USERS_SECRET);
    if (!stored) return { users: [], version: undefined };
    const parsed = UsersSchema.safeParse(JSON.parse(stored.value[USERS_KEY] ?? '[]'));
    if (!parsed.success) throw new Error(`Secret ${USERS_SECRET} does not hold a valid user list`);
    return { users: parsed.data, version: stored.version };
  }

  return {
    list: (): Promise<StoredUser[]> => withStoreErrors(async () => (await readAll()).users),

    /**
     * Applies `change` to the current list and writes it back; re-reads and re-applies when another writer
     * changed the list in between. `change` may throw (HttpError) to refuse; it must not have side effects.
     */
    async update<T>(change: (users: StoredUser[]) => { users: StoredUser[]; result: T }): Promise<T> {
      return mutex.run(() =>
        withStoreErrors(() =>
          withConflictRetries(async () => {
            const { users, version } = await readAll();
            const { users: next, result } = change(structuredClone(users));
            await secrets.write(USERS_SECRET, { [USERS_KEY]: JSON.stringify(next) }, version);
            return result;
          }),
        ),
      );
    },
  };
}

export type UserStore = ReturnType<typeof createUserStore>;

export function newUserId(): string {
  return randomUUID();
}
