// Which Secrets a write-only setting may write: one this server created for settings (both labels), one
// whose name starts with SETTINGS_SECRET_PREFIX, or a new one; never a reserved Secret such as the user store.
import { MANAGED_BY, type Labels } from '../../platform/stores/ports.js';

/** Labels of a Secret created to hold a write-only setting: ours, and for settings. */
export const SETTINGS_SECRET_LABELS: Readonly<Labels> = Object.freeze({
  ...MANAGED_BY,
  'app.kubernetes.io/component': 'settings-secret',
});

export interface SecretWritePolicy {
  /** Names of Secrets an existing one may have to be writable without the labels; '' allows none by name. */
  prefix: string;
  /** Secrets the server keeps for itself (the user store): never written through settings, whatever their name. */
  reserved: readonly string[];
}

/** Why `name` may not be written for `field`, or undefined when it may. `current` is the Secret as it is now. */
export function secretWriteRefusal(
  name: string,
  current: { labels: Labels } | undefined,
  field: string,
  policy: SecretWritePolicy,
): string | undefined {
  if (policy.reserved.includes(name))
    return `${field} cannot be stored in Secret ${name}: the server keeps its own data there`;
  if (policy.prefix !== '' && name.startsWith(policy.prefix)) return undefined;
  if (!current) return undefined;
  const ours = Object.entries(SETTINGS_SECRET_LABELS).every(([key, value]) => current.labels[key] === value);
  if (ours) return undefined;
  const byName = policy.prefix === '' ? '' : `, or a name starting with ${policy.prefix}`;
  return `${field} cannot be stored in Secret ${name}: it exists and was not created by this server for settings; name a new Secret${byName}`;
}
