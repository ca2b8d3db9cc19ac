import { describe, expect, it } from 'vitest';
import {
  attemptedEmail,
  describeCall,
  isAuditedRoute,
  redirectFailure,
  resultOf,
  singular,
} from '../../src/admin/audit/audit-mapping.js';

const call = (method: string, pattern: string, params: Record<string, string> = {}, extra = {}) =>
  describeCall({ method, pattern, params, ...extra });

describe('audit subject of a route', () => {
  it.each([
    // [method, pattern, params, action, resourceType, resourceName, cluster]
    ['POST', '/api/users/', {}, 'user.create', 'user', undefined, undefined],
    ['PATCH', '/api/users/:email', { email: 'a@x.example' }, 'user.update', 'user', 'a@x.example', undefined],
    ['DELETE', '/api/users/:id', { id: 'u1' }, 'user.delete', 'user', 'u1', undefined],
    [
      'POST',
      '/api/users/:email/reset-password',
      { email: 'a@x.example' },
      'user.password_change',
      'user',
      'a@x.example',
      undefined,
    ],
    ['PATCH', '/api/settings/', {}, 'settings.update', 'settings', undefined, undefined],
    ['PUT', '/api/rbac/', {}, 'rbac.update', 'rbac', undefined, undefined],
    ['POST', '/api/rbac/reload', {}, 'rbac.reload', 'rbac', undefined, undefined],
    ['POST', '/api/rbac/roles', {}, 'role.create', 'role', undefined, undefined],
    ['PUT', '/api/rbac/roles/:roleName', { roleName: 'ops' }, 'role.update', 'role', 'ops', undefined],
    [
      'DELETE',
      '/api/rbac/group-mappings/:groupEmail',
      { groupEmail: 'g@x.example' },
      'group_mapping.delete',
      'group_mapping',
      'g@x.example',
      undefined,
    ],
    ['POST', '/api/backups/repositories/', {}, 'backup_repository.create', 'backup_repository', undefined, undefined],
    [
      'PATCH',
      '/api/backups/repositories/:name',
      { name: 'r1' },
      'backup_repository.update',
      'backup_repository',
      'r1',
      undefined,
    ],
    ['POST', '/api/admin/licensing/activate', {}, 'licensing.activate', 'licensing', undefined, undefined],
    ['POST', '/api/clusters/', {}, 'cluster.create', 'cluster', undefined, undefined],
    ['PATCH', '/api/clusters/:clusterName', { clusterName: 'db1' }, 'cluster.update', 'cluster', 'db1', 'db1'],
    ['DELETE', '/api/clusters/:name', { name: 'db1' }, 'cluster.delete', 'cluster', 'db1', 'db1'],
    ['POST', '/api/clusters/yaml', {}, 'cluster.yaml', 'cluster', undefined, undefined],
    ['POST', '/api/clusters/:clusterName/yaml', { clusterName: 'db1' }, 'cluster.yaml', 'cluster', 'db1', 'db1'],
    ['POST', '/api/clusters/:name/restart', { name: 'db1' }, 'cluster.restart', 'cluster', 'db1', 'db1'],
    [
      'POST',
      '/api/clusters/:clusterName/ops/horizontal-scale',
      { clusterName: 'db1' },
      'cluster.horizontal_scale',
      'cluster',
      'db1',
      'db1',
    ],
    [
      'DELETE',
      '/api/clusters/:clusterName/ops/:opsName',
      { clusterName: 'db1', opsName: 'o1' },
      'operation.delete',
      'operation',
      'o1',
      'db1',
    ],
    ['POST', '/api/clusters/:clusterName/cleanup/', { clusterName: 'db1' }, 'cluster.cleanup', 'cluster', 'db1', 'db1'],
    [
      'POST',
      '/api/clusters/:clusterName/backups/',
      { clusterName: 'db1' },
      'backup.create',
      'backup',
      undefined,
      'db1',
    ],
    [
      'DELETE',
      '/api/clusters/:clusterName/backups/:backupName',
      { clusterName: 'db1', backupName: 'b1' },
      'backup.delete',
      'backup',
      'b1',
      'db1',
    ],
    [
      'POST',
      '/api/clusters/:clusterName/backups/policies/',
      { clusterName: 'db1' },
      'backup_policy.create',
      'backup_policy',
      undefined,
      'db1',
    ],
    [
      'PATCH',
      '/api/clusters/:clusterName/backups/schedules/:scheduleName',
      { clusterName: 'db1', scheduleName: 's1' },
      'backup_schedule.update',
      'backup_schedule',
      's1',
      'db1',
    ],
    [
      'POST',
      '/api/clusters/:clusterName/restores/',
      { clusterName: 'db1' },
      'restore.create',
      'restore',
      undefined,
      'db1',
    ],
    [
      'POST',
      '/api/clusters/:clusterName/restores/clone',
      { clusterName: 'db1' },
      'cluster.clone',
      'cluster',
      'db1',
      'db1',
    ],
  ])('%s %s', (method, pattern, params, action, resourceType, resourceName, cluster) => {
    const subject = call(method, pattern, params);
    expect(subject).toEqual({
      action,
      resourceType,
      ...(resourceName === undefined ? {} : { resourceName }),
      ...(cluster === undefined ? {} : { cluster }),
      signIn: false,
    });
  });

  it('spells the same with and without a trailing slash', () => {
    expect(call('POST', '/api/users')).toEqual(call('POST', '/api/users/'));
    expect(call('PATCH', '/api/settings')).toEqual(call('PATCH', '/api/settings/'));
  });

  it('names a create by what the route set, and `me` paths by the actor', () => {
    expect(call('POST', '/api/users/', {}, { resourceName: 'new@x.example' })).toMatchObject({
      action: 'user.create',
      resourceName: 'new@x.example',
    });
    expect(call('POST', '/api/clusters/', {}, { resourceName: 'db2' })).toMatchObject({ cluster: 'db2' });
    expect(call('PATCH', '/api/users/me/password', {}, { actor: 'me@x.example' })).toMatchObject({
      action: 'user.password_change',
      resourceType: 'user',
      resourceName: 'me@x.example',
    });
  });

  it('records sign-ins (any method) and sign-outs with fixed subjects', () => {
    expect(call('POST', '/api/auth/login')).toEqual({
      action: 'auth.login',
      resourceType: 'session',
      resourceName: 'local',
      signIn: true,
    });
    expect(call('GET', '/api/auth/oauth/:provider/callback', { provider: 'alpha' })).toEqual({
      action: 'auth.login',
      resourceType: 'session',
      resourceName: 'alpha',
      signIn: true,
    });
    expect(call('GET', '/api/auth/oauth/callback')).toMatchObject({ action: 'auth.login', signIn: true });
    expect(call('POST', '/api/auth/logout')).toMatchObject({ action: 'auth.logout', signIn: false });
  });

  it('does not record reads, OAuth starts or paths outside the API', () => {
    expect(call('GET', '/api/users/')).toBeUndefined();
    expect(call('GET', '/api/clusters/:name/events', { name: 'x' })).toBeUndefined();
    // A read that hands out a secret is audited.
    expect(call('GET', '/api/clusters/:clusterName/credentials', { clusterName: 'db1' })).toMatchObject({
      action: 'cluster.credentials_read',
      resourceType: 'cluster',
      resourceName: 'db1',
      cluster: 'db1',
    });
    expect(call('GET', '/api/auth/oauth/:provider', { provider: 'alpha' })).toBeUndefined();
    expect(call('POST', '/healthz')).toBeUndefined();
    expect(call('POST', '/api/:what', { what: 'x' })).toBeUndefined();
  });
});

describe('routes that get the audit hooks', () => {
  it('are the ones describeCall can name, by method and pattern alone', () => {
    expect(isAuditedRoute('GET', '/api/settings/')).toBe(false);
    expect(isAuditedRoute('GET', '/api/auth/validate')).toBe(false);
    expect(isAuditedRoute('GET', '/api/clusters/:name/events')).toBe(false);
    expect(isAuditedRoute('PATCH', '/api/settings/')).toBe(true);
    expect(isAuditedRoute('DELETE', '/api/users/:id')).toBe(true);
    // Audited reads and sign-ins, whatever their parameters will be.
    expect(isAuditedRoute('GET', '/api/clusters/:clusterName/credentials')).toBe(true);
    expect(isAuditedRoute('GET', '/api/auth/oauth/:provider/callback')).toBe(true);
    expect(isAuditedRoute('POST', '/api/auth/login')).toBe(true);
    // A route with several methods is audited when one of them is.
    expect(isAuditedRoute(['GET', 'PUT'], '/api/rbac/')).toBe(true);
    expect(isAuditedRoute(['GET', 'HEAD'], '/api/rbac/')).toBe(false);
  });
});

describe('audit mapping helpers', () => {
  it('singularizes collection segments', () => {
    expect(
      ['users', 'policies', 'repositories', 'ops', 'settings', 'rbac', 'group-mappings', 'class'].map(singular),
    ).toEqual(['user', 'policy', 'repository', 'operation', 'settings', 'rbac', 'group_mapping', 'class']);
  });

  it('counts statuses below 400 as successes', () => {
    expect([200, 201, 202, 204, 302, 399, 400, 401, 403, 404, 409, 500, 503].map(resultOf)).toEqual([
      ...Array<string>(6).fill('success'),
      ...Array<string>(7).fill('failure'),
    ]);
  });

  it("takes a sign-in's e-mail only when it looks like one", () => {
    expect(attemptedEmail({ email: ' Root@Corp.Example ', password: 'x' })).toBe('root@corp.example');
    expect(attemptedEmail({ email: 'hunter2-not-an-email' })).toBeUndefined();
    expect(attemptedEmail({ email: 42 })).toBeUndefined();
    expect(attemptedEmail(undefined)).toBeUndefined();
    expect(attemptedEmail({ email: `${'a'.repeat(65)}@x.example` })).toBeUndefined();
  });

  it("reads an OAuth callback's failure from its redirect", () => {
    expect(redirectFailure('/login?error=not_registered')).toBe('not_registered');
    expect(redirectFailure('/clusters')).toBeUndefined();
    expect(redirectFailure(undefined)).toBeUndefined();
  });
});
