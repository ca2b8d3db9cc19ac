// GET /api/auth/oauth/{provider} and its callback. Failures answer JSON in the admin shape, or, for a browser
// (Accept: text/html), a redirect to /login?error=<code>.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { BadRequestError, HttpError } from '../../http/http-errors.js';
import { setCookies } from '../reply-cookies.js';
import { PROVIDERS, type ProviderId } from './providers.js';
import type { OAuthService } from './oauth-service.js';
import { cliSignInOf } from './loopback.js';
import {
  CliTokenBodySchema,
  CliTokenResponseSchema,
  CallbackQuerySchema,
  CallbackRedirectSchema,
  ProviderParamsSchema,
  StartQuerySchema,
  StartRedirectSchema,
} from './schemas.js';
import { SignInRefused } from './sign-in-policy.js';
import { STATE_COOKIE } from './state-cookie.js';

const tags = ['OAuth'];

function providerOf(value: string): ProviderId {
  if (!(PROVIDERS as readonly string[]).includes(value)) throw new BadRequestError(`Unknown OAuth provider ${value}`);
  return value as ProviderId;
}

function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return typeof accept === 'string' && accept.includes('text/html');
}

/** What the OAuth sign-in routes call. */
export interface OAuthRouteDeps {
  oauth: OAuthService;
}

export function oauthRoutes(scope: FastifyInstance, { oauth }: OAuthRouteDeps): void {
  const routes = scope.withTypeProvider<ZodTypeProvider>();

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
        summary: 'Initiate OAuth flow for a configured provider',
        description:
          "Redirects to the provider's authorization page (state, nonce and PKCE) and sets the state cookie its callback needs; `returnTo` is where the callback sends the browser (same-origin paths only). A native client (graphdb-admin login --provider) adds `cliRedirect` (a loopback URL, RFC 8252), `codeChallenge` (S256) and `cliState`: the callback then sends the browser to that loopback address with a one-time code instead of signing the browser in.",
        params: ProviderParamsSchema,
        querystring: StartQuerySchema,
        response: { 302: StartRedirectSchema },
      },
    },
    async (request, reply) => {
      const { cookies, location } = await oauth.start(
        providerOf(request.params.provider),
        request.query.returnTo,
        cliSignInOf(request.query),
      );
      setCookies(reply, cookies);
      return reply.redirect(location, 302);
    },
  );

  routes.post(
    '/api/auth/oauth/cli/token',
    {
      config: { errorResponses: [400] },
      schema: {
        operationId: 'oauthCliToken',
        tags,
        summary: "Exchange a native client's one-time sign-in code for a session",
        description:
          'The last step of `graphdb-admin login --provider` (RFC 8252 loopback redirect with PKCE): the code the callback sent to the loopback address, and the verifier whose S256 challenge the sign-in began with. A code works once, for 60 seconds; every refusal is the same 400. Answers the session cookie, as a local login does.',
        body: CliTokenBodySchema,
        response: { 200: CliTokenResponseSchema },
      },
    },
    async (request, reply) => {
      const { cookies, user } = await oauth.exchangeCliCode(request.body.code, request.body.codeVerifier);
      request.auditActor = user.email;
      setCookies(reply, cookies);
      void reply.header('cache-control', 'no-store');
      return { message: 'Signed in', user: { email: user.email, role: user.role } };
    },
  );

  const finishSignIn = async (provider: ProviderId, request: FastifyRequest, reply: FastifyReply, generic = false) => {
    try {
      const query = new URLSearchParams();
      for (const [key, value] of Object.entries(request.query as Record<string, unknown>))
        if (typeof value === 'string') query.set(key, value);
      const stateCookie = request.cookies[STATE_COOKIE];
      setCookies(reply, [oauth.clearedStateCookie(provider, generic)]);
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
  };
  const callbackConfig = {
    errorResponses: [401, 403, 404],
    responseHeaders: {
      302: {
        location: 'returnTo, or /login?error=<code>',
        'set-cookie': 'The session cookie `token` (and `__Host-token` over https); the state cookie cleared',
      },
    },
  };

  routes.get(
    '/api/auth/oauth/:provider/callback',
    {
      config: callbackConfig,
      schema: {
        operationId: 'oauthCallback',
        tags,
        summary: 'Handle OAuth callback for a configured provider',
        description:
          "Completes the sign-in the start route began (its state cookie is required): sets the session cookie and redirects to returnTo. Failures answer JSON, or a browser's redirect to /login?error=<code>.",
        params: ProviderParamsSchema,
        querystring: CallbackQuerySchema,
        response: { 302: CallbackRedirectSchema },
      },
    },
    async (request, reply) => finishSignIn(providerOf(request.params.provider), request, reply),
  );

  routes.get(
    '/api/auth/oauth/callback',
    {
      config: callbackConfig,
      schema: {
        operationId: 'oauthCallbackConfiguredProvider',
        tags,
        summary: 'Handle OAuth callback for the configured provider',
        description:
          'The same as /api/auth/oauth/{provider}/callback for the provider OAUTH_PROVIDER names (alpha when unset), for redirect URIs registered without a provider segment.',
        querystring: CallbackQuerySchema,
        response: { 302: CallbackRedirectSchema },
      },
    },
    async (request, reply) => finishSignIn(oauth.environmentProvider, request, reply, true),
  );
}
