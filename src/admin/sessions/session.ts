// Admin sessions: an HS256 JWT (issuer and audience pinned) in the HttpOnly cookie `token`.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { signHs256, verifyHs256 } from '../../shared/jwt.js';
import { HttpError, UnauthorizedError } from '../../shared/http-errors.js';
import type { UserService } from '../users/user-service.js';
import type { StoredUser } from '../users/user-store.js';

export const SESSION_COOKIE = 'token';
export const SESSION_ISSUER = 'graphdb-server';
export const SESSION_AUDIENCE = 'graphdb-admin';

export interface SessionOptions {
  secret: string | undefined;
  ttlSeconds: number;
  /** `Secure` is set unless the public origin is plain http. */
  publicOrigin: string;
  now: () => number;
}

export function cookieAttributes(options: SessionOptions, maxAge: number) {
  return { httpOnly: true, sameSite: 'lax' as const, path: '/', secure: !options.publicOrigin.startsWith('http://'), maxAge };
}

/** Verified session cookies kept in memory; beyond this many the oldest goes first. */
const VERIFIED_SESSIONS = 10_000;

export function createSessions(options: SessionOptions, users: UserService) {
  // A session JWT is stateless: once its signature, issuer and audience are verified, only its expiry can change
  // the answer, so the verification (the dearest step of a session check) is done once per cookie.
  const verified = new Map<string, { subject: string | undefined; expiresAtMs: number }>();
  const verifiedSubject = async (cookie: string, secret: string): Promise<string | undefined> => {
    const known = verified.get(cookie);
    if (known && known.expiresAtMs > options.now()) return known.subject;
    if (known) verified.delete(cookie);
    const claims = await verifyHs256(cookie, secret, { issuer: SESSION_ISSUER, audience: SESSION_AUDIENCE });
    // Sessions always carry `exp`; jose has checked it against the real clock, the cache checks `now`.
    if (claims.exp !== undefined && claims.exp * 1000 > options.now()) {
      if (verified.size >= VERIFIED_SESSIONS) verified.delete(verified.keys().next().value!);
      verified.set(cookie, { subject: claims.sub, expiresAtMs: claims.exp * 1000 });
    }
    return claims.sub;
  };

  const secret = () => {
    if (!options.secret) throw new HttpError(500, 'Server configuration error: SESSION_SECRET not set');
    return options.secret;
  };

  return {
    async start(reply: FastifyReply, user: StoredUser): Promise<void> {
      const nowSeconds = Math.floor(options.now() / 1000);
      const jwt = await signHs256({ sub: user.id, email: user.email, role: user.role, provider: user.provider }, secret(), {
        expiresAt: nowSeconds + options.ttlSeconds,
        issuer: SESSION_ISSUER,
        audience: SESSION_AUDIENCE,
      });
      void reply.setCookie(SESSION_COOKIE, jwt, cookieAttributes(options, options.ttlSeconds));
    },

    end(reply: FastifyReply): void {
      void reply.clearCookie(SESSION_COOKIE, cookieAttributes(options, 0));
    },

    /** onRequest hook of session-guarded routes: a valid cookie naming an enabled user, re-read from the store. */
    async authenticate(request: FastifyRequest): Promise<void> {
      const cookie = request.cookies[SESSION_COOKIE];
      if (!cookie || !options.secret) throw new UnauthorizedError('Authentication required');
      let subject: string | undefined;
      try {
        subject = await verifiedSubject(cookie, options.secret);
      } catch {
        throw new UnauthorizedError('Session expired or invalid');
      }
      const user = subject ? await users.findById(subject) : undefined;
      if (!user || user.disabled) throw new UnauthorizedError('Session expired or invalid');
      request.sessionUser = { id: user.id, email: user.email, name: user.name, role: user.role, provider: user.provider };
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;
