// The OAuth state cookie: state, nonce, PKCE verifier, provider and returnTo, signed (HS256 with the session
// secret) so the callback can trust it; HttpOnly, SameSite=Lax, 10 minutes, scoped to the provider's path.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { signHs256, verifyHs256 } from '../../shared/jwt.js';
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
});
export type OAuthState = z.infer<typeof StateSchema>;

const cookiePath = (provider: ProviderId) => `/api/auth/oauth/${provider}`;

export async function setStateCookie(
  reply: FastifyReply,
  secret: string,
  state: OAuthState,
  secure: boolean,
  nowMs: number,
): Promise<void> {
  const value = await signHs256(state, secret, {
    expiresAt: Math.floor(nowMs / 1000) + STATE_TTL_SECONDS,
    audience: AUDIENCE,
  });
  void reply.setCookie(STATE_COOKIE, value, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: cookiePath(state.provider),
    maxAge: STATE_TTL_SECONDS,
  });
}

export function clearStateCookie(reply: FastifyReply, provider: ProviderId, secure: boolean): void {
  void reply.clearCookie(STATE_COOKIE, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: cookiePath(provider),
    maxAge: 0,
  });
}

/** The cookie's contents when it is present, authentic, unexpired and made for this provider. */
export async function readStateCookie(
  request: FastifyRequest,
  secret: string,
  provider: ProviderId,
): Promise<OAuthState | undefined> {
  const value = request.cookies[STATE_COOKIE];
  if (!value) return undefined;
  try {
    const parsed = StateSchema.safeParse(await verifyHs256(value, secret, { audience: AUDIENCE }));
    return parsed.success && parsed.data.provider === provider ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
