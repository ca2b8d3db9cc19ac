// Permissions are (resource, action, namespace) tuples. The shipped roles hold theirs in every namespace.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError, UnauthorizedError } from '../../shared/http-errors.js';

export const ADMIN_ROLES = ['admin', 'operator', 'viewer'] as const;
export type AdminRole = (typeof ADMIN_ROLES)[number];
export type Resource = 'settings' | 'users' | 'clusters' | 'operations';
export type Action = 'read' | 'update';
export type Permission = `${Resource}.${Action}`;

const ALL: Permission[] = [
  'settings.read',
  'settings.update',
  'users.read',
  'users.update',
  'clusters.read',
  'clusters.update',
  'operations.read',
];

/** Role → permissions, each granted in every namespace ('*'). */
const GRANTS: Record<AdminRole, { permissions: Permission[]; namespaces: '*' | string[] }> = {
  admin: { permissions: ALL, namespaces: '*' },
  operator: { permissions: ['settings.read', 'clusters.read', 'clusters.update', 'operations.read'], namespaces: '*' },
  viewer: { permissions: ['clusters.read', 'operations.read'], namespaces: '*' },
};

export function permissionsOf(role: AdminRole): Permission[] {
  return [...GRANTS[role].permissions];
}

export function isAllowed(role: AdminRole, resource: Resource, action: Action, namespace: string): boolean {
  const grant = GRANTS[role];
  return (
    grant.permissions.includes(`${resource}.${action}`) &&
    (grant.namespaces === '*' || grant.namespaces.includes(namespace))
  );
}

export function forbiddenMessage(resource: Resource, action: Action, namespace: string): string {
  return `Insufficient permissions for ${resource}:${action} in namespace ${namespace}`;
}

export interface SessionUser {
  id: string;
  role: AdminRole;
}

declare module 'fastify' {
  interface FastifyRequest {
    sessionUser?: SessionUser & { email: string; name: string; provider: 'local' | 'alpha' | 'beta' };
  }
}

/**
 * The guard every admin route declares. Without a session: 401 (before any permission question);
 * without the permission in the namespace the request concerns: 403 with the specified message (docs/decisions.md).
 */
export function requirePermission(
  resource: Resource,
  action: Action,
  namespaceOf: (request: FastifyRequest) => string,
) {
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    const user = request.sessionUser;
    if (!user) return done(new UnauthorizedError('Authentication required'));
    const namespace = namespaceOf(request);
    if (!isAllowed(user.role, resource, action, namespace))
      return done(new ForbiddenError(forbiddenMessage(resource, action, namespace)));
    done();
  };
}
