// Admin users: the public view (the FalkorDB Enterprise admin API's User), local sign-in checks, management by e-mail with the
// last-admin guard, password resets and changes, and the first admin.
import { randomBytes } from 'node:crypto';
import { BadRequestError, ConflictError, NotFoundError, UnauthorizedError } from '../../http/http-errors.js';
import type { RoleName } from '../permissions/permissions.js';
import { dummyHash, hashPassword, verifyPassword } from './password-hash.js';
import { knownRole, shippedRoleExists, type RoleLookup } from './role-check.js';
import { newUserId, type StoredUser, type UserStore } from './user-store.js';

export type UserStatus = 'active' | 'disabled';

/** The FalkorDB Enterprise admin API's User object (providers renamed: google → alpha, azure → beta). */
export interface UserView {
  email: string;
  name: string;
  role: RoleName;
  lastLogin?: string;
  source: StoredUser['provider'];
  status: UserStatus;
  createdAt: string;
  mustChangePassword: boolean;
}

export function toUserView(user: StoredUser): UserView {
  return {
    email: user.email,
    name: user.name,
    role: user.role,
    ...(user.lastLoginAt ? { lastLogin: user.lastLoginAt } : {}),
    source: user.provider,
    status: user.disabled ? 'disabled' : 'active',
    createdAt: user.createdAt,
    mustChangePassword: user.mustChangePassword ?? false,
  };
}

export interface UserFilter {
  role?: string;
  status?: UserStatus;
  page: number;
  limit: number;
}

export interface UserPage {
  users: StoredUser[];
  pagination: { page: number; limit: number; total: number; totalPages: number };
}

export const sameEmail = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const isEnabledAdmin = (user: StoredUser) => user.role === 'admin' && !user.disabled;
const bumped = (user: StoredUser) => (user.sessionVersion ?? 0) + 1;
export const LAST_ADMIN = 'The last enabled admin cannot be demoted, disabled or deleted';
export const PASSWORD_RESET = 'Password reset successfully';

/** 18 random bytes as base64url: 24 characters, 144 bits; shown once, stored only as its scrypt hash. */
export function temporaryPassword(): string {
  return randomBytes(18).toString('base64url');
}

/** Each list's users by id, made once per list the store hands out (a session check looks one up per request). */
const idIndexes = new WeakMap<readonly StoredUser[], ReadonlyMap<string, StoredUser>>();
function byId(users: readonly StoredUser[]): ReadonlyMap<string, StoredUser> {
  let index = idIndexes.get(users);
  if (!index) {
    const first = new Map<string, StoredUser>();
    // The first of two users with one id wins, as a search from the start would find it (ids are UUIDs; a list
    // edited by hand is the only way to two).
    for (const user of users) if (!first.has(user.id)) first.set(user.id, user);
    idIndexes.set(users, first);
    index = first;
  }
  return index;
}

function indexOf(users: StoredUser[], email: string): number {
  const index = users.findIndex((user) => sameEmail(user.email, email));
  if (index === -1) throw new NotFoundError(`User ${email} not found`);
  return index;
}

export function createUserService(
  store: UserStore,
  now: () => number = Date.now,
  /** Which role names exist (the RBAC store's, through context.rbac.roleExists). */
  roleExists: RoleLookup = shippedRoleExists,
) {
  /** Replaces the user `email` names with `change(user)`; refuses (409) a change that leaves no enabled admin. */
  const change = (email: string, apply: (user: StoredUser) => StoredUser) =>
    store.update((users) => {
      const index = indexOf(users, email);
      const before = users[index]!;
      const after = apply(before);
      const next = users.map((user, i) => (i === index ? after : user));
      if (isEnabledAdmin(before) && !next.some(isEnabledAdmin)) throw new ConflictError(LAST_ADMIN);
      return { users: next, result: after };
    });

  const findById = async (id: string): Promise<StoredUser | undefined> => byId(await store.list()).get(id);
  /** The users by id as they are in memory, or undefined when the store must be read first (see findById). */
  const usersByIdFromMemory = (): ReadonlyMap<string, StoredUser> | undefined => {
    const users = store.listFromMemory();
    return users && byId(users);
  };

  return {
    list: () => store.list(),

    /** One page of users in creation order, filtered by role and status. */
    async page(filter: UserFilter): Promise<UserPage> {
      const matching = (await store.list()).filter(
        (user) =>
          (filter.role === undefined || user.role === filter.role) &&
          (filter.status === undefined || (filter.status === 'disabled') === user.disabled),
      );
      const start = (filter.page - 1) * filter.limit;
      return {
        users: matching.slice(start, start + filter.limit),
        pagination: {
          page: filter.page,
          limit: filter.limit,
          total: matching.length,
          totalPages: Math.ceil(matching.length / filter.limit),
        },
      };
    },

    findById,

    usersByIdFromMemory,

    /** As findById, but the user itself (or undefined), not a promise, while the list in memory is fresh. */
    findByIdInForce(id: string): StoredUser | undefined | Promise<StoredUser | undefined> {
      const users = usersByIdFromMemory();
      return users ? users.get(id) : findById(id);
    },

    async get(email: string): Promise<StoredUser> {
      const user = (await store.list()).find((candidate) => sameEmail(candidate.email, email));
      if (!user) throw new NotFoundError(`User ${email} not found`);
      return user;
    },

    /** The user a local sign-in names, or undefined for every kind of failure (after the same scrypt effort). */
    async verifyLocalLogin(email: string, password: string): Promise<StoredUser | undefined> {
      const user = (await store.list()).find((candidate) => sameEmail(candidate.email, email));
      const hash = user?.passwordHash ?? (await dummyHash());
      const matches = await verifyPassword(password, hash);
      if (!user || !user.passwordHash || !matches || user.disabled || user.provider !== 'local') return undefined;
      return user;
    },

    /** Links an OAuth identity to a user and applies a role resolved at sign-in (role sync). */
    async recordOAuthSignIn(
      id: string,
      provider: 'alpha' | 'beta',
      subject: string,
      role: RoleName | undefined,
    ): Promise<StoredUser> {
      return store.update((users) => {
        const index = users.findIndex((user) => user.id === id);
        if (index === -1) throw new NotFoundError(`User ${id} not found`);
        const before = users[index]!;
        let after: StoredUser = {
          ...before,
          identities: { ...before.identities, [provider]: subject },
          lastLoginAt: new Date(now()).toISOString(),
        };
        if (role && role !== before.role) {
          const demotesLastAdmin =
            isEnabledAdmin(before) && !users.some((user, i) => i !== index && isEnabledAdmin(user));
          // Role sync never removes the last admin; the sign-in still succeeds with the old role.
          // A new role ends the sessions granted under the old one (this sign-in's session gets the new version).
          if (!demotesLastAdmin) after = { ...after, role, sessionVersion: bumped(before) };
        }
        return { users: users.map((user, i) => (i === index ? after : user)), result: after };
      });
    },

    async recordLogin(id: string): Promise<void> {
      await store.update((users) => ({
        users: users.map((user) => (user.id === id ? { ...user, lastLoginAt: new Date(now()).toISOString() } : user)),
        result: undefined,
      }));
    },

    async create(input: {
      email: string;
      name?: string;
      role: string;
      password?: string;
      provider?: StoredUser['provider'];
      status?: UserStatus;
      identities?: StoredUser['identities'];
    }): Promise<StoredUser> {
      const role = await knownRole(input.role, roleExists);
      const provider = input.provider ?? 'local';
      if (input.password !== undefined && provider !== 'local')
        throw new BadRequestError(`A user who signs in with ${provider} has no password; leave password out`);
      const passwordHash = input.password ? await hashPassword(input.password) : undefined;
      return store.update((users) => {
        if (users.some((user) => sameEmail(user.email, input.email)))
          throw new ConflictError(`User ${input.email} already exists`);
        const user: StoredUser = {
          id: newUserId(),
          email: input.email,
          name: input.name ?? input.email,
          role,
          provider,
          ...(input.identities ? { identities: input.identities } : {}),
          ...(passwordHash ? { passwordHash } : {}),
          createdAt: new Date(now()).toISOString(),
          disabled: input.status === 'disabled',
        };
        return { users: [...users, user], result: user };
      });
    },

    /** Name, role and status; a new role or status ends the user's sessions on every replica. */
    async update(email: string, changes: { name?: string; role?: string; status?: UserStatus }): Promise<StoredUser> {
      const role = changes.role === undefined ? undefined : await knownRole(changes.role, roleExists);
      const disabled = changes.status === undefined ? undefined : changes.status === 'disabled';
      return change(email, (before) => {
        const endsSessions =
          (role !== undefined && role !== before.role) || (disabled !== undefined && disabled !== before.disabled);
        return {
          ...before,
          ...(changes.name !== undefined ? { name: changes.name } : {}),
          ...(role !== undefined ? { role } : {}),
          ...(disabled !== undefined ? { disabled } : {}),
          ...(endsSessions ? { sessionVersion: bumped(before) } : {}),
        };
      });
    },

    /**
     * Gives a local user a random temporary password (returned once, stored as its scrypt hash) that must be
     * changed at the next sign-in, and ends the user's sessions.
     */
    async resetPassword(email: string): Promise<{ user: StoredUser; tempPassword: string }> {
      const target = await this.get(email);
      if (target.provider !== 'local')
        throw new BadRequestError(`User ${target.email} signs in with ${target.provider} and has no password to reset`);
      const tempPassword = temporaryPassword();
      const passwordHash = await hashPassword(tempPassword);
      const user = await change(email, (before) => {
        if (before.provider !== 'local')
          throw new BadRequestError(
            `User ${before.email} signs in with ${before.provider} and has no password to reset`,
          );
        return { ...before, passwordHash, mustChangePassword: true, sessionVersion: bumped(before) };
      });
      return { user, tempPassword };
    },

    /**
     * The signed-in user's own change: 401 when the current password is wrong. Clears mustChangePassword and
     * ends every session of the user (the caller's route starts a new one).
     */
    async changeOwnPassword(id: string, currentPassword: string, newPassword: string): Promise<StoredUser> {
      const user = (await store.list()).find((candidate) => candidate.id === id);
      if (!user) throw new NotFoundError('User not found');
      if (user.provider !== 'local' || !user.passwordHash)
        throw new BadRequestError(
          user.provider === 'local'
            ? `User ${user.email} has no password yet; an admin can reset it`
            : `User ${user.email} signs in with ${user.provider} and has no password`,
        );
      if (!(await verifyPassword(currentPassword, user.passwordHash)))
        throw new UnauthorizedError('Current password is incorrect');
      if (currentPassword === newPassword)
        throw new BadRequestError('newPassword must differ from the current password');
      const passwordHash = await hashPassword(newPassword);
      return store.update((users) => {
        const index = users.findIndex((candidate) => candidate.id === id);
        if (index === -1) throw new NotFoundError('User not found');
        const before = users[index]!;
        // Changed by someone else (a reset) since it was checked: the current password may no longer be right.
        if (before.passwordHash !== user.passwordHash)
          throw new ConflictError('The password was changed meanwhile; sign in again');
        const { mustChangePassword: _cleared, ...rest } = before;
        const after: StoredUser = { ...rest, passwordHash, sessionVersion: bumped(before) };
        return { users: users.map((candidate, i) => (i === index ? after : candidate)), result: after };
      });
    },

    /** Ends every session of the user (logout): sessions issued before now stop validating, on every replica. */
    async endSessions(id: string): Promise<void> {
      await store.update((users) => ({
        users: users.map((user) => (user.id === id ? { ...user, sessionVersion: bumped(user) } : user)),
        result: undefined,
      }));
    },

    async remove(email: string): Promise<void> {
      await store.update((users) => {
        const target = users[indexOf(users, email)]!;
        const next = users.filter((user) => user !== target);
        if (isEnabledAdmin(target) && !next.some(isEnabledAdmin)) throw new ConflictError(LAST_ADMIN);
        return { users: next, result: undefined };
      });
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
