// Roles and group mappings as data: the configuration is read from its ConfigMap (`graphdb-rbac`, key `rbac.json`;
// a file in embedded mode) and kept in memory for the refresh interval, so a permission check costs no store read.
// A write (or POST /api/rbac/reload) is announced on the change channel, and every replica drops its copy at once.
// An invalid hand edit is logged and the last good configuration stays in force, as with the settings. Writes
// re-read the document and are retried when another writer got there first (optimistic concurrency).
import type { FastifyBaseLogger } from 'fastify';
import type { ChangeChannel } from '../../platform/redis/change-channel.js';
import type { ConfigMapPort } from '../../platform/stores/ports.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../http/http-errors.js';
import { Mutex } from '../../lib/mutex.js';
import { singleFlightReload } from '../../lib/single-flight.js';
import {
  isShippedRole,
  type GrantCheck,
  type PermissionRule,
  type RoleName,
  type RoleRulesTable,
} from '../permissions/permissions.js';
import { withConflictRetries } from '../conflict-retries.js';
import {
  allRoles,
  configProblem,
  EMPTY_RBAC,
  findRoleName,
  parseStoredRbac,
  predefinedMessage,
  RBAC_KEY,
  roleFromGroupMappings,
  rulesTable,
  serializeRbac,
  splitRoles,
  type RbacConfig,
} from './rbac-document.js';
import {
  MAX_CUSTOM_ROLES,
  MAX_GROUP_MAPPINGS,
  type GroupMapping,
  type RbacConfigBody,
  type Role,
  type SuccessMessage,
  type UpdateGroupMapping,
  type UpdateRole,
} from './schemas.js';

export interface RbacServiceOptions {
  store: ConfigMapPort;
  logger: Pick<FastifyBaseLogger, 'error' | 'warn'>;
  /** How long the configuration read is trusted (SETTINGS_REFRESH_MS); 0 reads the store at every check. */
  refreshMs: number;
  now?: () => number;
  /** Writes are announced to every replica, and theirs make this one re-read at once. */
  changes?: ChangeChannel;
  /** Who holds which role: a role still held cannot be deleted. */
  users: { list(): Promise<readonly { role: RoleName }[]> };
}

/** The configuration in force and what permission checks derive from it. */
export interface RbacSnapshot {
  config: RbacConfig;
  rules: RoleRulesTable;
}

const snapshotOf = (config: RbacConfig): RbacSnapshot => ({ config, rules: rulesTable(config) });
const sameText = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const done = (message: string): SuccessMessage => ({ success: true, message });
const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

export function createRbacService(options: RbacServiceOptions) {
  const { store, logger } = options;
  const now = options.now ?? Date.now;
  let lastGood: RbacSnapshot = snapshotOf(EMPTY_RBAC);
  let lastVersion: string | undefined;
  /** Why the stored document is not in force (undefined while it is). */
  let storedProblem: string | undefined;
  let readAt = Number.NEGATIVE_INFINITY;
  /** Counts this replica's writes: a read that started before one must not replace what it wrote. */
  let generation = 0;
  const writes = new Mutex();
  options.changes?.onChange('rbac', () => {
    readAt = Number.NEGATIVE_INFINITY;
  });

  async function load(): Promise<RbacSnapshot> {
    const started = generation;
    const stored = await store.read();
    if (started !== generation) return lastGood;
    readAt = now();
    if (!stored) {
      lastVersion = undefined;
      storedProblem = undefined;
      if (lastGood.config !== EMPTY_RBAC) lastGood = snapshotOf(EMPTY_RBAC);
      return lastGood;
    }
    if (stored.version === lastVersion) return lastGood;
    lastVersion = stored.version;
    const parsed = parseStoredRbac(stored.value[RBAC_KEY] ?? '');
    if ('error' in parsed) {
      storedProblem = parsed.error;
      logger.error(
        { store: store.description, reason: parsed.error },
        'ignoring invalid RBAC document; the last good roles and group mappings stay in force',
      );
      return lastGood;
    }
    storedProblem = undefined;
    if (parsed.ignored.length > 0)
      logger.warn(
        { store: store.description, roles: parsed.ignored },
        'the RBAC document lists predefined roles; they cannot be changed and their shipped rules apply',
      );
    lastGood = snapshotOf(parsed.config);
    return lastGood;
  }

  const reload = singleFlightReload(
    load,
    () => lastGood,
    (reason) => logger.warn({ reason }, 'could not read the RBAC document; using the last good roles'),
  );

  /** The configuration in force, re-read when older than the refresh interval (single flight). */
  async function current(): Promise<RbacSnapshot> {
    if (now() - readAt < options.refreshMs) return lastGood;
    return reload();
  }

  /**
   * Applies `change` to the stored configuration (or the last good one when the stored document is invalid) and
   * writes the result with the version read; re-reads and re-applies when another writer got there first.
   * `change` may throw an HttpError to refuse; it must not have side effects.
   */
  async function update(change: (config: RbacConfig) => RbacConfig | Promise<RbacConfig>): Promise<void> {
    await writes.run(() =>
      withConflictRetries(async () => {
        const stored = await store.read();
        let base = lastGood.config;
        if (stored) {
          const parsed = parseStoredRbac(stored.value[RBAC_KEY] ?? '');
          if ('config' in parsed) base = parsed.config;
        }
        const next = await change(structuredClone(base));
        const problem = configProblem(next);
        if (problem) throw new BadRequestError(problem);
        const written = await store.write({ [RBAC_KEY]: serializeRbac(next) }, stored?.version);
        await options.changes?.announce('rbac');
        // After the announcement (its local delivery marks the copy stale): this write is the freshest there is.
        generation += 1;
        lastVersion = written.version;
        storedProblem = undefined;
        lastGood = snapshotOf(next);
        readAt = now();
      }),
    );
  }

  /** How many users and group mappings hold `role` (a role still held is not deleted). */
  async function holdersOf(role: RoleName, mappings: readonly GroupMapping[]): Promise<string | undefined> {
    const users = (await options.users.list()).filter((user) => user.role === role).length;
    const mapped = mappings.filter((mapping) => mapping.roleName === role).length;
    if (users === 0 && mapped === 0) return undefined;
    return `${plural(users, 'user')} and ${plural(mapped, 'group mapping')}`;
  }

  function customRole(config: RbacConfig, name: string, verb: string): number {
    if (isShippedRole(name)) throw new BadRequestError(predefinedMessage(name, verb));
    const index = config.roles.findIndex((role) => role.name === name);
    if (index === -1) throw new NotFoundError(`Role ${name} not found`);
    return index;
  }

  function mappingIndex(config: RbacConfig, groupEmail: string): number {
    const index = config.groupMappings.findIndex((mapping) => sameText(mapping.groupEmail, groupEmail));
    if (index === -1) throw new NotFoundError(`Group mapping ${groupEmail} not found`);
    return index;
  }

  function assertRoleExists(config: RbacConfig, name: string): void {
    if (!isShippedRole(name) && !config.roles.some((role) => role.name === name))
      throw new BadRequestError(`Role ${name} does not exist`);
  }

  /** A group mapping grants its role at sign-in: the caller must hold all of it (the escalation rule). */
  function mayMap(config: RbacConfig, roleName: string, may: GrantCheck): void {
    may(rulesTable(config).get(roleName) ?? [], `a group mapping to role ${roleName}`);
  }

  return {
    current,

    /** A role's rules (re-read when stale); an unknown role has none. */
    rulesOf: async (role: RoleName): Promise<readonly PermissionRule[]> => (await current()).rules.get(role) ?? [],

    /** Every role's rules when the copy in memory is within the refresh interval, else undefined (read current()). */
    freshRules: (): RbacSnapshot['rules'] | undefined =>
      now() - readAt < options.refreshMs ? lastGood.rules : undefined,

    /** The rules of a role as last read, without I/O (unknown role: none); for views built synchronously. */
    cachedRulesOf: (role: RoleName): readonly PermissionRule[] => lastGood.rules.get(role) ?? [],

    /** Whether a role of that exact name exists (shipped or custom). */
    async roleExists(name: RoleName): Promise<boolean> {
      return (await current()).rules.has(name);
    },

    /** The existing role a name refers to, ignoring case (role_attribute_path values); undefined when none. */
    async findRole(name: string): Promise<RoleName | undefined> {
      return findRoleName((await current()).config, name);
    },

    /** The role `groups` map to (highest priority mapping, groups compared ignoring case), if any. */
    async roleForGroups(groups: readonly string[]): Promise<RoleName | undefined> {
      const { config, rules } = await current();
      return roleFromGroupMappings(groups, config.groupMappings, (name) => rules.has(name));
    },

    /** Whether sign-in needs the user's groups at all. */
    async hasGroupMappings(): Promise<boolean> {
      return (await current()).config.groupMappings.length > 0;
    },

    /** Re-reads the store now, on every replica (their copies are dropped too). */
    async reload(): Promise<SuccessMessage> {
      readAt = Number.NEGATIVE_INFINITY;
      lastVersion = undefined;
      await options.changes?.announce('rbac');
      readAt = Number.NEGATIVE_INFINITY;
      await current();
      if (storedProblem)
        return {
          success: false,
          message: `The stored RBAC configuration is invalid (${storedProblem}); the last good one stays in force`,
        };
      return done('RBAC configuration reloaded');
    },

    async getConfig(): Promise<{ roles: Role[]; groupMappings: GroupMapping[] }> {
      const { config } = await current();
      return { roles: allRoles(config), groupMappings: config.groupMappings };
    },

    async replaceConfig(body: RbacConfigBody['config'], may: GrantCheck): Promise<SuccessMessage> {
      const { custom, changedPredefined } = splitRoles(body.roles);
      if (changedPredefined.length > 0)
        throw new BadRequestError(
          `${predefinedMessage(changedPredefined.join(', '), 'changed')} (leave it out or send it as GET answers it)`,
        );
      await update(async (config) => {
        const next: RbacConfig = { roles: custom, groupMappings: body.groupMappings ?? [] };
        // Only what changes must be within the caller's rules: a configuration sent back as read stays valid.
        for (const role of custom) {
          const before = config.roles.find((kept) => kept.name === role.name);
          if (!before || JSON.stringify(before.rules) !== JSON.stringify(role.rules))
            may(role.rules, `role ${role.name}`);
        }
        for (const mapping of next.groupMappings) {
          const before = config.groupMappings.find((kept) => sameText(kept.groupEmail, mapping.groupEmail));
          if (!before || before.roleName !== mapping.roleName) mayMap(next, mapping.roleName, may);
        }
        for (const removed of config.roles.filter((role) => !custom.some((kept) => kept.name === role.name))) {
          const holders = await holdersOf(removed.name, next.groupMappings);
          if (holders) throw new ConflictError(`Role ${removed.name} cannot be removed: ${holders} still hold it`);
        }
        return next;
      });
      return done('RBAC configuration updated');
    },

    async listRoles(): Promise<Role[]> {
      return allRoles((await current()).config);
    },

    async getRole(name: string): Promise<Role> {
      const role = allRoles((await current()).config).find((candidate) => candidate.name === name);
      if (!role) throw new NotFoundError(`Role ${name} not found`);
      return role;
    },

    async createRole(role: Role, may: GrantCheck): Promise<SuccessMessage> {
      if (role.predefined) throw new BadRequestError('A custom role cannot be predefined: only the shipped roles are');
      may(role.rules, `role ${role.name}`);
      await update((config) => {
        const existing = findRoleName(config, role.name);
        if (existing) throw new ConflictError(`Role ${existing} already exists`);
        if (config.roles.length >= MAX_CUSTOM_ROLES)
          throw new BadRequestError(`At most ${MAX_CUSTOM_ROLES} custom roles; delete one first`);
        const { predefined: _predefined, ...stored } = role;
        return { ...config, roles: [...config.roles, stored] };
      });
      return done(`Role ${role.name} created`);
    },

    async updateRole(name: string, changes: UpdateRole, may: GrantCheck): Promise<SuccessMessage> {
      may(changes.rules, `role ${name}`);
      await update((config) => {
        const index = customRole(config, name, 'changed');
        const before = config.roles[index]!;
        const description = changes.description ?? before.description;
        const after: Role = {
          name: before.name,
          ...(description === undefined ? {} : { description }),
          rules: changes.rules,
        };
        return { ...config, roles: config.roles.map((role, i) => (i === index ? after : role)) };
      });
      return done(`Role ${name} updated`);
    },

    async deleteRole(name: string): Promise<SuccessMessage> {
      await update(async (config) => {
        const index = customRole(config, name, 'deleted');
        const holders = await holdersOf(name, config.groupMappings);
        if (holders) throw new ConflictError(`Role ${name} cannot be deleted: ${holders} still hold it`);
        return { ...config, roles: config.roles.filter((_role, i) => i !== index) };
      });
      return done(`Role ${name} deleted`);
    },

    async listGroupMappings(): Promise<GroupMapping[]> {
      return (await current()).config.groupMappings;
    },

    async createGroupMapping(mapping: GroupMapping, may: GrantCheck): Promise<SuccessMessage> {
      await update((config) => {
        assertRoleExists(config, mapping.roleName);
        mayMap(config, mapping.roleName, may);
        if (config.groupMappings.some((existing) => sameText(existing.groupEmail, mapping.groupEmail)))
          throw new ConflictError(`Group mapping ${mapping.groupEmail} already exists`);
        if (config.groupMappings.length >= MAX_GROUP_MAPPINGS)
          throw new BadRequestError(`At most ${MAX_GROUP_MAPPINGS} group mappings; delete one first`);
        return { ...config, groupMappings: [...config.groupMappings, mapping] };
      });
      return done(`Group mapping ${mapping.groupEmail} created`);
    },

    async updateGroupMapping(
      groupEmail: string,
      changes: UpdateGroupMapping,
      may: GrantCheck,
    ): Promise<SuccessMessage> {
      await update((config) => {
        const index = mappingIndex(config, groupEmail);
        assertRoleExists(config, changes.roleName);
        mayMap(config, changes.roleName, may);
        return {
          ...config,
          groupMappings: config.groupMappings.map((mapping, i) => (i === index ? { ...mapping, ...changes } : mapping)),
        };
      });
      return done(`Group mapping ${groupEmail} updated`);
    },

    async deleteGroupMapping(groupEmail: string): Promise<SuccessMessage> {
      await update((config) => {
        const index = mappingIndex(config, groupEmail);
        return { ...config, groupMappings: config.groupMappings.filter((_mapping, i) => i !== index) };
      });
      return done(`Group mapping ${groupEmail} deleted`);
    },
  };
}

export type RbacService = ReturnType<typeof createRbacService>;
