// The onRequest hook of session-guarded routes, and what a request offers the session service: the only places
// the sessions meet a request.
import type { FastifyRequest } from 'fastify';
import { ForbiddenError } from '../../shared/http-errors.js';
import type { SessionCredentials } from './session-cookies.js';
import type { SessionService } from './session-service.js';

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export function sessionCredentialsOf(request: FastifyRequest): SessionCredentials {
  return { cookies: request.cookies, secFetchSite: header(request.headers['sec-fetch-site']) };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route serves a session whose user must change their password (validate, profile, password change). */
    duringPasswordChange?: boolean;
  }
}

export const PASSWORD_CHANGE_REQUIRED = 'Password change required';

/**
 * A valid session cookie naming an enabled user, or 401 before any other question is asked. A user whose password
 * an admin reset may only call the routes marked `duringPasswordChange` (validate, their profile, the password
 * change; logout is public) until they pick a new password: anything else is 403 `Password change required`.
 */
export function requireSession(sessions: SessionService) {
  return async (request: FastifyRequest): Promise<void> => {
    const user = await sessions.authenticate(sessionCredentialsOf(request));
    request.sessionUser = user;
    if (user.mustChangePassword && !request.routeOptions.config.duringPasswordChange)
      throw new ForbiddenError(PASSWORD_CHANGE_REQUIRED);
  };
}
