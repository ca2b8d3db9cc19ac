// /api/users/ keyed by e-mail (permission resource `users`, server namespace) and the profile routes of the
// signed-in user, /api/users/me/ and /api/users/me/password (any session). The static `me` segment wins over
// `:email` in the router, and `:email` must be an e-mail, which `me` never is.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ForbiddenError, NotFoundError } from '../../http/http-errors.js';
import { serverNamespaceChecks } from '../permissions/server-namespace.js';
import type { RbacService } from '../rbac/rbac-service.js';
import { setCookies } from '../reply-cookies.js';
import type { LoginService } from '../sessions/login-service.js';
import type { SessionService } from '../sessions/session-service.js';
import {
  ChangePasswordBodySchema,
  CreateUserSchema,
  ListUsersQuerySchema,
  MessageSchema,
  NoContentSchema,
  ResetPasswordBodySchema,
  ResetPasswordResultSchema,
  UpdateUserSchema,
  UserEmailParamsSchema,
  UserListSchema,
  UserAnswerSchema,
} from './schemas.js';
import { PASSWORD_RESET, toUserView, type UserService } from './user-service.js';

const tags = ['Users'];
const profileTags = ['User Profile'];

/** Route config of the few routes a session that must change its password may call (session-guard.ts). */
export const DURING_PASSWORD_CHANGE = { duringPasswordChange: true } as const;

/**
 * What the user routes call: the users, the roles' rules (for the escalation rule), the sessions a change renews,
 * the throttled password change, and the server's namespace, where the permission is checked.
 */
export interface UserRouteDeps {
  users: UserService;
  rbac: Pick<RbacService, 'rulesOf'>;
  sessions: Pick<SessionService, 'start'>;
  logins: Pick<LoginService, 'changeOwnPassword'>;
  namespace: string;
}

export function userRoutes(scope: FastifyInstance, { users, rbac, sessions, logins, namespace }: UserRouteDeps): void {
  const routes = scope.withTypeProvider<ZodTypeProvider>();
  const { allowed, grantCheck } = serverNamespaceChecks('users', namespace);

  /**
   * The escalation rule for users (docs/admin-roles.md, "Escalation rules"): the caller acts on a user (changes,
   * password reset, deletion) only when it holds all the user's role grants, gives only a role it holds all of,
   * and never changes its own role. 403 naming the first permission missing.
   */
  async function mayManage(request: FastifyRequest, email: string | undefined, role: string | undefined) {
    const may = await grantCheck(request);
    if (email !== undefined) {
      const target = await users.get(email);
      if (role !== undefined && role !== target.role && target.id === request.sessionUser?.id)
        throw new ForbiddenError('Users cannot change their own role: another user with the right must do it');
      may(await rbac.rulesOf(target.role), `user ${target.email}'s role ${target.role}`);
    }
    if (role !== undefined) may(await rbac.rulesOf(role), `role ${role}`);
  }

  routes.get(
    '/api/users/',
    {
      preValidation: allowed('list'),
      schema: {
        operationId: 'listAdminUsers',
        tags,
        summary: 'List all users with optional filtering',
        description:
          'Admin users in creation order, filtered by `role` and `status`, one page at a time (`page` from 1, `limit` 1-100, default 50). Needs `users:list` in the server namespace.',
        querystring: ListUsersQuerySchema,
        response: { 200: UserListSchema },
      },
    },
    async (request) => {
      const page = await users.page(request.query);
      return { users: page.users.map(toUserView), pagination: page.pagination };
    },
  );

  routes.post(
    '/api/users/',
    {
      preValidation: allowed('create'),
      config: { errorResponses: [409] },
      schema: {
        operationId: 'createAdminUser',
        tags,
        summary: 'Create a new user',
        description:
          'A local user with a password, a local user without one (an invitation that the first OAuth sign-in with a verified e-mail claims), or a user of provider alpha or beta. 409 when the e-mail is taken (any case). Needs `users:create`.',
        body: CreateUserSchema,
        response: { 201: UserAnswerSchema },
      },
    },
    async (request, reply) => {
      const { source, ...body } = request.body;
      await mayManage(request, undefined, body.role);
      const user = await users.create({ ...body, provider: source });
      // The path of a create names no user: the audit entry takes the new user's e-mail from here.
      request.auditResourceName = user.email;
      return reply.code(201).send(toUserView(user));
    },
  );

  routes.get(
    '/api/users/me/',
    {
      config: DURING_PASSWORD_CHANGE,
      schema: {
        operationId: 'getOwnProfile',
        tags: profileTags,
        summary: 'Get current user profile',
        description: 'The signed-in user, re-read from the user store. Any session may call it.',
        response: { 200: UserAnswerSchema },
      },
    },
    async (request) => {
      const user = await users.findById(request.sessionUser!.id);
      if (!user) throw new NotFoundError('User not found');
      return toUserView(user);
    },
  );

  routes.patch(
    '/api/users/me/password',
    {
      config: { ...DURING_PASSWORD_CHANGE, errorResponses: [401, 404, 409, 429] },
      schema: {
        operationId: 'changeOwnPassword',
        tags: profileTags,
        summary: 'Change current user password',
        description:
          "The signed-in local user's new password (at least 8 characters), given the current one (401 when wrong; wrong guesses are throttled like sign-ins). Clears mustChangePassword, ends every other session of the user and renews the caller's session cookie.",
        body: ChangePasswordBodySchema,
        response: { 200: MessageSchema },
      },
    },
    async (request, reply) => {
      const { currentPassword, newPassword } = request.body;
      setCookies(reply, await logins.changeOwnPassword(request.ip, request.sessionUser!, currentPassword, newPassword));
      return { message: 'Password changed successfully' };
    },
  );

  routes.get(
    '/api/users/:email',
    {
      preValidation: allowed('get'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'getAdminUser',
        tags,
        summary: 'Get a specific user by email',
        description: 'The user with this e-mail (any case). Needs `users:get`.',
        params: UserEmailParamsSchema,
        response: { 200: UserAnswerSchema },
      },
    },
    async (request) => toUserView(await users.get(request.params.email)),
  );

  routes.patch(
    '/api/users/:email',
    {
      preValidation: allowed('update'),
      config: { errorResponses: [404, 409] },
      schema: {
        operationId: 'updateAdminUser',
        tags,
        summary: 'Update an existing user',
        description:
          "Name, role or status. A new role or status ends the user's sessions on every replica (the caller's own is renewed when it stays valid). 409 when it would leave no enabled admin. Needs `users:update`.",
        params: UserEmailParamsSchema,
        body: UpdateUserSchema,
        response: { 200: UserAnswerSchema },
      },
    },
    async (request, reply) => {
      await mayManage(request, request.params.email, request.body.role);
      const updated = await users.update(request.params.email, request.body);
      // A change to one's own role ends one's sessions too; the session making it goes on, renewed.
      if (updated.id === request.sessionUser?.id && !updated.disabled) setCookies(reply, await sessions.start(updated));
      return toUserView(updated);
    },
  );

  routes.delete(
    '/api/users/:email',
    {
      preValidation: allowed('delete'),
      config: { errorResponses: [404, 409] },
      schema: {
        operationId: 'deleteAdminUser',
        tags,
        summary: 'Delete a user',
        description:
          'Deletes the user; their sessions stop at once on every replica. 409 for the last enabled admin. Needs `users:delete`.',
        params: UserEmailParamsSchema,
        response: { 204: NoContentSchema },
      },
    },
    async (request, reply) => {
      await mayManage(request, request.params.email, undefined);
      await users.remove(request.params.email);
      return reply.code(204).send(null);
    },
  );

  routes.post(
    '/api/users/:email/reset-password',
    {
      preValidation: allowed('update'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'resetAdminUserPassword',
        tags,
        summary: 'Reset user password',
        description:
          "Gives a local user a random temporary password, answered this once and stored only as its scrypt hash; sets mustChangePassword and ends the user's sessions on every replica. 400 for a user of an OAuth provider. Needs `users:update`.",
        params: UserEmailParamsSchema,
        body: ResetPasswordBodySchema,
        response: { 200: ResetPasswordResultSchema },
      },
    },
    async (request, reply) => {
      await mayManage(request, request.params.email, undefined);
      const { tempPassword } = await users.resetPassword(request.params.email);
      void reply.header('cache-control', 'no-store');
      return { message: PASSWORD_RESET, tempPassword };
    },
  );
}
