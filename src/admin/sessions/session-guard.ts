// The onRequest hook of session-guarded routes, and what a request offers the session service: the only places
// the sessions meet a request.
import type { FastifyRequest } from 'fastify';
import type { SessionCredentials } from './session-cookies.js';
import type { SessionService } from './session-service.js';

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export function sessionCredentialsOf(request: FastifyRequest): SessionCredentials {
  return { cookies: request.cookies, secFetchSite: header(request.headers['sec-fetch-site']) };
}

/** A valid session cookie naming an enabled user, or 401 before any other question is asked. */
export function requireSession(sessions: SessionService) {
  return async (request: FastifyRequest): Promise<void> => {
    request.sessionUser = await sessions.authenticate(sessionCredentialsOf(request));
  };
}
