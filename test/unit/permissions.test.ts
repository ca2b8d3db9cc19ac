// The admin roles' permission table, the rule matcher and its denial message.
import { describe, expect, it } from 'vitest';
import {
  firstUncovered,
  forbiddenMessage,
  grantCheckOf,
  hoistPermissionGuard,
  requirePermission,
  permissionsOf,
  rulesAllow,
  shippedRulesOf,
  SHIPPED_ROLE_RULES,
  type Action,
  type Resource,
} from '../../src/admin/permissions/permissions.js';

const may = (role: string, resource: Resource, action: Action, namespace: string) =>
  rulesAllow(shippedRulesOf(role), resource, action, namespace);

describe('admin permissions', () => {
  it('lets an admin do everything, an operator change clusters but not settings, a viewer only read clusters', () => {
    expect(may('admin', 'settings', 'update', 'graphdb-system')).toBe(true);
    expect(may('admin', 'rbac', 'delete', 'graphdb-system')).toBe(true);
    expect(may('operator', 'clusters', 'update', 'team-a')).toBe(true);
    expect(may('operator', 'clusters.backups', 'create', 'team-a')).toBe(true);
    expect(may('operator', 'users', 'list', 'graphdb-system')).toBe(false);
    expect(may('operator', 'settings', 'update', 'graphdb-system')).toBe(false);
    expect(may('operator', 'rbac', 'list', 'graphdb-system')).toBe(false);
    expect(may('viewer', 'clusters', 'list', 'team-a')).toBe(true);
    expect(may('viewer', 'clusters', 'get', 'team-a')).toBe(true);
    expect(may('viewer', 'clusters', 'update', 'team-a')).toBe(false);
    expect(may('viewer', 'users', 'list', 'graphdb-system')).toBe(false);
    expect(may('viewer', 'rbac', 'get', 'graphdb-system')).toBe(false);
  });

  it('gives a role it does not ship nothing (custom roles come from the RBAC store)', () => {
    expect(shippedRulesOf('auditor')).toEqual([]);
    expect(may('auditor', 'clusters', 'list', 'team-a')).toBe(false);
    expect(shippedRulesOf('Admin')).toEqual([]);
  });

  it('lists what rules hold as resource:action strings, wildcards kept, each once', () => {
    expect(permissionsOf(SHIPPED_ROLE_RULES.viewer)).toContain('clusters:list');
    expect(permissionsOf(SHIPPED_ROLE_RULES.viewer)).not.toContain('clusters:update');
    expect(permissionsOf(SHIPPED_ROLE_RULES.admin)).toEqual(['*:*']);
    expect(
      permissionsOf([
        { resource: 'clusters', actions: ['list'], namespace: 'team-a' },
        { resource: 'clusters', actions: ['list', 'get'], namespace: 'team-b' },
      ]),
    ).toEqual(['clusters:list', 'clusters:get']);
    expect(permissionsOf([])).toEqual([]);
  });

  it('matches rules by resource, action and namespace, with wildcards', () => {
    const rules = [{ resource: 'clusters' as const, actions: ['get' as const], namespace: 'team-a' }];
    expect(rulesAllow(rules, 'clusters', 'get', 'team-a')).toBe(true);
    expect(rulesAllow(rules, 'clusters', 'get', 'team-b')).toBe(false);
    expect(rulesAllow(rules, 'clusters', 'list', 'team-a')).toBe(false);
    expect(rulesAllow(rules, 'clusters.backups', 'get', 'team-a')).toBe(false);
    expect(rulesAllow([{ resource: '*', actions: ['*'], namespace: '*' }], 'rbac', 'delete', 'x')).toBe(true);
    expect(rulesAllow([{ resource: 'users', actions: ['*'] }], 'users', 'delete', 'any')).toBe(true);
    expect(rulesAllow([{ resource: '*', actions: ['read'], namespace: 'ops' }], 'admin', 'read', 'ops')).toBe(true);
    expect(rulesAllow([{ resource: '*', actions: ['read'], namespace: 'ops' }], 'admin', 'read', 'dev')).toBe(false);
    expect(rulesAllow([], 'clusters', 'list', 'team-a')).toBe(false);
  });

  it('names the resource, action and namespace in the denial', () => {
    expect(forbiddenMessage('settings', 'update', 'graphdb-system')).toBe(
      'Insufficient permissions for settings:update in namespace graphdb-system',
    );
  });

  it("moves a route's permission guard from preValidation to its last onRequest hook, and leaves other hooks", () => {
    const guard = requirePermission('settings', 'read', () => 'graphdb-system');
    const other = () => undefined;
    const first = () => undefined;
    const route: { preValidation?: unknown; onRequest?: unknown } = { preValidation: [other, guard], onRequest: first };
    hoistPermissionGuard(route);
    expect(route.preValidation).toEqual([other]);
    expect(route.onRequest).toEqual([first, guard]);
    const alone: { preValidation?: unknown; onRequest?: unknown } = { preValidation: guard };
    hoistPermissionGuard(alone);
    expect(alone).toEqual({ preValidation: undefined, onRequest: [guard] });
    const unguarded: { preValidation?: unknown; onRequest?: unknown } = { preValidation: other };
    hoistPermissionGuard(unguarded);
    expect(unguarded).toEqual({ preValidation: other });
  });

  it('leaves a guard whose namespace comes from the body in preValidation, where the body is parsed', () => {
    const bodyGuard = requirePermission('clusters', 'create', () => 'team-a', { readsBody: true });
    const route: { preValidation?: unknown; onRequest?: unknown } = { preValidation: bodyGuard };
    hoistPermissionGuard(route);
    expect(route).toEqual({ preValidation: bodyGuard });
  });

  it("grants escalate only by name or with the `*`:`*` rule, not with a resource's `*` actions", () => {
    expect(rulesAllow(SHIPPED_ROLE_RULES.admin, 'rbac', 'escalate', 'graphdb-system')).toBe(true);
    expect(rulesAllow(SHIPPED_ROLE_RULES.operator, 'clusters.restores', 'escalate', 'team-a')).toBe(false);
    expect(rulesAllow([{ resource: 'rbac', actions: ['*'] }], 'rbac', 'escalate', 'graphdb-system')).toBe(false);
    expect(rulesAllow([{ resource: 'rbac', actions: ['escalate'] }], 'rbac', 'escalate', 'graphdb-system')).toBe(true);
    expect(rulesAllow([{ resource: '*', actions: ['escalate'] }], 'rbac', 'escalate', 'graphdb-system')).toBe(true);
  });

  it('finds the first grant a role would give that its author lacks, namespaces and wildcards included', () => {
    const teamA = [{ resource: 'clusters' as const, actions: ['*' as const], namespace: 'team-a' }];
    expect(firstUncovered(teamA, [{ resource: 'clusters', actions: ['get', 'delete'], namespace: 'team-a' }])).toBe(
      undefined,
    );
    expect(firstUncovered(teamA, [{ resource: 'clusters', actions: ['get'], namespace: 'team-b' }])).toEqual({
      resource: 'clusters',
      action: 'get',
      namespace: 'team-b',
    });
    // A rule for every namespace is covered only by a rule for every namespace.
    expect(firstUncovered(teamA, [{ resource: 'clusters', actions: ['get'] }])).toEqual({
      resource: 'clusters',
      action: 'get',
      namespace: '*',
    });
    expect(firstUncovered([{ resource: 'rbac', actions: ['*'] }], [{ resource: '*', actions: ['*'] }])).toEqual({
      resource: 'clusters',
      action: 'list',
      namespace: '*',
    });
    expect(firstUncovered([{ resource: 'rbac', actions: ['*'] }], [{ resource: 'rbac', actions: ['*'] }])).toBe(
      undefined,
    );
    expect(firstUncovered(SHIPPED_ROLE_RULES.admin, SHIPPED_ROLE_RULES.admin)).toBe(undefined);
    expect(firstUncovered(SHIPPED_ROLE_RULES.operator, SHIPPED_ROLE_RULES.viewer)).toBe(undefined);
    expect(firstUncovered(SHIPPED_ROLE_RULES.viewer, SHIPPED_ROLE_RULES.operator)).toEqual({
      resource: 'clusters',
      action: 'create',
      namespace: '*',
    });
  });

  it('refuses a grant beyond the caller with the standard message, unless the caller holds rbac:escalate', () => {
    const narrow = grantCheckOf([{ resource: 'rbac', actions: ['*'] }], 'graphdb-system');
    expect(() => narrow([{ resource: 'settings', actions: ['update'] }], 'role x')).toThrow(
      /^Insufficient permissions for settings:update in every namespace: role x grants it/,
    );
    expect(() => narrow([{ resource: 'rbac', actions: ['get'] }], 'role x')).not.toThrow();
    const binder = grantCheckOf([{ resource: 'rbac', actions: ['escalate'] }], 'graphdb-system');
    expect(() => binder(SHIPPED_ROLE_RULES.admin, 'role admin')).not.toThrow();
  });
});
