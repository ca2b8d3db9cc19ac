// The OAuth state cookie: state, nonce, PKCE verifier, provider and returnTo, signed (HS256 with the session
// secret) so the callback can trust it; HttpOnly, SameSite=Lax, 10 minutes, scoped to the provider's path.
import { z } from 'zod';
import { signHs256, verifyHs256 } from '../../lib/jwt.js';
import { clearedCookie, type CookieToSet } from '../cookies.js';
import type { ProviderId } from './providers.js';

export const STATE_COOKIE = 'oauth_state';
const STATE_TTL_SECONDS = 600;
const AUDIENCE = 'graphdb-oauth-state';

const StateSchema = z.object({
  state: z.string(),
  nonce: z.string(),
  verifier: z.string(),
  provider: z.enum(['alpha', 'beta']),
  returnTo: z.string(),
  /** A native client's sign-in (RFC 8252): where its code goes, and the challenge that binds it. */
  cli: z.object({ redirect: z.string(), challenge: z.string(), state: z.string() }).optional(),
});
export type OAuthState = z.infer<typeof StateSchema>;

/** The callback without a provider segment (for OAUTH_PROVIDER's provider): its state cookie is scoped to it. */
export const GENERIC_CALLBACK_PATH = '/api/auth/oauth/callback';

const cookiePath = (provider: ProviderId, generic: boolean) =>
  generic ? GENERIC_CALLBACK_PATH : `/api/auth/oauth/${provider}`;

const attributes = (provider: ProviderId, secure: boolean, generic: boolean) => ({
  httpOnly: true,
  sameSite: 'lax' as const,
  secure,
  path: cookiePath(provider, generic),
});

/**
 * The signed state cookie the callback of `state.provider` needs, valid for 10 minutes; `generic` when the provider
 * sends the browser back to the callback without a provider segment.
 */
export async function stateCookie(
  secret: string,
  state: OAuthState,
  secure: boolean,
  nowMs: number,
  generic = false,
): Promise<CookieToSet> {
  const value = await signHs256(state, secret, {
    expiresAt: Math.floor(nowMs / 1000) + STATE_TTL_SECONDS,
    audience: AUDIENCE,
  });
  return {
    name: STATE_COOKIE,
    value,
    options: { ...attributes(state.provider, secure, generic), maxAge: STATE_TTL_SECONDS },
  };
}

/** The state cookie cleared: it is single-use. */
export function clearedStateCookie(provider: ProviderId, secure: boolean, generic = false): CookieToSet {
  return clearedCookie(STATE_COOKIE, attributes(provider, secure, generic));
}

/** The cookie's contents when it is present, authentic, unexpired and made for this provider. */
export async function readStateCookie(
  value: string | undefined,
  secret: string,
  provider: ProviderId,
): Promise<OAuthState | undefined> {
  if (!value) return undefined;
  try {
    const parsed = StateSchema.safeParse(await verifyHs256(value, secret, { audience: AUDIENCE }));
    return parsed.success && parsed.data.provider === provider ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
