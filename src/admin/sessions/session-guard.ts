// The onRequest hook of session-guarded routes, and what a request offers the session service: the only places
// the sessions meet a request.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError } from '../../http/http-errors.js';
import type { SessionCredentials } from './session-cookies.js';
import type { RbacService } from '../rbac/rbac-service.js';
import type { AuthenticatedUser, SessionService } from './session-service.js';
import { serviceAccountBearerOf, type ServiceAccountAuthentication } from '../service-accounts/bearer.js';
import type { ServiceAccountCaller } from '../service-accounts/service-account-service.js';

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export function sessionCredentialsOf(request: FastifyRequest): SessionCredentials {
  return {
    cookies: request.cookies,
    secFetchSite: header(request.headers['sec-fetch-site']),
    authorization: request.headers.authorization,
  };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route serves a session whose user must change their password (validate, profile, password change). */
    duringPasswordChange?: boolean;
  }
}

export const PASSWORD_CHANGE_REQUIRED = 'Password change required';

/**
 * A valid session cookie naming an enabled user (or a service account's bearer token, service-accounts/bearer.ts),
 * or 401 before any other question is asked. A user whose password
 * an admin reset may only call the routes marked `duringPasswordChange` (validate, their profile, the password
 * change; logout is public) until they pick a new password: anything else is 403 `Password change required`.
 * Callback style: a session known in memory (the usual case) settles without a promise.
 */
function requireSession(sessions: SessionService, serviceAccounts: ServiceAccountAuthentication | undefined) {
  const admit = (
    request: FastifyRequest,
    user: AuthenticatedUser | ServiceAccountCaller,
  ): ForbiddenError | undefined => {
    request.sessionUser = user;
    return user.mustChangePassword && !request.routeOptions.config.duringPasswordChange
      ? new ForbiddenError(PASSWORD_CHANGE_REQUIRED)
      : undefined;
  };
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    let user: AuthenticatedUser | ServiceAccountCaller | Promise<AuthenticatedUser | ServiceAccountCaller>;
    // A service account's token (`Bearer gdbsa_…`) is told apart by its prefix; anything else is a session's.
    const serviceAccountToken = serviceAccounts && serviceAccountBearerOf(request.headers.authorization);
    try {
      user =
        serviceAccountToken !== undefined
          ? serviceAccounts!.authenticate(serviceAccountToken, request.ip)
          : sessions.authenticate(sessionCredentialsOf(request));
    } catch (error) {
      done(error as Error);
      return;
    }
    if (user instanceof Promise) user.then((known) => done(admit(request, known)), done);
    else done(admit(request, user));
  };
}

/**
 * The session scope's one request hook: the session check, and what requirePermission checks against: the roles'
 * rules, read (when their copy is stale) while the session is checked rather than after it, so a slow store costs
 * one round trip, not two.
 */
export function requireSessionWithRules(
  sessions: SessionService,
  rbac: Pick<RbacService, 'freshRules' | 'current'>,
  serviceAccounts?: ServiceAccountAuthentication,
) {
  const authenticate = requireSession(sessions, serviceAccounts);
  return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void => {
    request.roleRules = rbac.freshRules() ?? rbac.current().then((snapshot) => snapshot.rules);
    authenticate(request, reply, done);
  };
}
