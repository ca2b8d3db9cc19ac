// /api/auth/login, /validate, /logout and /config.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { tooManyRequests, UnauthorizedError } from '../../http/http-errors.js';
import { jsonOncePerObject, sendJsonOf } from '../../http/prepared-json.js';
import { setCookies } from '../reply-cookies.js';
import { toUserView, type UserService } from '../users/user-service.js';
import { DURING_PASSWORD_CHANGE } from '../users/user-routes.js';
import type { LoginService } from './login-service.js';
import type { StoredUser } from '../users/user-store.js';
import type { SessionService } from './session-service.js';
import { sessionCredentialsOf } from './session-guard.js';
import {
  AuthConfigSchema,
  LoginBodySchema,
  LoginResultSchema,
  successSaying,
  ValidateResultSchema,
} from './schemas.js';

export const LOGIN_ATTEMPTS_PER_MINUTE = 10;
const tags = ['Authentication'];

/** What the routes open to anyone call: sign-in, sign-out and the sign-in methods. */
export interface PublicAuthRouteDeps {
  logins: LoginService;
  sessions: Pick<SessionService, 'signedOutCookies' | 'end'>;
}

export function publicAuthRoutes(scope: FastifyInstance, { logins, sessions }: PublicAuthRouteDeps): void {
  const routes = scope.withTypeProvider<ZodTypeProvider>();

  routes.post(
    '/api/auth/login',
    {
      config: {
        errorResponses: [401, 403, 429],
        responseHeaders: {
          200: {
            'set-cookie': 'The session cookie `token`, HttpOnly, a JWT (and the same as `__Host-token` over https)',
          },
        },
        rateLimit: {
          max: LOGIN_ATTEMPTS_PER_MINUTE,
          timeWindow: 60_000,
          hook: 'preHandler',
          // Per client address and e-mail: one noisy client cannot lock everyone out of one account.
          keyGenerator: (request: FastifyRequest) => {
            const email = (request.body as { email?: unknown } | undefined)?.email;
            return `${request.ip}|${typeof email === 'string' ? email.toLowerCase() : ''}`;
          },
          errorResponseBuilder: tooManyRequests('sign-in attempts'),
        },
      },
      schema: {
        operationId: 'login',
        tags,
        summary: 'Authenticate user with email and password',
        description:
          'Signs in with a local account: sets the HttpOnly session cookie `token` and answers the user with the same session JWT in `token` (for clients that are not browsers). 403 while local sign-in is off.',
        body: LoginBodySchema,
        response: { 200: LoginResultSchema },
      },
    },
    async (request, reply) => {
      const { user, cookies, token } = await logins.login(request.ip, request.body.email, request.body.password);
      setCookies(reply, cookies);
      void reply.header('cache-control', 'no-store');
      return { ...toUserView(user), token };
    },
  );

  routes.post(
    '/api/auth/logout',
    {
      config: { responseHeaders: { 200: { 'set-cookie': 'The session cookies, cleared' } } },
      schema: {
        operationId: 'logout',
        tags,
        summary: 'Logout current user',
        description: 'Clears the session cookie and ends every session of its user, on every replica (idempotent).',
        response: { 200: successSaying('Logged out') },
      },
    },
    async (request, reply) => {
      // Cleared first: a failure to end the sessions in the store still signs this browser out.
      setCookies(reply, sessions.signedOutCookies());
      // The audit entry names who signed out; a cookie naming no live session ended nothing and names nobody.
      request.auditActor = await sessions.end(sessionCredentialsOf(request));
      return { success: true, message: 'Logged out' };
    },
  );

  routes.get(
    '/api/auth/config',
    {
      schema: {
        operationId: 'authConfig',
        tags,
        summary: 'Get supported authentication methods and their public configuration',
        description: 'The sign-in methods the login page offers: local, and each configured OAuth provider.',
        response: { 200: AuthConfigSchema },
      },
    },
    async () => ({ methods: await logins.methods() }),
  );
}

/** The console asks on every page: each stored version of a user (a new object whenever the list is read or written) becomes JSON once. */
const validateJson = jsonOncePerObject((user: StoredUser) =>
  ValidateResultSchema.encode({ valid: true, user: toUserView(user) }),
);
const validUserJson = (user: StoredUser | undefined): string => {
  if (!user) throw new UnauthorizedError('Session expired or invalid');
  return validateJson(user);
};

/** What the routes of a signed-in session call. */
export interface SessionAuthRouteDeps {
  users: Pick<UserService, 'findByIdInForce'>;
}

export function sessionAuthRoutes(scope: FastifyInstance, { users }: SessionAuthRouteDeps): void {
  scope.withTypeProvider<ZodTypeProvider>().get(
    '/api/auth/validate',
    {
      config: DURING_PASSWORD_CHANGE,
      schema: {
        operationId: 'validateSession',
        tags,
        summary: 'Validate authentication token',
        description: 'The signed-in user, re-read from the user store; 401 without a valid session.',
        response: { 200: ValidateResultSchema },
      },
    },
    // From memory while the user list is fresh (as the session check itself read it): no promise per request.
    (request, reply) => sendJsonOf(reply, users.findByIdInForce(request.sessionUser!.id), validUserJson),
  );
}
