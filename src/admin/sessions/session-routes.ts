// /api/auth/login, /validate, /logout and /config.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { tooManyRequests, UnauthorizedError } from '../../shared/http-errors.js';
import { jsonOncePerObject, sendJsonText } from '../../shared/prepared-json.js';
import type { AdminContext } from '../context.js';
import { setCookies } from '../reply-cookies.js';
import { configuredProviders } from '../oauth/providers.js';
import { userViewWith } from '../users/user-service.js';
import type { LoginService } from './login-service.js';
import type { StoredUser } from '../users/user-store.js';
import type { RbacSnapshot } from '../rbac/rbac-service.js';
import { sessionCredentialsOf } from './session-guard.js';
import { AuthConfigSchema, LoginBodySchema, MessageSchema, UserEnvelopeSchema } from './schemas.js';

export const LOGIN_ATTEMPTS_PER_MINUTE = 10;
const tags = ['auth'];

export function publicAuthRoutes(app: FastifyInstance, context: AdminContext, logins: LoginService): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

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
        summary: 'Sign in with a local account; sets the session cookie `token`',
        body: LoginBodySchema,
        response: { 200: UserEnvelopeSchema },
      },
    },
    async (request, reply) => {
      const { user, cookies } = await logins.login(request.ip, request.body.email, request.body.password);
      setCookies(reply, cookies);
      const { rules } = await context.rbac.current();
      return { user: userViewWith((role) => rules.get(role) ?? [])(user) };
    },
  );

  routes.post(
    '/api/auth/logout',
    {
      config: { responseHeaders: { 200: { 'set-cookie': 'The session cookies, cleared' } } },
      schema: {
        operationId: 'logout',
        tags,
        summary: 'Sign out: clears the session cookie and ends every session of its user (idempotent)',
        response: { 200: MessageSchema },
      },
    },
    async (request, reply) => {
      // Cleared first: a failure to end the sessions in the store still signs this browser out.
      setCookies(reply, context.sessions.signedOutCookies());
      await context.sessions.end(sessionCredentialsOf(request));
      return { message: 'Logged out' };
    },
  );

  routes.get(
    '/api/auth/config',
    {
      schema: {
        operationId: 'authConfig',
        tags,
        summary: 'Sign-in methods offered on the login page',
        response: { 200: AuthConfigSchema },
      },
    },
    async () => {
      const settings = await context.settings.current();
      return {
        methods: [
          { type: 'local', enabled: settings.features.local_users_enabled },
          ...configuredProviders(settings, context.oauthEnv).map((provider) => ({
            type: provider.type,
            enabled: settings.features.oauth2_enabled,
            clientId: provider.clientId,
          })),
        ],
      };
    },
  );
}

/**
 * The console asks on every page: each stored version of a user (a new object whenever the list is read or written)
 * becomes JSON once per RBAC configuration (a new snapshot whenever the roles change), since its permissions
 * come from there.
 */
function userEnvelopeJson() {
  let encoder: { snapshot: RbacSnapshot; json: (user: StoredUser) => string } | undefined;
  return (user: StoredUser, snapshot: RbacSnapshot): string => {
    if (encoder?.snapshot !== snapshot) {
      const view = userViewWith((role) => snapshot.rules.get(role) ?? []);
      encoder = {
        snapshot,
        json: jsonOncePerObject((stored: StoredUser) => UserEnvelopeSchema.encode({ user: view(stored) })),
      };
    }
    return encoder.json(user);
  };
}

export function sessionAuthRoutes(app: FastifyInstance, context: AdminContext): void {
  const envelopeJson = userEnvelopeJson();
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/auth/validate',
    {
      schema: {
        operationId: 'validateSession',
        tags,
        summary: 'The signed-in user, re-read from the user store',
        response: { 200: UserEnvelopeSchema },
      },
    },
    async (request, reply) => {
      const user = await context.users.findById(request.sessionUser!.id);
      if (!user) throw new UnauthorizedError('Session expired or invalid');
      return sendJsonText(reply, envelopeJson(user, await context.rbac.current()));
    },
  );
}
