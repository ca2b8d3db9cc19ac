// Pure functions over the RBAC document: reading what is stored, checking a configuration as a whole (names unique,
// mappings naming existing roles, predefined roles unchanged), the rules table permission checks use, and which
// role a signed-in user's groups map to.
import {
  ADMIN_ROLES,
  isShippedRole,
  SHIPPED_ROLE_RULES,
  type AdminRole,
  type PermissionRule,
  type RoleName,
} from '../permissions/permissions.js';
import { MAX_CUSTOM_ROLES, RbacDocumentSchema, type GroupMapping, type Role } from './schemas.js';

/** The ConfigMap's data key (and the file's name in embedded mode). */
export const RBAC_KEY = 'rbac.json';

const SHIPPED_DESCRIPTIONS: Record<AdminRole, string> = {
  admin: 'Every action on every resource',
  operator: 'Manages deployments, backups and restores; reads settings and system facts',
  viewer: 'Reads deployments, backups, restores and system facts',
};

/** What the store holds: custom roles only (the predefined ones come from the code) and group mappings. */
export interface RbacConfig {
  roles: Role[];
  groupMappings: GroupMapping[];
}

export const EMPTY_RBAC: RbacConfig = Object.freeze({ roles: [], groupMappings: [] });

/** The shipped roles as the API answers them. */
export function predefinedRoles(): Role[] {
  return ADMIN_ROLES.map((name) => ({
    name,
    description: SHIPPED_DESCRIPTIONS[name],
    rules: structuredClone(SHIPPED_ROLE_RULES[name]),
    predefined: true,
  }));
}

/** Every role, predefined first, as the API answers them. */
export function allRoles(config: RbacConfig): Role[] {
  return [...predefinedRoles(), ...config.roles.map(({ predefined: _predefined, ...role }) => role)];
}

/** Role name → rules, for permission checks; a name not in it holds nothing. */
export function rulesTable(config: RbacConfig): Map<RoleName, readonly PermissionRule[]> {
  return new Map<RoleName, readonly PermissionRule[]>([
    ...ADMIN_ROLES.map((name): [RoleName, readonly PermissionRule[]] => [name, SHIPPED_ROLE_RULES[name]]),
    ...config.roles.map((role): [RoleName, readonly PermissionRule[]] => [role.name, role.rules]),
  ]);
}

const sameText = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The role a name refers to, exactly or (failing that) ignoring case; undefined when there is none. */
export function findRoleName(config: RbacConfig, name: string): RoleName | undefined {
  const names = [...ADMIN_ROLES, ...config.roles.map((role) => role.name)];
  return names.find((candidate) => candidate === name) ?? names.find((candidate) => sameText(candidate, name));
}

const canonicalRules = (rules: readonly PermissionRule[]) =>
  JSON.stringify(
    rules.map((rule) => ({
      resource: rule.resource,
      actions: rule.actions,
      ...(rule.namespace === undefined ? {} : { namespace: rule.namespace }),
    })),
  );

/** Whether a role sent for a predefined name is that role unchanged (as GET answers it), which PUT accepts. */
function isUnchangedPredefined(role: Role, name: AdminRole): boolean {
  return (
    canonicalRules(role.rules) === canonicalRules(SHIPPED_ROLE_RULES[name]) &&
    (role.description === undefined || role.description === SHIPPED_DESCRIPTIONS[name])
  );
}

export const predefinedMessage = (name: string, verb: string) =>
  `Role ${name} is predefined and cannot be ${verb}; create a custom role instead`;

/**
 * The custom roles of a role list as sent in PUT /api/rbac/ or found in a stored document. A predefined name is
 * taken out; `changedPredefined` names those whose rules or description differ from the shipped role.
 */
export function splitRoles(roles: readonly Role[]): { custom: Role[]; changedPredefined: string[] } {
  const custom: Role[] = [];
  const changedPredefined: string[] = [];
  for (const role of roles) {
    if (isShippedRole(role.name)) {
      if (!isUnchangedPredefined(role, role.name)) changedPredefined.push(role.name);
    } else custom.push(role);
  }
  return { custom, changedPredefined };
}

/** What makes a configuration (custom roles and mappings) unusable, or undefined when it is fine. */
export function configProblem(config: RbacConfig): string | undefined {
  if (config.roles.length > MAX_CUSTOM_ROLES) return `At most ${MAX_CUSTOM_ROLES} custom roles`;
  const seen: string[] = [...ADMIN_ROLES];
  for (const role of config.roles) {
    if (role.predefined) return `Role ${role.name} cannot be predefined: only the shipped roles are`;
    const clash = seen.find((name) => sameText(name, role.name));
    if (clash) return `Role ${role.name} is defined twice (as ${clash})`;
    seen.push(role.name);
  }
  const groups: string[] = [];
  for (const mapping of config.groupMappings) {
    if (!seen.includes(mapping.roleName))
      return `Group mapping ${mapping.groupEmail} names role ${mapping.roleName}, which does not exist`;
    if (groups.some((group) => sameText(group, mapping.groupEmail)))
      return `Group ${mapping.groupEmail} is mapped twice`;
    groups.push(mapping.groupEmail);
  }
  return undefined;
}

/**
 * Stored text → the configuration; `error` explains a document that cannot be used (it is then ignored as a whole).
 * Entries for predefined roles are left out (`ignored` names them): the shipped roles cannot be changed.
 */
export function parseStoredRbac(text: string): { config: RbacConfig; ignored: string[] } | { error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { error: `${RBAC_KEY} is not valid JSON` };
  }
  const parsed = RbacDocumentSchema.safeParse(raw);
  if (!parsed.success)
    return {
      error: parsed.error.issues.map((issue) => `${issue.path.join('.') || '(document)'}: ${issue.message}`).join('; '),
    };
  const ignored = parsed.data.roles.filter((role) => isShippedRole(role.name)).map((role) => role.name);
  const config: RbacConfig = {
    roles: parsed.data.roles.filter((role) => !isShippedRole(role.name)),
    groupMappings: parsed.data.groupMappings,
  };
  const problem = configProblem(config);
  return problem ? { error: problem } : { config, ignored };
}

/** The stored text of a configuration: custom roles (without `predefined`) and mappings. */
export function serializeRbac(config: RbacConfig): string {
  const roles = config.roles.map(({ predefined: _predefined, ...role }) => role);
  return `${JSON.stringify({ roles, groupMappings: config.groupMappings }, null, 2)}\n`;
}

/**
 * The role a user's groups map to: among the mappings whose groupEmail equals one of `groups` (ignoring case) and
 * whose role exists, the one with the highest priority; on equal priorities the one listed first. Undefined when
 * no mapping matches.
 */
export function roleFromGroupMappings(
  groups: readonly string[],
  mappings: readonly GroupMapping[],
  roleExists: (name: RoleName) => boolean,
): RoleName | undefined {
  const held = new Set(groups.map((group) => group.toLowerCase()));
  let best: GroupMapping | undefined;
  for (const mapping of mappings) {
    if (!held.has(mapping.groupEmail.toLowerCase()) || !roleExists(mapping.roleName)) continue;
    if (!best || mapping.priority > best.priority) best = mapping;
  }
  return best?.roleName;
}
