// Service accounts and their token hashes in one Secret (`graphdb-admin-serviceaccounts`, data key
// `serviceaccounts.json`; a file under DATA_DIR in embedded mode), kept the way the users are (users/user-store.ts):
// reads are served from the last copy for `refreshMs`, writes use optimistic concurrency, and every write but a
// last-used stamp is announced on the change channel, so a revocation or a disabled account reaches every replica
// at once. When the store cannot be read, the last good copy is served.
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { ChangeChannel } from '../../platform/redis/change-channel.js';
import type { SecretPort } from '../../platform/stores/ports.js';
import { Mutex } from '../../lib/mutex.js';
import { RoleNameSchema } from '../rbac/schemas.js';
import { withConflictRetries } from '../conflict-retries.js';

export const SERVICE_ACCOUNTS_SECRET = 'graphdb-admin-serviceaccounts';
const SERVICE_ACCOUNTS_KEY = 'serviceaccounts.json';

export const StoredTokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** Hex SHA-256 of the token's text: the text itself is never stored. */
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: z.string(),
  createdBy: z.string(),
  expiresAt: z.string(),
  /** CIDR blocks the token may be used from; empty or absent: any address. */
  allowedCidrs: z.array(z.string()).optional(),
  lastUsedAt: z.string().optional(),
  lastUsedIp: z.string().optional(),
});
export type StoredToken = z.infer<typeof StoredTokenSchema>;

export const StoredServiceAccountSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  role: RoleNameSchema,
  disabled: z.boolean(),
  createdAt: z.string(),
  createdBy: z.string(),
  tokens: z.array(StoredTokenSchema),
});
export type StoredServiceAccount = z.infer<typeof StoredServiceAccountSchema>;
const AccountsSchema = z.array(StoredServiceAccountSchema);

export interface ServiceAccountStoreOptions {
  /** The Secret holding the list (SERVICE_ACCOUNTS_SECRET_NAME); SERVICE_ACCOUNTS_SECRET when not given. */
  secretName?: string;
  /** How long a copy is served without reading again (SETTINGS_REFRESH_MS); 0 reads every time. */
  refreshMs: number;
  now: () => number;
  logger: Pick<FastifyBaseLogger, 'warn'>;
  changes?: ChangeChannel;
}

interface Snapshot {
  accounts: StoredServiceAccount[];
  at: number;
}

export function createServiceAccountStore(secrets: SecretPort, options: ServiceAccountStoreOptions) {
  const secretName = options.secretName ?? SERVICE_ACCOUNTS_SECRET;
  const mutex = new Mutex();
  let snapshot: Snapshot | undefined;
  let reading: Promise<StoredServiceAccount[]> | undefined;
  let generation = 0;
  const markStale = () => {
    generation++;
    if (snapshot) snapshot = { ...snapshot, at: Number.NEGATIVE_INFINITY };
  };
  options.changes?.onChange('serviceaccounts', markStale);

  async function readAll(): Promise<{ accounts: StoredServiceAccount[]; version: string | undefined }> {
    const stored = await secrets.read(secretName);
    if (!stored) return { accounts: [], version: undefined };
    let raw: unknown;
    try {
      raw = JSON.parse(stored.value[SERVICE_ACCOUNTS_KEY] ?? '[]');
    } catch {
      raw = undefined;
    }
    const parsed = AccountsSchema.safeParse(raw);
    if (!parsed.success) throw new Error(`Secret ${secretName} does not hold a valid service account list`);
    return { accounts: parsed.data, version: stored.version };
  }

  function refresh(): Promise<StoredServiceAccount[]> {
    const startedAt = generation;
    reading ??= readAll()
      .then(({ accounts }) => {
        const at = generation === startedAt ? options.now() : Number.NEGATIVE_INFINITY;
        snapshot = { accounts, at };
        return accounts;
      })
      .catch((error: unknown) => {
        if (!snapshot) throw error;
        options.logger.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          'could not read the service account store; serving the last good copy',
        );
        return snapshot.accounts;
      })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  }

  return {
    list: async (): Promise<StoredServiceAccount[]> => {
      if (snapshot && options.now() - snapshot.at < options.refreshMs) return snapshot.accounts;
      return refresh();
    },

    /** The copy `list` would serve without reading the store, or undefined when it would read. */
    listFromMemory: (): readonly StoredServiceAccount[] | undefined =>
      snapshot && options.now() - snapshot.at < options.refreshMs ? snapshot.accounts : undefined,

    /**
     * Applies `change` to the stored list and writes it back, re-applying it when another writer got there first.
     * `change` may throw an HttpError to refuse. `announce: false` (a last-used stamp) keeps the other replicas'
     * copies: nothing they decide with changed.
     */
    async update<T>(
      change: (accounts: StoredServiceAccount[]) => { accounts: StoredServiceAccount[]; result: T },
      { announce = true }: { announce?: boolean } = {},
    ): Promise<T> {
      const outcome = await mutex.run(() =>
        withConflictRetries(async () => {
          const { accounts, version } = await readAll();
          const { accounts: next, result } = change(structuredClone(accounts));
          await secrets.write(secretName, { [SERVICE_ACCOUNTS_KEY]: JSON.stringify(next) }, version);
          return { result, next };
        }),
      );
      if (announce) await options.changes?.announce('serviceaccounts');
      generation++;
      snapshot = { accounts: outcome.next, at: options.now() };
      return outcome.result;
    },
  };
}

export type ServiceAccountStore = ReturnType<typeof createServiceAccountStore>;
