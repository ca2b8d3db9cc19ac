// Admin sessions: an HS256 JWT (issuer and audience pinned) in the HttpOnly cookie `token`.
import { signHs256, verifyHs256 } from '../../lib/jwt.js';
import { MisconfiguredError, UnauthorizedError } from '../../http/http-errors.js';
import type { CookieToSet } from '../cookies.js';
import type { SessionUser } from '../permissions/permissions.js';
import type { UserService } from '../users/user-service.js';
import type { StoredUser } from '../users/user-store.js';
import { clearedSessionCookies, sessionCookieOf, sessionCookies, type SessionCredentials } from './session-cookies.js';

export const SESSION_ISSUER = 'graphdb-server';
export const SESSION_AUDIENCE = 'graphdb-admin';

export interface SessionOptions {
  secret: string | undefined;
  ttlSeconds: number;
  /** `Secure` is set unless the public origin is plain http. */
  publicOrigin: string;
  now: () => number;
}

export type AuthenticatedUser = SessionUser &
  Pick<StoredUser, 'email' | 'name' | 'provider'> & { mustChangePassword: boolean };

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

  const secret = () => {
    if (!options.secret) throw new MisconfiguredError('Server configuration error: SESSION_SECRET not set');
    return options.secret;
  };

  // A cookie seen for the first time, or a user list to read again.
  async function authenticateFromStore(cookie: string, sessionSecret: string): Promise<AuthenticatedUser> {
    let session: VerifiedSession;
    try {
      session = await verifiedSession(cookie, sessionSecret);
    } catch {
      throw new UnauthorizedError('Session expired or invalid');
    }
    return sessionUserOf(await users.findById(session.subject), session);
  }

  return {
    /** Signs `user` in: the cookies carrying a new session JWT. */
    async start(user: StoredUser): Promise<CookieToSet[]> {
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
      return sessionCookies(jwt, options.publicOrigin, options.ttlSeconds);
    },

    /** The cookies that sign a browser out, set whether or not ending its sessions in the store succeeds. */
    signedOutCookies(): CookieToSet[] {
      return clearedSessionCookies(options.publicOrigin);
    },

    /**
     * Signs out: when the request's cookie names a live session, every session of its user is ended in the store,
     * so a copy of the cookie (another tab, a thief) stops working too. Idempotent. Answers the e-mail of the user
     * whose sessions ended (for the audit log), or undefined when the cookie named no live session.
     */
    async end(credentials: SessionCredentials): Promise<string | undefined> {
      const cookie = sessionCookieOf(credentials, options.publicOrigin);
      if (!cookie || !options.secret) return undefined;
      let session: VerifiedSession;
      try {
        session = await verifiedSession(cookie, options.secret);
      } catch {
        return undefined;
      }
      verified.delete(cookie);
      const user = await users.findById(session.subject);
      if (!user || (user.sessionVersion ?? 0) !== session.version) return undefined;
      await users.endSessions(user.id);
      return user.email;
    },

    /**
     * The user a session-guarded request acts as: a valid cookie naming an enabled user, re-read from the store.
     * Answered without a promise when the cookie was verified before and the user list is fresh in memory (the
     * usual case, every request of a signed-in console); throws UnauthorizedError, synchronously then.
     */
    authenticate(credentials: SessionCredentials): AuthenticatedUser | Promise<AuthenticatedUser> {
      const cookie = sessionCookieOf(credentials, options.publicOrigin);
      if (!cookie || !options.secret) throw new UnauthorizedError('Authentication required');
      const known = verified.get(cookie);
      const usersById = users.usersByIdFromMemory();
      if (known && known.expiresAtMs > options.now() && usersById)
        return sessionUserOf(usersById.get(known.subject), known);
      return authenticateFromStore(cookie, options.secret);
    },
  };
}

/**
 * What a request knows of its session's user: one frozen object per stored user, reused by its requests (a stored
 * user is never changed in place: a change replaces it, and the list with it).
 */
const sessionUsers = new WeakMap<StoredUser, AuthenticatedUser>();
function sessionUserOf(user: StoredUser | undefined, session: VerifiedSession): AuthenticatedUser {
  if (!user || user.disabled || (user.sessionVersion ?? 0) !== session.version)
    throw new UnauthorizedError('Session expired or invalid');
  let known = sessionUsers.get(user);
  if (!known) {
    known = Object.freeze({
      id: user.id,
      email: user.email,
      name: user.name,
      role: user.role,
      provider: user.provider,
      mustChangePassword: user.mustChangePassword ?? false,
    });
    sessionUsers.set(user, known);
  }
  return known;
}

export type SessionService = ReturnType<typeof createSessionService>;
