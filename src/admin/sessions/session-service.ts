// Admin sessions: an HS256 JWT (issuer and audience pinned) in the HttpOnly cookie `token`.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { signHs256, verifyHs256 } from '../../shared/jwt.js';
import { HttpError, UnauthorizedError } from '../../shared/http-errors.js';
import type { UserService } from '../users/user-service.js';
import type { StoredUser } from '../users/user-store.js';

export const SESSION_COOKIE = 'token';
/**
 * With `Secure`, the session is also set under this name. Browsers accept a `__Host-` cookie only from this exact
 * origin, over HTTPS, for path `/`, so a sibling subdomain cannot plant one (cookie tossing, session fixation).
 * Browsers' requests (they send `Sec-Fetch-Site`) are authenticated by it alone; other clients keep the seed's
 * `token`.
 */
export const HOST_ONLY_SESSION_COOKIE = '__Host-token';
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
  return {
    httpOnly: true,
    sameSite: 'lax' as const,
    path: '/',
    secure: !options.publicOrigin.startsWith('http://'),
    maxAge,
  };
}

interface VerifiedSession {
  subject: string;
  /** The user's session version when it was issued (`sv`); sessions from before versions existed carry none: 0. */
  version: number;
  expiresAtMs: number;
}

/** Verified session cookies kept in memory; beyond this many the oldest goes first. */
const VERIFIED_SESSIONS = 10_000;

export function createSessionService(options: SessionOptions, users: UserService) {
  // A session JWT is stateless: once its signature, issuer and audience are verified, only its expiry can change
  // the answer, so the verification (the dearest step of a session check) is done once per cookie.
  const verified = new Map<string, VerifiedSession>();
  const verifiedSession = async (cookie: string, secret: string): Promise<VerifiedSession> => {
    const known = verified.get(cookie);
    if (known && known.expiresAtMs > options.now()) return known;
    if (known) verified.delete(cookie);
    const claims = await verifyHs256(cookie, secret, { issuer: SESSION_ISSUER, audience: SESSION_AUDIENCE });
    // A session without an expiry would be valid forever: refused, whoever signed it.
    if (typeof claims.exp !== 'number' || typeof claims.sub !== 'string')
      throw new Error('a session needs exp and sub');
    const session = {
      subject: claims.sub,
      version: typeof claims.sv === 'number' ? claims.sv : 0,
      expiresAtMs: claims.exp * 1000,
    };
    // jose has checked `exp` against the real clock, the cache checks `now`.
    if (session.expiresAtMs > options.now()) {
      if (verified.size >= VERIFIED_SESSIONS) verified.delete(verified.keys().next().value!);
      verified.set(cookie, session);
    }
    return session;
  };

  /** Over HTTPS, a browser's session is the `__Host-` cookie only: a planted `token` from a sibling site is ignored. */
  const sessionCookieOf = (request: FastifyRequest): string | undefined => {
    const hostOnly = request.cookies[HOST_ONLY_SESSION_COOKIE];
    if (!cookieAttributes(options, 0).secure) return request.cookies[SESSION_COOKIE];
    if (request.headers['sec-fetch-site'] !== undefined) return hostOnly;
    return hostOnly ?? request.cookies[SESSION_COOKIE];
  };

  const secret = () => {
    if (!options.secret) throw new HttpError(500, 'Server configuration error: SESSION_SECRET not set');
    return options.secret;
  };

  return {
    async start(reply: FastifyReply, user: StoredUser): Promise<void> {
      const nowSeconds = Math.floor(options.now() / 1000);
      const jwt = await signHs256(
        { sub: user.id, email: user.email, role: user.role, provider: user.provider, sv: user.sessionVersion ?? 0 },
        secret(),
        {
          expiresAt: nowSeconds + options.ttlSeconds,
          issuer: SESSION_ISSUER,
          audience: SESSION_AUDIENCE,
        },
      );
      const attributes = cookieAttributes(options, options.ttlSeconds);
      void reply.setCookie(SESSION_COOKIE, jwt, attributes);
      if (attributes.secure) void reply.setCookie(HOST_ONLY_SESSION_COOKIE, jwt, attributes);
    },

    /**
     * Signs out: the cookie is cleared, and when it named a live session, every session of its user is ended in the
     * store, so a copy of the cookie (another tab, a thief) stops working too. Idempotent.
     */
    async end(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      const attributes = cookieAttributes(options, 0);
      void reply.clearCookie(SESSION_COOKIE, attributes);
      if (attributes.secure) void reply.clearCookie(HOST_ONLY_SESSION_COOKIE, attributes);
      const cookie = sessionCookieOf(request);
      if (!cookie || !options.secret) return;
      let session: VerifiedSession;
      try {
        session = await verifiedSession(cookie, options.secret);
      } catch {
        return;
      }
      verified.delete(cookie);
      const user = await users.findById(session.subject);
      if (user && (user.sessionVersion ?? 0) === session.version) await users.endSessions(user.id);
    },

    /** onRequest hook of session-guarded routes: a valid cookie naming an enabled user, re-read from the store. */
    async authenticate(request: FastifyRequest): Promise<void> {
      const cookie = sessionCookieOf(request);
      if (!cookie || !options.secret) throw new UnauthorizedError('Authentication required');
      let session: VerifiedSession;
      try {
        session = await verifiedSession(cookie, options.secret);
      } catch {
        throw new UnauthorizedError('Session expired or invalid');
      }
      const user = await users.findById(session.subject);
      if (!user || user.disabled || (user.sessionVersion ?? 0) !== session.version)
        throw new UnauthorizedError('Session expired or invalid');
      request.sessionUser = {
        id: user.id,
        email: user.email,
        name: user.name,
        role: user.role,
        provider: user.provider,
      };
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
