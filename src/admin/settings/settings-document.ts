// Pure functions over the settings document: reading what is stored (defaults filled in) and applying a PATCH.
import { BadRequestError } from '../../http/http-errors.js';
import {
  DEFAULT_SETTINGS,
  SettingsSchema,
  uiProblem,
  WRITE_ONLY_FIELDS,
  type Settings,
  type SettingsPatch,
} from './schemas.js';

export const SETTINGS_KEY = 'settings.json';

export interface SecretWrite {
  secretName: string;
  dataKey: string;
  value: string;
  /** `section.field`, for messages. */
  field: string;
}

type Section = Exclude<keyof Settings, 'ui'>;
type Sections = Record<Section, Record<string, unknown>>;

/** Stored text → the document with defaults for anything absent; `error` explains a document that fails. */
export function parseStoredSettings(text: string): { settings: Settings } | { error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { error: 'settings.json is not valid JSON' };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { error: 'settings.json is not a JSON object' };
  const stored = raw as Record<string, unknown>;
  const merged: Record<string, unknown> = {};
  for (const [section, defaults] of Object.entries(DEFAULT_SETTINGS)) {
    const value = stored[section];
    merged[section] =
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? { ...defaults, ...value }
        : (value ?? defaults);
  }
  for (const key of Object.keys(stored)) if (!(key in merged)) merged[key] = stored[key];
  const parsed = SettingsSchema.safeParse(merged);
  if (!parsed.success)
    return { error: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ') };
  return { settings: withOnboarding(parsed.data, onboardingOf(parsed.data)) };
}

/**
 * features.self_service_onboarding and its older name oauth.auto_onboard_users are one switch. The API always
 * writes both; a stored document where they differ (written before the two were joined, when only the older name
 * acted, or edited by hand) has it on when either is on.
 */
export function onboardingOf(settings: Settings): boolean {
  return settings.features.self_service_onboarding || settings.oauth.auto_onboard_users;
}

function withOnboarding(settings: Settings, on: boolean): Settings {
  if (settings.features.self_service_onboarding === on && settings.oauth.auto_onboard_users === on) return settings;
  return {
    ...settings,
    features: { ...settings.features, self_service_onboarding: on },
    oauth: { ...settings.oauth, auto_onboard_users: on },
  };
}

export function serializeSettings(settings: Settings): string {
  return `${JSON.stringify(settings, null, 2)}\n`;
}

/**
 * Merges a validated patch into `base`. Write-only values are taken out of the document: a non-blank one becomes
 * a Secret write under the reference given in the same patch or already saved; a blank one changes nothing.
 */
export function applySettingsPatch(
  base: Settings,
  patch: SettingsPatch,
): { settings: Settings; secretWrites: SecretWrite[] } {
  const viaFeatures = patch.features?.self_service_onboarding;
  const viaOAuth = patch.oauth?.auto_onboard_users;
  if (viaFeatures !== undefined && viaOAuth !== undefined && viaFeatures !== viaOAuth)
    throw new BadRequestError(
      'features.self_service_onboarding and oauth.auto_onboard_users are the same switch; give one, or both with the same value',
    );
  const onboarding = viaFeatures ?? viaOAuth ?? onboardingOf(base);
  const next = structuredClone<Settings>(base);
  const sections = next as unknown as Sections;
  const secretWrites: SecretWrite[] = [];
  for (const [section, changes] of Object.entries(patch) as [keyof Settings, Record<string, unknown> | undefined][]) {
    if (!changes) continue;
    if (section === 'ui') {
      next.ui = { ...next.ui, ...changes };
      // The patch alone was bounded by its schema; the merged object must be too.
      const problem = uiProblem(next.ui);
      if (problem) throw new BadRequestError(`ui: ${problem} (with the values already stored)`);
      continue;
    }
    const writeOnly = WRITE_ONLY_FIELDS.filter((entry) => entry.section === section);
    for (const [field, value] of Object.entries(changes)) {
      if (writeOnly.some((entry) => entry.field === field)) continue;
      sections[section][field] = value;
    }
    for (const entry of writeOnly) {
      const value = changes[entry.field];
      if (typeof value !== 'string' || value.trim() === '') continue;
      const secretName = sections[section][entry.ref];
      if (typeof secretName !== 'string' || secretName === '') {
        throw new BadRequestError(`${section}.${entry.ref} is required to store ${section}.${entry.field}`);
      }
      secretWrites.push({ secretName, dataKey: entry.dataKey, value, field: `${section}.${entry.field}` });
    }
  }
  return { settings: withOnboarding(SettingsSchema.parse(next), onboarding), secretWrites };
}
