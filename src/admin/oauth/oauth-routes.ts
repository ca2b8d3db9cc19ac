// GET /api/auth/oauth/{provider} and its callback. Failures answer JSON in the admin shape, or, for a browser
// (Accept: text/html), a redirect to /login?error=<code>.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { BadRequestError, HttpError } from '../../shared/http-errors.js';
import { setCookies } from '../reply-cookies.js';
import { PROVIDERS, type ProviderId } from './providers.js';
import type { OAuthService } from './oauth-service.js';
import {
  CallbackQuerySchema,
  CallbackRedirectSchema,
  ProviderParamsSchema,
  StartQuerySchema,
  StartRedirectSchema,
} from './schemas.js';
import { SignInRefused } from './sign-in-policy.js';
import { STATE_COOKIE } from './state-cookie.js';

const tags = ['auth'];

function providerOf(value: string): ProviderId {
  if (!(PROVIDERS as readonly string[]).includes(value)) throw new BadRequestError(`Unknown OAuth provider ${value}`);
  return value as ProviderId;
}

function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return typeof accept === 'string' && accept.includes('text/html');
}

export function oauthRoutes(app: FastifyInstance, oauth: OAuthService): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    '/api/auth/oauth/:provider',
    {
      config: {
        errorResponses: [404],
        responseHeaders: {
          302: {
            location: "The identity provider's authorization URL",
            'set-cookie': 'The state cookie `oauth_state` the callback needs',
          },
        },
      },
      schema: {
        operationId: 'oauthStart',
        tags,
        summary: 'Start OAuth sign-in: redirects to the provider and sets the state cookie',
        params: ProviderParamsSchema,
        querystring: StartQuerySchema,
        response: { 302: StartRedirectSchema },
      },
    },
    async (request, reply) => {
      const { cookies, location } = await oauth.start(providerOf(request.params.provider), request.query.returnTo);
      setCookies(reply, cookies);
      return reply.redirect(location, 302);
    },
  );

  routes.get(
    '/api/auth/oauth/:provider/callback',
    {
      config: {
        errorResponses: [401, 403, 404],
        responseHeaders: {
          302: {
            location: 'returnTo, or /login?error=<code>',
            'set-cookie': 'The session cookie `token` (and `__Host-token` over https); the state cookie cleared',
          },
        },
      },
      schema: {
        operationId: 'oauthCallback',
        tags,
        summary: 'Complete OAuth sign-in: sets the session cookie and redirects to returnTo',
        params: ProviderParamsSchema,
        querystring: CallbackQuerySchema,
        response: { 302: CallbackRedirectSchema },
      },
    },
    async (request, reply) => {
      const provider = providerOf(request.params.provider);
      try {
        const query = new URLSearchParams();
        for (const [key, value] of Object.entries(request.query)) if (typeof value === 'string') query.set(key, value);
        const stateCookie = request.cookies[STATE_COOKIE];
        setCookies(reply, [oauth.clearedStateCookie(provider)]);
        const { cookies, location, email } = await oauth.callback(provider, { stateCookie, query });
        request.auditActor = email;
        setCookies(reply, cookies);
        return reply.redirect(location, 302);
      } catch (error) {
        if (error instanceof SignInRefused) request.auditActor = error.email;
        if (!wantsHtml(request))
          throw error instanceof SignInRefused ? new HttpError(error.status, error.message) : error;
        const code = error instanceof SignInRefused ? error.code : 'sign_in_failed';
        if (!(error instanceof SignInRefused)) request.log.error({ err: error }, 'OAuth callback failed');
        return reply.redirect(`/login?error=${encodeURIComponent(code)}`, 302);
      }
    },
  );
}
