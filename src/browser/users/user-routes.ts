// /api/user: database users and their roles, managed through ACL (Admin only).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { requireRole } from '../auth/roles.js';
import { principalOf } from '../context.js';
import { messageSaying } from '../graphs/schemas.js';
import { hoistBodyParameter } from '../body-parameters.js';
import { sendJsonText } from '../../http/prepared-json.js';
import {
  CreateUserBodySchema,
  DeleteUsersBodySchema,
  RoleQuerySchema,
  UserItemSchema,
  UserListSchema,
  UpdateUserBodySchema,
  UserParamsSchema,
} from './schemas.js';
import type { DatabaseUserService } from './user-service.js';

const tags = ['database-users'];

/** What the database-user routes call: the database-user service. */
export interface UserRouteDeps {
  users: DatabaseUserService;
}

export function userRoutes(scope: FastifyInstance, { users }: UserRouteDeps): void {
  const routes = scope.withTypeProvider<ZodTypeProvider>();
  const admin = requireRole('Admin', 'managing database users');

  routes.get(
    '/api/user',
    {
      preValidation: admin,
      schema: {
        operationId: 'listUsers',
        tags,
        summary: 'Database users and their roles',
        description:
          "The ACL users of the token's database, the role each one has and the key (graph name) patterns it may reach. Needs the Admin role.",
        response: { 200: UserListSchema },
      },
    },
    async (request, reply) => sendJsonText(reply, await users.listJson(principalOf(request))),
  );

  routes.get(
    '/api/user/:user',
    {
      preValidation: admin,
      config: { errorResponses: [404] },
      schema: {
        operationId: 'getUser',
        tags,
        summary: 'One database user and its role',
        description:
          'The user that the `location` header of `POST /api/user` names, in the shape of a list item. 404 when there is no such user.',
        params: UserParamsSchema,
        response: { 200: UserItemSchema },
      },
    },
    async (request) => users.get(principalOf(request), request.params.user),
  );

  routes.post(
    '/api/user',
    {
      preValidation: admin,
      config: { errorResponses: [409], responseHeaders: { 201: { location: 'The new user: `/api/user/{user}`' } } },
      schema: {
        operationId: 'createUser',
        tags,
        summary: 'Create a database user with a role',
        description:
          "Creates an ACL user of the token's database with the password and the role's rules, limited to the `keys` patterns when given. Needs the Admin role. 409 when the user exists; the answer's Location header names the new user.",
        body: CreateUserBodySchema,
        response: { 201: messageSaying('User analyst created') },
      },
    },
    async (request, reply) => {
      const { username } = request.body;
      await users.create(principalOf(request), request.body);
      return reply
        .code(201)
        .header('location', `/api/user/${encodeURIComponent(username)}`)
        .send({ message: `User ${username} created` });
    },
  );

  routes.post(
    '/api/user/save',
    {
      preValidation: admin,
      schema: {
        operationId: 'saveUsers',
        tags,
        summary: "Save the database's users to its ACL file (ACL SAVE)",
        description:
          'Changes made through this API are saved already; this saves changes made by other means. 400 when the database has no ACL file.',
        response: { 200: messageSaying('ACL saved to disk') },
      },
    },
    async (request) => {
      await users.save(principalOf(request));
      return { message: 'ACL saved to disk' };
    },
  );

  routes.delete(
    '/api/user',
    {
      preValidation: admin,
      schema: {
        operationId: 'deleteUsers',
        tags,
        summary: 'Delete database users (all of them or none)',
        description:
          "Deletes the ACL users named in the body from the token's database: all of them, or none when one cannot be deleted. Needs the Admin role.",
        body: DeleteUsersBodySchema,
        response: { 200: messageSaying('Users deleted') },
      },
    },
    async (request) => {
      await users.remove(principalOf(request), [...new Set(request.body.users.map((user) => user.username))]);
      return { message: 'Users deleted' };
    },
  );

  routes.patch(
    '/api/user/:user',
    {
      preValidation: [admin, hoistBodyParameter('role')],
      // The FalkorDB Browser's UI sends this body without a Content-Type (so as `text/plain`).
      config: { errorResponses: [404], plainTextJson: true },
      schema: {
        operationId: 'updateUserRole',
        tags,
        summary: 'Change a database user role, key patterns or password (`role` in the query string or the JSON body)',
        description:
          "Replaces the rules of ACL user `user` with those of `role` (given in the query string or the JSON body), limited to the body's `keys` patterns (else the user's own are kept). A `password` in the body replaces the user's passwords and revokes the user's tokens. Needs the Admin role. 404 when the user does not exist.",
        params: UserParamsSchema,
        querystring: RoleQuerySchema,
        body: UpdateUserBodySchema,
        response: { 200: messageSaying('User analyst updated') },
      },
    },
    async (request) => {
      await users.update(principalOf(request), request.params.user, {
        role: request.query.role,
        keys: request.body?.keys,
        password: request.body?.password,
      });
      return { message: `User ${request.params.user} updated` };
    },
  );
}
