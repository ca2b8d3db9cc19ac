// Database users through ACL: listing, creation, deletion and role changes, under per-user locks, with the
// server's own accounts protected and each change saved to the database's ACL file and reflected in tokens.
import type { FastifyBaseLogger } from 'fastify';
import { BadRequestError, ConflictError, NotFoundError } from '../../http/http-errors.js';
import { sameItems, writtenOncePerReply } from '../../lib/last-reply.js';
import { KeyedMutex } from '../../lib/mutex.js';
import type { Role } from '../auth/roles.js';
import { databaseFor, isProtectedUser, type BrowserContext, type Principal } from '../context.js';
import type { TokenService } from '../tokens/token-service.js';
import { rulesFor, userFromAclUser, usersFromAclList } from './acl-rules.js';
import type { UserItem, UserList } from './schemas.js';

/**
 * The list's JSON from ACL LIST's lines, each user's role read from its rules. Serialized here: items built field by
 * field, which the schema's encoding pass would only copy.
 */
export function userListJson(lines: readonly string[]): string {
  const result = usersFromAclList(lines).map(({ username, role, keys }) => ({ username, role, keys, selected: false }));
  return JSON.stringify({ result } satisfies UserList);
}

export function createDatabaseUserService(context: BrowserContext, tokens: TokenService, logger: FastifyBaseLogger) {
  const db = (principal: Principal) => databaseFor(context, principal);
  // Users change far less often than the list is read (the console's users page).
  const userListJsonOf = writtenOncePerReply(userListJson, sameItems);

  // ACL has no "create if absent": the existence check and ACL SETUSER of one user on one database run one at a
  // time here, so concurrent creations of the same name answer one 201 and 409s (within this process).
  const userLocks = new KeyedMutex();
  const lockUser = <T>(principal: Principal, username: string, work: () => Promise<T>) =>
    userLocks.run(`${principal.dbKey}|${username}`, work);
  // Several users at once take their locks in name order, so two such requests cannot wait on each other.
  const lockUsers = <T>(principal: Principal, usernames: string[], work: () => Promise<T>) =>
    [...usernames]
      .sort()
      .reduceRight<() => Promise<T>>((inner, username) => () => lockUser(principal, username, inner), work)();

  // The token store's own account: changing or deleting it would take every token of every user down.
  const refuseProtected = (principal: Principal, usernames: string[]) => {
    const protectedName = usernames.find((username) => isProtectedUser(context, principal, username));
    if (protectedName)
      throw new BadRequestError(`User ${protectedName} is used by this server and cannot be changed or deleted`);
  };

  // Users made here must survive the database's restart: saved to its ACL file when it has one. The change itself
  // has been made; a failed save is logged rather than reported as a failed request.
  const persistUsers = async (principal: Principal) => {
    try {
      await db(principal).aclSave();
    } catch (error) {
      logger.warn({ err: { message: (error as Error).message } }, 'ACL SAVE failed: the user change is not persisted');
    }
  };

  return {
    /** The users and roles of the principal's database, as the JSON text of `{ result }` (UserListSchema). */
    async listJson(principal: Principal): Promise<string> {
      return userListJsonOf(await db(principal).aclList());
    },

    async get(principal: Principal, username: string): Promise<UserItem> {
      const reply = await db(principal).aclGetUser(username);
      if (!reply) throw new NotFoundError(`User ${username} not found`);
      return { username, ...userFromAclUser(reply), selected: false };
    },

    async create(
      principal: Principal,
      user: { username: string; password: string; role: Role; keys?: string[] },
    ): Promise<void> {
      refuseProtected(principal, [user.username]);
      const database = db(principal);
      await lockUser(principal, user.username, async () => {
        if (await database.aclGetUser(user.username)) throw new ConflictError(`User ${user.username} already exists`);
        await database.aclSetUser(user.username, ['reset', ...rulesFor(user.role, user.keys), `>${user.password}`]);
      });
      await persistUsers(principal);
    },

    /** All of them or none: one ACL DELUSER, which the server applies as a single command. */
    async remove(principal: Principal, usernames: string[]): Promise<void> {
      if (usernames.includes('default')) throw new BadRequestError('The default user cannot be deleted');
      refuseProtected(principal, usernames);
      // Under the same locks as creation and role changes, so a change racing the deletion cannot bring a user back.
      await lockUsers(principal, usernames, () => db(principal).aclDelUsers(usernames));
      await persistUsers(principal);
      // Tokens of a user that no longer exists must stop working at once, not when the database next refuses them.
      for (const username of usernames) await tokens.revokeTokensOfUser(principal, username);
    },

    /** ACL SAVE on demand (the FalkorDB Browser's route); a database without an ACL file says so (400, its text). */
    async save(principal: Principal): Promise<void> {
      if ((await db(principal).aclSave()) === 'no-acl-file') {
        throw new BadRequestError(
          'This database has no ACL file to save its users to (start it with the aclfile setting)',
        );
      }
    },

    /**
     * A new role, and optionally new key patterns (else the user's are kept) and a new password (which replaces the
     * old ones). A new password revokes the user's tokens: they were made with the old one.
     */
    async update(
      principal: Principal,
      username: string,
      change: { role: Role; keys?: string[]; password?: string },
    ): Promise<void> {
      refuseProtected(principal, [username]);
      const database = db(principal);
      await lockUser(principal, username, async () => {
        const current = await database.aclGetUser(username);
        if (!current) throw new NotFoundError(`User ${username} not found`);
        const keys = change.keys ?? userFromAclUser(current).keys;
        const password = change.password === undefined ? [] : ['resetpass', `>${change.password}`];
        // Without `reset`, passwords are kept unless replaced; the command and key rules are replaced.
        await database.aclSetUser(username, ['-@all', ...rulesFor(change.role, keys), ...password]);
      });
      await persistUsers(principal);
      if (change.password !== undefined) await tokens.revokeTokensOfUser(principal, username);
      // The user's tokens act with the new role from their next request on (a demoted Admin's token stops
      // administering other users' tokens at once).
      else await tokens.rescopeTokensOfUser(principal, username, change.role);
    },
  };
}

export type DatabaseUserService = ReturnType<typeof createDatabaseUserService>;
