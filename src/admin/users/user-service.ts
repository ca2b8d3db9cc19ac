// Admin users: the public view, local sign-in checks, management with the last-admin guard, and the first admin.
import { ConflictError, NotFoundError } from '../../shared/http-errors.js';
import { permissionsOf, shippedRulesOf, type PermissionRule, type RoleName } from '../permissions/permissions.js';
import { dummyHash, hashPassword, verifyPassword } from './password-hash.js';
import { newUserId, type StoredUser, type UserStore } from './user-store.js';

export interface UserView {
  id: string;
  email: string;
  name: string;
  role: RoleName;
  provider: StoredUser['provider'];
  permissions: string[];
}

export interface ManagedUserView extends UserView {
  disabled: boolean;
  createdAt: string;
  lastLoginAt: string | null;
}

/** A role's rules as last read from the RBAC store (context.rbac.cachedRulesOf). */
export type RulesLookup = (role: RoleName) => readonly PermissionRule[];

/** The public view of a user, its permissions from `rulesOf` (the RBAC store's rules). */
export function userViewWith(rulesOf: RulesLookup): (user: StoredUser) => UserView {
  return (user) => ({
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    provider: user.provider,
    permissions: permissionsOf(rulesOf(user.role)),
  });
}

export function managedViewWith(rulesOf: RulesLookup): (user: StoredUser) => ManagedUserView {
  const view = userViewWith(rulesOf);
  return (user) => ({
    ...view(user),
    disabled: user.disabled,
    createdAt: user.createdAt,
    lastLoginAt: user.lastLoginAt ?? null,
  });
}

/** With the shipped roles' rules only (a custom role shows no permissions): prefer userViewWith(context.rbac.cachedRulesOf). */
export const toUserView = userViewWith(shippedRulesOf);
/** With the shipped roles' rules only: prefer managedViewWith(context.rbac.cachedRulesOf). */
export const toManagedView = managedViewWith(shippedRulesOf);

const sameEmail = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const isEnabledAdmin = (user: StoredUser) => user.role === 'admin' && !user.disabled;
export const LAST_ADMIN = 'The last enabled admin cannot be demoted, disabled or deleted';

export function createUserService(store: UserStore, now: () => number = Date.now) {
  return {
    list: () => store.list(),

    async findById(id: string): Promise<StoredUser | undefined> {
      return (await store.list()).find((user) => user.id === id);
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
          if (!demotesLastAdmin) after = { ...after, role, sessionVersion: (before.sessionVersion ?? 0) + 1 };
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
      name: string;
      role: RoleName;
      password?: string;
      provider?: StoredUser['provider'];
      identities?: StoredUser['identities'];
    }): Promise<StoredUser> {
      const passwordHash = input.password ? await hashPassword(input.password) : undefined;
      return store.update((users) => {
        if (users.some((user) => sameEmail(user.email, input.email)))
          throw new ConflictError(`User ${input.email} already exists`);
        const user: StoredUser = {
          id: newUserId(),
          email: input.email,
          name: input.name,
          role: input.role,
          provider: input.provider ?? 'local',
          ...(input.identities ? { identities: input.identities } : {}),
          ...(passwordHash ? { passwordHash } : {}),
          createdAt: new Date(now()).toISOString(),
          disabled: false,
        };
        return { users: [...users, user], result: user };
      });
    },

    async update(
      id: string,
      changes: { name?: string; role?: RoleName; disabled?: boolean; password?: string },
    ): Promise<StoredUser> {
      const passwordHash = changes.password ? await hashPassword(changes.password) : undefined;
      return store.update((users) => {
        const index = users.findIndex((user) => user.id === id);
        if (index === -1) throw new NotFoundError(`User ${id} not found`);
        const before = users[index]!;
        // What a session was granted on depends on these: a change of any ends the user's sessions.
        const endsSessions =
          passwordHash !== undefined ||
          (changes.role !== undefined && changes.role !== before.role) ||
          (changes.disabled !== undefined && changes.disabled !== before.disabled);
        const after: StoredUser = {
          ...before,
          ...(changes.name !== undefined ? { name: changes.name } : {}),
          ...(changes.role !== undefined ? { role: changes.role } : {}),
          ...(changes.disabled !== undefined ? { disabled: changes.disabled } : {}),
          ...(passwordHash ? { passwordHash } : {}),
          ...(endsSessions ? { sessionVersion: (before.sessionVersion ?? 0) + 1 } : {}),
        };
        const next = users.map((user, i) => (i === index ? after : user));
        if (isEnabledAdmin(before) && !next.some(isEnabledAdmin)) throw new ConflictError(LAST_ADMIN);
        return { users: next, result: after };
      });
    },

    /** Ends every session of the user (logout): sessions issued before now stop validating, on every replica. */
    async endSessions(id: string): Promise<void> {
      await store.update((users) => ({
        users: users.map((user) =>
          user.id === id ? { ...user, sessionVersion: (user.sessionVersion ?? 0) + 1 } : user,
        ),
        result: undefined,
      }));
    },

    async remove(id: string): Promise<void> {
      await store.update((users) => {
        const target = users.find((user) => user.id === id);
        if (!target) throw new NotFoundError(`User ${id} not found`);
        const next = users.filter((user) => user.id !== id);
        if (isEnabledAdmin(target) && !next.some(isEnabledAdmin)) throw new ConflictError(LAST_ADMIN);
        return { users: next, result: undefined };
      });
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
