// The admin roles' permission table and its denial message.
import { describe, expect, it } from 'vitest';
import { forbiddenMessage, isAllowed, permissionsOf } from '../../src/admin/permissions/permissions.js';

describe('admin permissions', () => {
  it('lets an admin do everything, an operator change clusters but not settings, a viewer only read clusters', () => {
    expect(isAllowed('admin', 'settings', 'update', 'graphdb-system')).toBe(true);
    expect(isAllowed('operator', 'clusters', 'update', 'team-a')).toBe(true);
    expect(isAllowed('operator', 'settings', 'update', 'graphdb-system')).toBe(false);
    expect(isAllowed('viewer', 'clusters', 'read', 'team-a')).toBe(true);
    expect(isAllowed('viewer', 'clusters', 'update', 'team-a')).toBe(false);
    expect(isAllowed('viewer', 'users', 'read', 'graphdb-system')).toBe(false);
  });

  it('lists what a role holds as resource.action strings', () => {
    expect(permissionsOf('viewer')).toEqual(['clusters.read', 'operations.read']);
    expect(permissionsOf('admin')).toContain('users.update');
  });

  it('names the resource, action and namespace in the denial', () => {
    expect(forbiddenMessage('settings', 'update', 'graphdb-system')).toBe(
      'Insufficient permissions for settings:update in namespace graphdb-system',
    );
  });
});
