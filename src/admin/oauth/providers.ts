// Which OAuth providers are configured: settings saved through the API win, at request time; the environment
// fallbacks count only when that provider has no settings-backed configuration.
import type { Config } from '../../config.js';
import type { Settings } from '../settings/schemas.js';

export const PROVIDERS = ['alpha', 'beta'] as const;
export type ProviderId = (typeof PROVIDERS)[number];

export interface ProviderConfig {
  type: ProviderId;
  source: 'settings' | 'environment';
  clientId: string;
  /** Empty when neither settings nor environment give one (the public origin's default then applies). */
  redirectUri: string;
  tenantId?: string;
  clientSecret: { secretRef: string } | { value: string };
}

function fromSettings(type: ProviderId, settings: Settings): ProviderConfig | undefined {
  if (type === 'alpha') {
    const s = settings.alpha_oauth;
    if (!s.client_id || !s.client_secret_secret_ref) return undefined;
    return {
      type,
      source: 'settings',
      clientId: s.client_id,
      redirectUri: s.redirect_uri,
      clientSecret: { secretRef: s.client_secret_secret_ref },
    };
  }
  const s = settings.beta_oauth;
  if (!s.client_id || !s.tenant_id || !s.client_secret_secret_ref) return undefined;
  return {
    type,
    source: 'settings',
    clientId: s.client_id,
    tenantId: s.tenant_id,
    redirectUri: s.redirect_uri,
    clientSecret: { secretRef: s.client_secret_secret_ref },
  };
}

function fromEnvironment(type: ProviderId, env: Config['oauthEnv']): ProviderConfig | undefined {
  if (type === 'alpha') {
    const e = env.alpha;
    if (!e.clientId || !e.clientSecret) return undefined;
    return {
      type,
      source: 'environment',
      clientId: e.clientId,
      redirectUri: e.redirectUri ?? '',
      clientSecret: { value: e.clientSecret },
    };
  }
  const e = env.beta;
  if (!e.clientId || !e.clientSecret || !e.tenantId) return undefined;
  return {
    type,
    source: 'environment',
    clientId: e.clientId,
    tenantId: e.tenantId,
    redirectUri: e.redirectUri ?? '',
    clientSecret: { value: e.clientSecret },
  };
}

export function resolveProvider(
  type: ProviderId,
  settings: Settings,
  env: Config['oauthEnv'],
): ProviderConfig | undefined {
  return fromSettings(type, settings) ?? fromEnvironment(type, env);
}

export function configuredProviders(settings: Settings, env: Config['oauthEnv']): ProviderConfig[] {
  return PROVIDERS.flatMap((type) => resolveProvider(type, settings, env) ?? []);
}

export const NO_WAY_TO_SIGN_IN =
  'Refused: with features.local_users_enabled off, no OAuth provider would be configured and enabled, so nobody could sign in. Configure a provider (alpha_oauth or beta_oauth, or its environment variables) with features.oauth2_enabled on first, or keep local sign-in on';

/** Why settings would leave nobody a way to sign in (local sign-in off, no OAuth provider usable), or undefined. */
export function signInRefusal(settings: Settings, env: Config['oauthEnv']): string | undefined {
  if (settings.features.local_users_enabled) return undefined;
  if (settings.features.oauth2_enabled && configuredProviders(settings, env).length > 0) return undefined;
  return NO_WAY_TO_SIGN_IN;
}
