// The RBAC document: what a stored (hand-written) document may hold, the checks of a configuration as a whole, and
// which role an OAuth sign-in gets from role_attribute_path and the group mappings.
import { describe, expect, it } from 'vitest';
import { resolveRole, resolveSignInRole } from '../../src/admin/oauth/sign-in-policy.js';
import {
  allRoles,
  configProblem,
  EMPTY_RBAC,
  findRoleName,
  parseStoredRbac,
  roleFromGroupMappings,
  rulesTable,
  serializeRbac,
  splitRoles,
  type RbacConfig,
} from '../../src/admin/rbac/rbac-document.js';
import { GroupMappingSchema, RoleSchema } from '../../src/admin/rbac/schemas.js';

const reader = { name: 'reader', rules: [{ resource: 'clusters' as const, actions: ['list' as const] }] };
const config = (overrides: Partial<RbacConfig> = {}): RbacConfig => ({
  roles: [reader],
  groupMappings: [],
  ...overrides,
});

describe('the stored RBAC document', () => {
  it('reads a valid document, both lists optional', () => {
    expect(parseStoredRbac('{}')).toEqual({ config: { roles: [], groupMappings: [] }, ignored: [] });
    const text = serializeRbac(
      config({ groupMappings: [{ groupEmail: 'ops@corp.example', roleName: 'reader', priority: 2 }] }),
    );
    expect(parseStoredRbac(text)).toEqual({
      config: config({ groupMappings: [{ groupEmail: 'ops@corp.example', roleName: 'reader', priority: 2 }] }),
      ignored: [],
    });
  });

  it('explains what makes a document unusable', () => {
    const problem = (document: unknown) => {
      const parsed = parseStoredRbac(typeof document === 'string' ? document : JSON.stringify(document));
      return 'error' in parsed ? parsed.error : undefined;
    };
    expect(problem('{ nope')).toBe('rbac.json is not valid JSON');
    expect(problem([])).toMatch(/expected object/);
    expect(problem({ roles: [], extra: 1 })).toMatch(/extra/);
    expect(problem({ roles: [{ name: 'x', rules: [{ resource: 'graphs', actions: ['get'] }] }] })).toMatch(
      /^roles\.0\.rules\.0\.resource: /,
    );
    expect(problem({ roles: [{ name: 'x', rules: [{ resource: 'users', actions: ['grant'] }] }] })).toMatch(
      /^roles\.0\.rules\.0\.actions\.0: /,
    );
    expect(problem({ roles: [{ name: 'x', rules: [{ resource: 'users', actions: ['get'], ns: 'a' }] }] })).toMatch(
      /ns/,
    );
    expect(problem({ groupMappings: [{ groupEmail: 'not mail', roleName: 'viewer', priority: 1 }] })).toMatch(
      /^groupMappings\.0\.groupEmail: /,
    );
    expect(problem({ groupMappings: [{ groupEmail: 'a@corp.example', roleName: 'viewer', priority: 0.5 }] })).toMatch(
      /^groupMappings\.0\.priority: /,
    );
    expect(problem({ groupMappings: [{ groupEmail: 'a@corp.example', roleName: 'ghost', priority: 1 }] })).toBe(
      'Group mapping a@corp.example names role ghost, which does not exist',
    );
    expect(problem({ roles: [reader, { ...reader, name: 'READER' }] })).toBe(
      'Role READER is defined twice (as reader)',
    );
    expect(problem({ roles: [{ ...reader, predefined: true }] })).toBe(
      'Role reader cannot be predefined: only the shipped roles are',
    );
  });

  it('leaves predefined roles out of a stored document and names them', () => {
    const parsed = parseStoredRbac(JSON.stringify({ roles: [{ name: 'admin', rules: [] }, reader] }));
    expect(parsed).toEqual({ config: config(), ignored: ['admin'] });
  });

  it('never stores the predefined flag, and answers the predefined roles first', () => {
    expect(JSON.parse(serializeRbac(config({ roles: [{ ...reader, predefined: false }] })))).toEqual({
      roles: [reader],
      groupMappings: [],
    });
    expect(allRoles(config()).map((role) => [role.name, role.predefined])).toEqual([
      ['admin', true],
      ['operator', true],
      ['viewer', true],
      ['reader', undefined],
    ]);
  });
});

describe('a configuration as a whole', () => {
  it('accepts predefined roles sent back unchanged, and names the changed ones', () => {
    const sentBack = allRoles(config());
    expect(splitRoles(sentBack)).toEqual({ custom: [reader], changedPredefined: [] });
    const changed = sentBack.map((role) => (role.name === 'viewer' ? { ...role, rules: [] } : role));
    expect(splitRoles(changed).changedPredefined).toEqual(['viewer']);
    const renamed = sentBack.map((role) => (role.name === 'admin' ? { ...role, description: 'mine' } : role));
    expect(splitRoles(renamed).changedPredefined).toEqual(['admin']);
  });

  it('refuses a custom role named like a shipped one, in any case, and a group mapped twice', () => {
    expect(configProblem(config({ roles: [{ name: 'Admin', rules: [] }] }))).toBe(
      'Role Admin is defined twice (as admin)',
    );
    expect(
      configProblem(
        config({
          groupMappings: [
            { groupEmail: 'ops@corp.example', roleName: 'viewer', priority: 1 },
            { groupEmail: 'OPS@corp.example', roleName: 'reader', priority: 1 },
          ],
        }),
      ),
    ).toBe('Group OPS@corp.example is mapped twice');
    expect(configProblem(EMPTY_RBAC)).toBeUndefined();
  });

  it('gives every role its rules, and an unknown role none', () => {
    const table = rulesTable(config());
    expect(table.get('reader')).toEqual(reader.rules);
    expect(table.get('admin')).toEqual([{ resource: '*', actions: ['*'] }]);
    expect(table.get('ghost')).toBeUndefined();
    expect(findRoleName(config(), 'READER')).toBe('reader');
    expect(findRoleName(config(), 'Viewer')).toBe('viewer');
    expect(findRoleName(config(), 'ghost')).toBeUndefined();
  });

  it('validates roles and mappings with the real enums, e-mail format and integer priority', () => {
    expect(
      RoleSchema.safeParse({ name: 'r', rules: [{ resource: '*', actions: ['*'], namespace: '*' }] }).success,
    ).toBe(true);
    expect(
      RoleSchema.safeParse({ name: 'r', rules: [{ resource: 'clusters.restores', actions: ['read'] }] }).success,
    ).toBe(true);
    expect(RoleSchema.safeParse({ name: '-r', rules: [] }).success).toBe(false);
    expect(
      RoleSchema.safeParse({ name: 'r', rules: [{ resource: 'clusters', actions: ['get'], namespace: 'Team' }] })
        .success,
    ).toBe(false);
    expect(
      GroupMappingSchema.safeParse({ groupEmail: 'g@corp.example', roleName: 'viewer', priority: -3 }).success,
    ).toBe(true);
    expect(
      GroupMappingSchema.safeParse({ groupEmail: 'g@corp.example', roleName: 'viewer', priority: 1e9 }).success,
    ).toBe(false);
  });
});

describe('the role of an OAuth sign-in', () => {
  const mappings = [
    { groupEmail: 'staff@corp.example', roleName: 'viewer', priority: 1 },
    { groupEmail: 'ops@corp.example', roleName: 'operator', priority: 10 },
    { groupEmail: 'readers@corp.example', roleName: 'reader', priority: 10 },
    { groupEmail: 'gone@corp.example', roleName: 'ghost', priority: 100 },
  ];
  const exists = (name: string) => ['admin', 'operator', 'viewer', 'reader'].includes(name);

  it('takes the highest-priority mapping among the groups, ignoring case; the first listed on a tie', () => {
    expect(roleFromGroupMappings(['STAFF@corp.example'], mappings, exists)).toBe('viewer');
    expect(roleFromGroupMappings(['staff@corp.example', 'Ops@Corp.Example'], mappings, exists)).toBe('operator');
    expect(roleFromGroupMappings(['readers@corp.example', 'ops@corp.example'], mappings, exists)).toBe('operator');
    expect(roleFromGroupMappings(['nobody@corp.example'], mappings, exists)).toBeUndefined();
    expect(roleFromGroupMappings([], mappings, exists)).toBeUndefined();
  });

  it('skips a mapping whose role no longer exists', () => {
    expect(roleFromGroupMappings(['gone@corp.example', 'staff@corp.example'], mappings, exists)).toBe('viewer');
    expect(roleFromGroupMappings(['gone@corp.example'], mappings, exists)).toBeUndefined();
  });

  it('asks role_attribute_path first, then the group mappings', () => {
    const rbac = config({ groupMappings: mappings.slice(0, 3) });
    const profile = { department: 'Reader', groups: ['ops@corp.example'] };
    expect(resolveRole('department', profile, rbac)).toBe('reader');
    expect(resolveSignInRole('department', profile, profile.groups, rbac)).toBe('reader');
    // The path yields no existing role: the mappings decide.
    expect(resolveSignInRole("'superuser'", profile, profile.groups, rbac)).toBe('operator');
    expect(resolveSignInRole('', profile, profile.groups, rbac)).toBe('operator');
    expect(resolveSignInRole('nonsense(', profile, profile.groups, rbac)).toBe('operator');
    // Neither: no role (the caller keeps the user's, or refuses under role_attribute_strict).
    expect(resolveSignInRole("'superuser'", profile, [], rbac)).toBeUndefined();
  });
});
