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

export function createSessions(options: SessionOptions, users: UserService) {
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
        subject = (await verifyHs256(cookie, options.secret, { issuer: SESSION_ISSUER, audience: SESSION_AUDIENCE })).sub;
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
