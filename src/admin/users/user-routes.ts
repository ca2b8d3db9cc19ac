// /api/users: local and OAuth admin users (permission resource `users`).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { EmailSchema } from '../../shared/email.js';
import { COOKIE_SCHEME } from '../../shared/openapi.js';
import type { AdminContext } from '../context.js';
import { ADMIN_ROLES, requirePermission } from '../permissions/permissions.js';
import { UserViewSchema } from '../sessions/schemas.js';
import { toManagedView } from './user-service.js';

const tags = ['auth'];
const security = [{ [COOKIE_SCHEME]: [] }];

const ManagedUserSchema = UserViewSchema.extend({
  disabled: z.boolean(),
  createdAt: z.string(),
  lastLoginAt: z.string().nullable(),
}).meta({ id: 'ManagedAdminUser' });
const PasswordSchema = z.string().min(8, 'must be at least 8 characters long').max(1024);
const CreateUserSchema = z.strictObject({
  email: EmailSchema,
  name: z.string().trim().min(1).max(200),
  role: z.enum(ADMIN_ROLES),
  password: PasswordSchema.optional(),
});
const UpdateUserSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  role: z.enum(ADMIN_ROLES).optional(),
  disabled: z.boolean().optional(),
  password: PasswordSchema.optional(),
});
const UserIdParamsSchema = z.object({ id: z.uuid('must be a user id') });

export function userRoutes(app: FastifyInstance, context: AdminContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const inServerNamespace = () => context.namespace;

  routes.get(
    '/api/users',
    {
      preValidation: requirePermission('users', 'read', inServerNamespace),
      schema: {
        operationId: 'listAdminUsers',
        tags,
        summary: 'Admin users',
        security,
        response: { 200: z.object({ users: z.array(ManagedUserSchema) }) },
      },
    },
    async () => ({ users: (await context.users.list()).map(toManagedView) }),
  );

  routes.post(
    '/api/users',
    {
      preValidation: requirePermission('users', 'update', inServerNamespace),
      config: { errorResponses: [409] },
      schema: {
        operationId: 'createAdminUser',
        tags,
        summary: 'Create an admin user (without a password: OAuth sign-in only)',
        security,
        body: CreateUserSchema,
        response: { 201: z.object({ user: ManagedUserSchema }) },
      },
    },
    async (request, reply) => reply.code(201).send({ user: toManagedView(await context.users.create(request.body)) }),
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
        security,
        params: UserIdParamsSchema,
        body: UpdateUserSchema,
        response: { 200: z.object({ user: ManagedUserSchema }) },
      },
    },
    async (request, reply) => {
      const updated = await context.users.update(request.params.id, request.body);
      // A change to one's own password or role ends one's sessions too; the session making it goes on, renewed.
      if (updated.id === request.sessionUser?.id && !updated.disabled) await context.sessions.start(reply, updated);
      return { user: toManagedView(updated) };
    },
  );

  routes.delete(
    '/api/users/:id',
    {
      preValidation: requirePermission('users', 'update', inServerNamespace),
      config: { errorResponses: [404, 409] },
      schema: {
        operationId: 'deleteAdminUser',
        tags,
        summary: 'Delete an admin user',
        security,
        params: UserIdParamsSchema,
        response: { 200: z.object({ message: z.string() }) },
      },
    },
    async (request) => {
      await context.users.remove(request.params.id);
      return { message: 'User deleted' };
    },
  );
}
