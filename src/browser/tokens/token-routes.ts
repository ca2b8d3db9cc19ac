// POST /api/auth/tokens/credentials (public) and the token listing, reading and revocation (Bearer).
import type { FastifyInstance } from 'fastify';
import { tooManyRequests } from '../../http/http-errors.js';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { principalOf } from '../context.js';
import {
  CreateTokenBodySchema,
  CreateTokenResponseSchema,
  TokenIdParamsSchema,
  TokenListSchema,
  TokenReadSchema,
  TokenRevokedSchema,
} from './schemas.js';
import type { TokenService } from './token-service.js';

/** Each token request tries database credentials: a per-address limit keeps it from being a password oracle. */
function creationRateLimit(perMinute: number) {
  if (perMinute === 0) return {};
  return {
    rateLimit: {
      max: perMinute,
      timeWindow: 60_000,
      errorResponseBuilder: tooManyRequests('token requests'),
    },
  };
}

/** What the token routes call: the token service, and the creation limit (TOKEN_CREATION_PER_MINUTE, 0: none). */
export interface TokenRouteDeps {
  tokens: TokenService;
  creationsPerMinute: number;
}

export function publicTokenRoutes(scope: FastifyInstance, { tokens, creationsPerMinute }: TokenRouteDeps): void {
  scope.withTypeProvider<ZodTypeProvider>().post(
    '/api/auth/tokens/credentials',
    {
      // The browser API specification answers a server without secrets with 500 before it looks at the body.
      onRequest: (_request, _reply, done) => {
        tokens.assertConfigured();
        done();
      },
      config: { errorResponses: [401, 429], ...creationRateLimit(creationsPerMinute) },
      schema: {
        operationId: 'createToken',
        tags: ['tokens'],
        summary: 'Create a personal access token from database credentials',
        description:
          "Public: the database credentials in the body are the proof. The server signs in to the database with them (within CREDENTIAL_CHECK_TIMEOUT_MS), reads the user's role and answers a signed personal access token to send as `Authorization: Bearer` on every other browser API call. 401 when the database refuses the credentials; 429 past TOKEN_CREATION_PER_MINUTE.",
        body: CreateTokenBodySchema,
        response: { 200: CreateTokenResponseSchema },
      },
    },
    async (request) => ({ message: 'Token created successfully', token: await tokens.create(request.body) }),
  );
}

export function tokenRoutes(scope: FastifyInstance, { tokens }: TokenRouteDeps): void {
  const routes = scope.withTypeProvider<ZodTypeProvider>();
  routes.get(
    '/api/auth/tokens',
    {
      schema: {
        operationId: 'listTokens',
        tags: ['tokens'],
        summary: 'List tokens (an Admin sees every token of its database)',
        description:
          "The tokens of the calling database user; an Admin sees the tokens of every user of its database. Never answers a token's secret, only its metadata.",
        response: { 200: TokenListSchema },
      },
    },
    async (request) => {
      const list = await tokens.list(principalOf(request));
      return { tokens: list, count: list.length };
    },
  );
  routes.get(
    '/api/auth/tokens/:tokenId',
    {
      config: { errorResponses: [404] },
      schema: {
        operationId: 'getToken',
        tags: ['tokens'],
        summary: 'Read one token',
        description:
          "The metadata of one token (never its secret). 404 when it does not exist or is not visible to the caller (another user's token, unless the caller is an Admin).",
        params: TokenIdParamsSchema,
        response: { 200: TokenReadSchema },
      },
    },
    async (request) => ({ token: await tokens.read(principalOf(request), request.params.tokenId) }),
  );
  routes.delete(
    '/api/auth/tokens/:tokenId',
    {
      config: { errorResponses: [404] },
      schema: {
        operationId: 'revokeToken',
        tags: ['tokens'],
        summary: 'Revoke a token',
        description:
          'Revokes a token at once on every replica: it is refused from the next request on. A caller revokes its own tokens; an Admin any token of its database. 404 when it does not exist or is not visible to the caller.',
        params: TokenIdParamsSchema,
        response: { 200: TokenRevokedSchema },
      },
    },
    async (request) => {
      await tokens.revoke(principalOf(request), request.params.tokenId);
      return { message: 'Token revoked successfully', tokenId: request.params.tokenId };
    },
  );
}
