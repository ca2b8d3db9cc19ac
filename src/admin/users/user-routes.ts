// /api/users: local and OAuth admin users (permission resource `users`).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AdminContext } from '../context.js';
import { requirePermission } from '../permissions/permissions.js';
import { setCookies } from '../reply-cookies.js';
import {
  CreateUserSchema,
  ManagedUserEnvelopeSchema,
  ManagedUserListSchema,
  UpdateUserSchema,
  UserDeletedSchema,
  UserIdParamsSchema,
} from './schemas.js';
import { toManagedView } from './user-service.js';

const tags = ['auth'];

export function userRoutes(app: FastifyInstance, context: AdminContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const inServerNamespace = () => context.namespace;

  routes.get(
    '/api/users',
    {
      preValidation: requirePermission('users', 'list', inServerNamespace),
      schema: {
        operationId: 'listAdminUsers',
        tags,
        summary: 'Admin users',
        response: { 200: ManagedUserListSchema },
      },
    },
    async () => ({ users: (await context.users.list()).map(toManagedView) }),
  );

  routes.post(
    '/api/users',
    {
      preValidation: requirePermission('users', 'create', inServerNamespace),
      config: { errorResponses: [409] },
      schema: {
        operationId: 'createAdminUser',
        tags,
        summary: 'Create an admin user (without a password: OAuth sign-in only)',
        body: CreateUserSchema,
        response: { 201: ManagedUserEnvelopeSchema },
      },
    },
    async (request, reply) => {
      const user = await context.users.create(request.body);
      // The path of a create names no user: the audit entry takes the new user's e-mail from here.
      request.auditResourceName = user.email;
      return reply.code(201).send({ user: toManagedView(user) });
    },
  );

  routes.patch(
    '/api/users/:id',
    {
      preValidation: requirePermission('users', 'update', inServerNamespace),
      config: { errorResponses: [404, 409] },
      schema: {
        operationId: 'updateAdminUser',
        tags,
        summary: 'Change name, role, disabled flag or password',
        params: UserIdParamsSchema,
        body: UpdateUserSchema,
        response: { 200: ManagedUserEnvelopeSchema },
      },
    },
    async (request, reply) => {
      const updated = await context.users.update(request.params.id, request.body);
      // A change to one's own password or role ends one's sessions too; the session making it goes on, renewed.
      if (updated.id === request.sessionUser?.id && !updated.disabled)
        setCookies(reply, await context.sessions.start(updated));
      return { user: toManagedView(updated) };
    },
  );

  routes.delete(
    '/api/users/:id',
    {
      preValidation: requirePermission('users', 'delete', inServerNamespace),
      config: { errorResponses: [404, 409] },
      schema: {
        operationId: 'deleteAdminUser',
        tags,
        summary: 'Delete an admin user',
        params: UserIdParamsSchema,
        response: { 200: UserDeletedSchema },
      },
    },
    async (request) => {
      await context.users.remove(request.params.id);
      return { message: 'User deleted' };
    },
  );
}
