// docs/admin-roles.md names the permission of every admin operation of the OpenAPI document, and the server agrees:
// a user whose role grants nothing is refused each guarded operation with exactly the permission the row names.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isBrowserPath } from '../../src/browser/paths.js';
import { ACTIONS, RESOURCES } from '../../src/admin/permissions/permissions.js';
import { login, useAdminApp } from '../support/admin.js';

type Operation = { security?: Record<string, unknown>[] };
const document = JSON.parse(readFileSync('openapi/openapi.json', 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
};
const operations = Object.entries(document.paths)
  .filter(([path]) => path.startsWith('/api/') && !isBrowserPath(path))
  .flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, operation })),
  );
const rows = new Map(
  [...readFileSync('docs/admin-roles.md', 'utf8').matchAll(/^\| `([A-Z]+ \/api\/[^`]+)` \| ([^|]+) \|/gm)].map(
    (row) => [row[1]!, row[2]!.trim()],
  ),
);
const PERMISSION = new RegExp(`^\`(${RESOURCES.join('|').replaceAll('.', '\\.')}):(${ACTIONS.join('|')})\`$`);

describe('docs/admin-roles.md', () => {
  const t = useAdminApp('embedded');

  it('has a row for every admin operation, and only for those', () => {
    expect(operations.length).toBeGreaterThan(30);
    expect([...rows.keys()].sort()).toEqual(operations.map((operation) => operation.key).sort());
    for (const [key, permission] of rows)
      expect(permission, key).toMatch(/^(none \(public\)|session only|`[a-z.]+:[a-z]+`)$/);
  });

  it('names the permission the server asks for (403 to a role without any), or none where no session is needed', async () => {
    const create = await t.as('admin').inject({
      method: 'POST',
      url: '/api/rbac/roles',
      payload: { name: 'nothing', rules: [] },
    });
    expect(create.statusCode, create.body).toBe(201);
    // Users may hold any existing role; this one grants nothing.
    const created = await t.as('admin').inject({
      method: 'POST',
      url: '/api/users/',
      payload: { email: 'nobody@corp.example', name: 'Nobody', role: 'nothing', password: 'nobody-password-1' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const nobody = t.withCookie(await login(t.app, 'nobody@corp.example', 'nobody-password-1'));

    for (const { key, operation } of operations) {
      const permission = rows.get(key)!;
      const guarded = (operation.security ?? []).length > 0;
      expect(guarded, `${key} is documented as ${permission}`).toBe(permission !== 'none (public)');
      if (!guarded) continue;
      const [method, path] = key.split(' ') as ['GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', string];
      const res = await nobody.inject({ method, url: path.replace(/\{[^}]+\}/g, 'x') });
      if (permission === 'session only') {
        // Past the session and any permission check (a body-less call may still be refused by validation).
        expect([401, 403], `${key}: ${res.body}`).not.toContain(res.statusCode);
        continue;
      }
      const [, resource, action] = PERMISSION.exec(permission) ?? [];
      expect(resource, `${key}: ${permission} is not a known permission`).toBeDefined();
      expect(res.statusCode, `${key}: ${res.body}`).toBe(403);
      expect(res.json<{ message: string }>().message, key).toMatch(
        new RegExp(`^Insufficient permissions for ${resource!.replaceAll('.', '\\.')}:${action!} in namespace `),
      );
    }
  });
});
