// The admin roles' permission table and its denial message.
import { describe, expect, it } from 'vitest';
import { forbiddenMessage, isAllowed, permissionsOf, rulesAllow } from '../../src/admin/permissions/permissions.js';

describe('admin permissions', () => {
  it('lets an admin do everything, an operator change clusters but not settings, a viewer only read clusters', () => {
    expect(isAllowed('admin', 'settings', 'update', 'graphdb-system')).toBe(true);
    expect(isAllowed('operator', 'clusters', 'update', 'team-a')).toBe(true);
    expect(isAllowed('operator', 'clusters.backups', 'create', 'team-a')).toBe(true);
    expect(isAllowed('operator', 'users', 'list', 'graphdb-system')).toBe(false);
    expect(isAllowed('operator', 'settings', 'update', 'graphdb-system')).toBe(false);
    expect(isAllowed('viewer', 'clusters', 'list', 'team-a')).toBe(true);
    expect(isAllowed('viewer', 'clusters', 'get', 'team-a')).toBe(true);
    expect(isAllowed('viewer', 'clusters', 'update', 'team-a')).toBe(false);
    expect(isAllowed('viewer', 'users', 'list', 'graphdb-system')).toBe(false);
  });

  it('lists what a role holds as resource:action strings, wildcards kept', () => {
    expect(permissionsOf('viewer')).toContain('clusters:list');
    expect(permissionsOf('viewer')).not.toContain('clusters:update');
    expect(permissionsOf('admin')).toEqual(['*:*']);
  });

  it('matches rules by resource, action and namespace, with wildcards', () => {
    const rules = [{ resource: 'clusters' as const, actions: ['get' as const], namespace: 'team-a' }];
    expect(rulesAllow(rules, 'clusters', 'get', 'team-a')).toBe(true);
    expect(rulesAllow(rules, 'clusters', 'get', 'team-b')).toBe(false);
    expect(rulesAllow(rules, 'clusters', 'list', 'team-a')).toBe(false);
    expect(rulesAllow(rules, 'clusters.backups', 'get', 'team-a')).toBe(false);
    expect(rulesAllow([{ resource: '*', actions: ['*'], namespace: '*' }], 'rbac', 'delete', 'x')).toBe(true);
  });

  it('names the resource, action and namespace in the denial', () => {
    expect(forbiddenMessage('settings', 'update', 'graphdb-system')).toBe(
      'Insufficient permissions for settings:update in namespace graphdb-system',
    );
  });
});
