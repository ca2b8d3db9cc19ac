// The settings document at run time: read from its ConfigMap (re-read on a short interval so hand edits apply
// without a restart; an invalid edit is logged and the last good document stays), and patched with Secret
// writes first, then the ConfigMap with its version, retried when another writer got there first.
import type { FastifyBaseLogger } from 'fastify';
import type { ChangeChannel } from '../../platform/redis/change-channel.js';
import type { AdminStores } from '../../platform/stores/ports.js';
import { BadRequestError } from '../../http/http-errors.js';
import { Mutex } from '../../lib/mutex.js';
import { singleFlightReload } from '../../lib/single-flight.js';
import { withConflictRetries } from '../conflict-retries.js';
import {
  applySettingsPatch,
  parseStoredSettings,
  serializeSettings,
  SETTINGS_KEY,
  type SecretWrite,
} from './settings-document.js';
import { DEFAULT_SETTINGS, type Settings, type SettingsPatch } from './schemas.js';
import { secretWriteRefusal, SETTINGS_SECRET_LABELS, type SecretWritePolicy } from './secret-policy.js';

export interface SettingsServiceOptions {
  stores: AdminStores;
  logger: FastifyBaseLogger;
  refreshMs: number;
  /** Which Secrets write-only values may go to. */
  secretPolicy: SecretWritePolicy;
  now?: () => number;
  /** Called with the settings in force whenever they change (loaded, hand-edited or patched). */
  onChange?: (settings: Settings) => void;
  /** Patches are announced to the other replicas, and theirs make this one re-read at once. */
  changes?: ChangeChannel;
  /** Why a patched document must not be saved (400, nothing written), or undefined to save it. */
  refusal?: (next: Settings) => string | undefined;
}

export function createSettingsService(options: SettingsServiceOptions) {
  const { stores, logger } = options;
  const now = options.now ?? Date.now;
  let lastGood: Settings = DEFAULT_SETTINGS;
  let lastVersion: string | undefined;
  let readAt = Number.NEGATIVE_INFINITY;
  let loadedOnce = false;
  const adopt = (settings: Settings): Settings => {
    const changed = settings !== lastGood || !loadedOnce;
    lastGood = settings;
    loadedOnce = true;
    if (changed) options.onChange?.(settings);
    return settings;
  };
  const writes = new Mutex();
  options.changes?.onChange('settings', () => {
    readAt = Number.NEGATIVE_INFINITY;
  });

  async function load(): Promise<Settings> {
    const stored = await stores.settings.read();
    readAt = now();
    if (!stored) return adopt(DEFAULT_SETTINGS);
    if (stored.version === lastVersion) return adopt(lastGood);
    const parsed = parseStoredSettings(stored.value[SETTINGS_KEY] ?? '');
    if ('error' in parsed) {
      logger.error(
        { store: stores.settings.description, reason: parsed.error },
        'ignoring invalid settings document; the last good settings stay in force',
      );
      lastVersion = stored.version;
      return adopt(lastGood);
    }
    lastVersion = stored.version;
    return adopt(parsed.settings);
  }

  /** Refuses (400) a write to a Secret the policy does not allow, as it is now. */
  async function checkSecret(write: SecretWrite) {
    const current = await stores.secrets.read(write.secretName);
    const refusal = secretWriteRefusal(write.secretName, current, write.field, options.secretPolicy);
    if (refusal) throw new BadRequestError(refusal);
    return current;
  }

  /** Upserts one data key of a Secret, leaving its other keys alone; a new Secret is labelled as a settings Secret. */
  async function writeSecret(write: SecretWrite): Promise<void> {
    await withConflictRetries(async () => {
      const current = await checkSecret(write);
      await stores.secrets.write(
        write.secretName,
        { ...(current?.value ?? {}), [write.dataKey]: write.value },
        current?.version,
        { ...SETTINGS_SECRET_LABELS },
      );
    });
  }

  const reload = singleFlightReload(
    load,
    () => lastGood,
    (reason) => logger.warn({ reason }, 'could not read the settings; using the last good ones'),
  );

  /**
   * The settings in force, re-read when older than the refresh interval (single flight): the settings themselves
   * while they are fresh, so that a read served from memory settles in the same turn, without a promise (the
   * console reads them on every page).
   */
  function inForce(): Settings | Promise<Settings> {
    if (now() - readAt < options.refreshMs) return lastGood;
    return reload();
  }

  return {
    /** The settings in force, re-read when older than the refresh interval (single flight). */
    async current(): Promise<Settings> {
      return inForce();
    },

    /** As current(), but the settings themselves, not a promise, while they are fresh. */
    inForce,

    /** Readiness: the settings store answered at least once (before that the defaults would be guesses). */
    async ready(): Promise<void> {
      await this.current();
      if (!loadedOnce) throw new Error('settings not loaded yet');
    },

    /** The last good settings without any I/O (for hot paths such as the docs UI switch). */
    cached(): Settings {
      return lastGood;
    },

    async patch(patch: SettingsPatch): Promise<Settings> {
      return writes.run(async () => {
        const written = new Set<string>();
        return withConflictRetries(async () => {
          const stored = await stores.settings.read();
          let base = lastGood;
          if (stored) {
            const parsed = parseStoredSettings(stored.value[SETTINGS_KEY] ?? '');
            if ('settings' in parsed) base = parsed.settings;
          }
          const { settings, secretWrites } = applySettingsPatch(base, patch);
          const refusal = options.refusal?.(settings);
          if (refusal) throw new BadRequestError(refusal);
          // Every target is checked before anything is written, so a refused one leaves no partial change.
          for (const write of secretWrites) await checkSecret(write);
          // Secrets first: a crash between the two writes never leaves settings pointing at an unwritten value.
          for (const write of secretWrites) {
            const key = `${write.secretName}/${write.dataKey}`;
            if (written.has(key)) continue;
            await writeSecret(write);
            written.add(key);
          }
          const result = await stores.settings.write({ [SETTINGS_KEY]: serializeSettings(settings) }, stored?.version);
          await options.changes?.announce('settings');
          lastVersion = result.version;
          readAt = now();
          return adopt(settings);
        });
      });
    },

    /** A value kept in a Secret the settings refer to (e.g. an OAuth client secret), read at request time. */
    secretValue: async (secretName: string, dataKey: string): Promise<string | undefined> =>
      // The user store is never a credential, whatever name USERS_SECRET_NAME gives it.
      options.secretPolicy.reserved.includes(secretName)
        ? undefined
        : (await stores.secrets.read(secretName))?.value[dataKey],
  };
}

export type SettingsService = ReturnType<typeof createSettingsService>;
