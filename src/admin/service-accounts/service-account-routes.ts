// /api/serviceaccounts/ and their tokens (permission resource `serviceaccounts`, server namespace). Every change
// follows the escalation rule users and roles follow (grantCheckOf in admin/permissions/permissions.ts): the caller must
// hold all of the role it gives or the account holds, unless it holds `rbac:escalate` in the server namespace.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { serverNamespaceChecks } from '../permissions/server-namespace.js';
import {
  CreatedTokenSchema,
  CreateServiceAccountSchema,
  CreateTokenSchema,
  NoContentSchema,
  ServiceAccountListSchema,
  ServiceAccountParamsSchema,
  ServiceAccountSchema,
  TokenListSchema,
  TokenParamsSchema,
  UpdateServiceAccountSchema,
} from './schemas.js';
import { toServiceAccountView, toTokenView, type ServiceAccountService } from './service-account-service.js';

const tags = ['Service Accounts'];

/** What the service account routes call: the accounts, the server's namespace (where the permission is checked), the clock. */
export interface ServiceAccountRouteDeps {
  serviceAccounts: ServiceAccountService;
  namespace: string;
  now: () => number;
}

export function serviceAccountRoutes(
  scope: FastifyInstance,
  { serviceAccounts, namespace, now }: ServiceAccountRouteDeps,
): void {
  const routes = scope.withTypeProvider<ZodTypeProvider>();
  const { allowed, grantCheck: may } = serverNamespaceChecks('serviceaccounts', namespace);
  const actor = (request: FastifyRequest) => request.sessionUser!.email;

  routes.get(
    '/api/serviceaccounts/',
    {
      preValidation: allowed('read'),
      schema: {
        operationId: 'listServiceAccounts',
        tags,
        summary: 'List service accounts',
        description: 'Every service account in creation order. Needs `serviceaccounts:read`.',
        response: { 200: ServiceAccountListSchema },
      },
    },
    async () => ({ serviceAccounts: (await serviceAccounts.list()).map(toServiceAccountView) }),
  );

  routes.post(
    '/api/serviceaccounts/',
    {
      preValidation: allowed('create'),
      config: { errorResponses: [409] },
      schema: {
        operationId: 'createServiceAccount',
        tags,
        summary: 'Create a service account',
        description:
          'An identity for automation holding one role; it signs in with tokens only (POST …/tokens). The role must exist and the caller must hold every permission it grants (403 naming the first missing). 409 when the name is taken. Needs `serviceaccounts:create`.',
        body: CreateServiceAccountSchema,
        response: { 201: ServiceAccountSchema },
      },
    },
    async (request, reply) => {
      const account = await serviceAccounts.create(request.body, actor(request), await may(request));
      request.auditResourceName = account.name;
      return reply.code(201).send(toServiceAccountView(account));
    },
  );

  routes.get(
    '/api/serviceaccounts/:id',
    {
      preValidation: allowed('read'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'getServiceAccount',
        tags,
        summary: 'Get a service account',
        description: 'By id or name. Needs `serviceaccounts:read`.',
        params: ServiceAccountParamsSchema,
        response: { 200: ServiceAccountSchema },
      },
    },
    async (request) => toServiceAccountView(await serviceAccounts.get(request.params.id)),
  );

  routes.patch(
    '/api/serviceaccounts/:id',
    {
      preValidation: allowed('update'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'updateServiceAccount',
        tags,
        summary: 'Update a service account',
        description:
          "Description, role, disabled flag. Disabling stops every token of the account at once, on every replica. The caller must hold all of the account's role and of the new one; a token never changes its own account's role. Needs `serviceaccounts:update`.",
        params: ServiceAccountParamsSchema,
        body: UpdateServiceAccountSchema,
        response: { 200: ServiceAccountSchema },
      },
    },
    async (request) => {
      const account = await serviceAccounts.update(
        request.params.id,
        request.body,
        await may(request),
        request.sessionUser?.serviceAccount?.id,
      );
      request.auditResourceName = account.name;
      return toServiceAccountView(account);
    },
  );

  routes.delete(
    '/api/serviceaccounts/:id',
    {
      preValidation: allowed('delete'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'deleteServiceAccount',
        tags,
        summary: 'Delete a service account',
        description:
          "Deletes the account and its tokens, which stop at once on every replica. The caller must hold all of the account's role. Needs `serviceaccounts:delete`.",
        params: ServiceAccountParamsSchema,
        response: { 204: NoContentSchema },
      },
    },
    async (request, reply) => {
      const account = await serviceAccounts.remove(request.params.id, await may(request));
      request.auditResourceName = account.name;
      return reply.code(204).send(null);
    },
  );

  routes.get(
    '/api/serviceaccounts/:id/tokens',
    {
      preValidation: allowed('read'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'listServiceAccountTokens',
        tags,
        summary: "List a service account's tokens",
        description:
          'Their names, expiry, allowed addresses and last use; never their values. Needs `serviceaccounts:read`.',
        params: ServiceAccountParamsSchema,
        response: { 200: TokenListSchema },
      },
    },
    async (request) => {
      const account = await serviceAccounts.get(request.params.id);
      const at = now();
      return { tokens: account.tokens.map((token) => toTokenView(token, at)) };
    },
  );

  routes.post(
    '/api/serviceaccounts/:id/tokens',
    {
      preValidation: allowed('update'),
      config: { errorResponses: [404, 409] },
      schema: {
        operationId: 'createServiceAccountToken',
        tags,
        summary: 'Create a token for a service account',
        description:
          "A new token (`gdbsa_…`), answered this once in `key` and stored only as its SHA-256. Expiry is required, at most service_accounts.max_token_lifetime_days; allowedCidrs limits where it may be used from. An account may hold several tokens (rotation without downtime). The caller must hold all of the account's role. Needs `serviceaccounts:update`.",
        params: ServiceAccountParamsSchema,
        body: CreateTokenSchema,
        response: { 201: CreatedTokenSchema },
      },
    },
    async (request, reply) => {
      const { account, token, key } = await serviceAccounts.createToken(
        request.params.id,
        request.body,
        actor(request),
        await may(request),
      );
      request.auditResourceName = `${account.name}/${token.id}`;
      void reply.header('cache-control', 'no-store');
      return reply.code(201).send({ token: toTokenView(token, now()), key });
    },
  );

  routes.delete(
    '/api/serviceaccounts/:id/tokens/:tokenId',
    {
      preValidation: allowed('update'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'revokeServiceAccountToken',
        tags,
        summary: 'Revoke a service account token',
        description:
          "The token stops at once, on every replica. The caller must hold all of the account's role. Needs `serviceaccounts:update`.",
        params: TokenParamsSchema,
        response: { 204: NoContentSchema },
      },
    },
    async (request, reply) => {
      const account = await serviceAccounts.revokeToken(request.params.id, request.params.tokenId, await may(request));
      request.auditResourceName = `${account.name}/${request.params.tokenId}`;
      return reply.code(204).send(null);
    },
  );
}
