// /api/user: database users and their roles, managed through ACL (Admin only).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GraphDatabase } from '../../platform/falkordb/graph-database.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../shared/http-errors.js';
import { KeyedMutex } from '../../shared/mutex.js';
import { BEARER_SCHEME } from '../../shared/openapi.js';
import { verbatim } from '../../shared/verbatim-messages.js';
import { requireRole, ROLES, type Role } from '../auth/roles.js';
import { databaseFor, isProtectedUser, principalOf, type BrowserContext } from '../context.js';
import { MessageSchema } from '../graphs/schemas.js';
import { hoistBodyParameter } from '../query-parameters.js';
import type { TokenService } from '../tokens/token-service.js';
import { roleFromAclUser, rulesFor } from './acl-rules.js';

const security = [{ [BEARER_SCHEME]: [] }];
const tags = ['users'];

/** ACL rule syntax gives meaning to spaces and to leading `>`, `<`, `~`, `+`, `-`, `&`, `%`: none of them may appear. */
const UsernameSchema = z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9._@-]{0,127}$/, 'must be 1-128 letters, digits, `_`, `.`, `@` or `-`, starting with a letter, digit or `_`');
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
const PasswordSchema = z.string().min(1, 'must not be empty').max(512).regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters');
const RoleSchema = z.enum(ROLES, { error: () => verbatim(`Invalid role: must be one of ${ROLES.join(', ')}`) });

const CreateUserBodySchema = z.object({ username: UsernameSchema, password: PasswordSchema, role: RoleSchema });
const DeleteUsersBodySchema = z.object({ users: z.array(z.object({ username: UsernameSchema })).min(1).max(1000) });
const UserParamsSchema = z.object({ user: UsernameSchema });
// Required in the query (the seed); the public browser's body copy is moved there before validation.
const RoleQuerySchema = z.object({
  role: z.enum(ROLES, { error: (issue) => verbatim(issue.input === undefined ? 'Missing parameter role' : `Invalid role: must be one of ${ROLES.join(', ')}`) }),
});
const RoleBodySchema = z.object({ role: RoleSchema.optional() }).nullish();
const UserItemSchema = z.object({ username: z.string(), role: z.enum(ROLES), selected: z.boolean() });
const UserListSchema = z.object({ result: z.array(UserItemSchema) });

async function listUsers(database: GraphDatabase): Promise<{ username: string; role: Role; selected: boolean }[]> {
  const names = await database.aclUsers();
  const replies = await Promise.all(names.map((name) => database.aclGetUser(name)));
  return names.flatMap((username, index) => {
    const reply = replies[index];
    return reply ? [{ username, role: roleFromAclUser(reply), selected: false }] : [];
  });
}

export function userRoutes(app: FastifyInstance, context: BrowserContext, tokens: TokenService): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const admin = requireRole('Admin', 'managing database users');
  const db = (request: Parameters<typeof principalOf>[0]) => databaseFor(context, principalOf(request));
  // Users made here must survive the database's restart: saved to its ACL file when it has one. The change itself
  // has been made; a failed save is logged rather than reported as a failed request.
  const persistUsers = async (request: Parameters<typeof principalOf>[0]) => {
    try {
      await db(request).aclSave();
    } catch (error) {
      request.log.warn({ err: { message: (error as Error).message } }, 'ACL SAVE failed: the user change is not persisted');
    }
  };
  // The token store's own account: changing or deleting it would take every token of every user down.
  const refuseProtected = (request: Parameters<typeof principalOf>[0], usernames: string[]) => {
    const protectedName = usernames.find((username) => isProtectedUser(context, principalOf(request), username));
    if (protectedName) throw new BadRequestError(`User ${protectedName} is used by this server and cannot be changed or deleted`);
  };
  // ACL has no "create if absent": the existence check and ACL SETUSER of one user on one database run one at a
  // time here, so concurrent creations of the same name answer one 201 and 409s (within this process).
  const userLocks = new KeyedMutex();
  const lockUser = <T>(request: Parameters<typeof principalOf>[0], username: string, work: () => Promise<T>) => userLocks.run(`${principalOf(request).dbKey}|${username}`, work);
  // Several users at once take their locks in name order, so two such requests cannot wait on each other.
  const lockUsers = <T>(request: Parameters<typeof principalOf>[0], usernames: string[], work: () => Promise<T>) =>
    [...usernames].sort().reduceRight<() => Promise<T>>((inner, username) => () => lockUser(request, username, inner), work)();

  routes.get(
    '/api/user',
    { preValidation: admin, schema: { operationId: 'listUsers', tags, summary: 'Database users and their roles', security, response: { 200: UserListSchema } } },
    async (request) => ({ result: await listUsers(db(request)) }),
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
        description: 'The user that the `location` header of `POST /api/user` names, in the shape of a list item. 404 when there is no such user.',
        security,
        params: UserParamsSchema,
        response: { 200: UserItemSchema },
      },
    },
    async (request) => {
      const { user } = request.params;
      const reply = await db(request).aclGetUser(user);
      if (!reply) throw new NotFoundError(`User ${user} not found`);
      return { username: user, role: roleFromAclUser(reply), selected: false };
    },
  );

  routes.post(
    '/api/user',
    {
      preValidation: admin,
      config: { errorResponses: [409], responseHeaders: { 201: { location: 'The new user: `/api/user/{user}`' } } },
      schema: { operationId: 'createUser', tags, summary: 'Create a database user with a role', security, body: CreateUserBodySchema, response: { 201: MessageSchema } },
    },
    async (request, reply) => {
      const { username, password, role } = request.body;
      refuseProtected(request, [username]);
      const database = db(request);
      await lockUser(request, username, async () => {
        if (await database.aclGetUser(username)) throw new ConflictError(`User ${username} already exists`);
        await database.aclSetUser(username, ['reset', ...rulesFor(role), `>${password}`]);
      });
      await persistUsers(request);
      return reply.code(201).header('location', `/api/user/${encodeURIComponent(username)}`).send({ message: `User ${username} created` });
    },
  );

  routes.delete(
    '/api/user',
    {
      preValidation: admin,
      schema: { operationId: 'deleteUsers', tags, summary: 'Delete database users (all of them or none)', security, body: DeleteUsersBodySchema, response: { 200: MessageSchema } },
    },
    async (request) => {
      const usernames = [...new Set(request.body.users.map((user) => user.username))];
      if (usernames.includes('default')) throw new BadRequestError('The default user cannot be deleted');
      refuseProtected(request, usernames);
      // One ACL DELUSER for every name: the server applies it as a single command.
      // Under the same locks as creation and role changes, so a change racing the deletion cannot bring a user back.
      await lockUsers(request, usernames, () => db(request).aclDelUsers(usernames));
      await persistUsers(request);
      // Tokens of a user that no longer exists must stop working at once, not when the database next refuses them.
      for (const username of usernames) await tokens.revokeTokensOfUser(principalOf(request), username);
      return { message: 'Users deleted' };
    },
  );

  routes.patch(
    '/api/user/:user',
    {
      preValidation: [admin, hoistBodyParameter('role')],
      config: { errorResponses: [404] },
      schema: {
        operationId: 'updateUserRole',
        tags,
        summary: 'Change a database user role (`role` in the query string or the JSON body)',
        security,
        params: UserParamsSchema,
        querystring: RoleQuerySchema,
        body: RoleBodySchema,
        response: { 200: MessageSchema },
      },
    },
    async (request) => {
      const { role } = request.query;
      const { user } = request.params;
      refuseProtected(request, [user]);
      const database = db(request);
      await lockUser(request, user, async () => {
        if (!(await database.aclGetUser(user))) throw new NotFoundError(`User ${user} not found`);
        // Without `reset`, passwords are kept; the command and key rules are replaced by the role's.
        await database.aclSetUser(user, ['-@all', ...rulesFor(role)]);
      });
      await persistUsers(request);
      // The user's tokens act with the new role from their next request on (a demoted Admin's token stops
      // administering other users' tokens at once).
      await tokens.rescopeTokensOfUser(principalOf(request), user, role);
      return { message: `User ${user} updated` };
    },
  );
}
