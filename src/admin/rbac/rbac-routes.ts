// /api/rbac: roles (predefined and custom) and group-to-role mappings (permission resource `rbac`, server namespace).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { serverNamespaceChecks } from '../permissions/server-namespace.js';
import type { RbacService } from './rbac-service.js';
import {
  GroupEmailParamsSchema,
  GroupMappingListEnvelopeSchema,
  CreateGroupMappingBodySchema,
  RbacConfigBodySchema,
  RbacConfigEnvelopeSchema,
  RoleEnvelopeSchema,
  RoleListEnvelopeSchema,
  RoleNameParamsSchema,
  CreateRoleBodySchema,
  successSaying,
  UpdateGroupMappingSchema,
  UpdateRoleSchema,
} from './schemas.js';

const tags = ['rbac'];

/** What the RBAC routes call: the roles and mappings, and the server's namespace, where the permission is checked. */
export interface RbacRouteDeps {
  rbac: RbacService;
  namespace: string;
}

export function rbacRoutes(scope: FastifyInstance, { rbac, namespace }: RbacRouteDeps): void {
  const routes = scope.withTypeProvider<ZodTypeProvider>();
  // The escalation rule (grantCheck): what a role or a mapping grants must be within the caller's own rules.
  const { allowed, grantCheck: may } = serverNamespaceChecks('rbac', namespace);

  // The real paths have a trailing slash here; the router answers both spellings (ignoreTrailingSlash).
  routes.get(
    '/api/rbac/',
    {
      preValidation: allowed('get'),
      schema: {
        operationId: 'getRbacConfig',
        tags,
        summary: 'Get current RBAC configuration',
        description:
          'Every role (the predefined admin, operator and viewer first, marked `predefined: true`) and every group mapping.',
        response: { 200: RbacConfigEnvelopeSchema },
      },
    },
    async () => ({ config: await rbac.getConfig() }),
  );

  routes.put(
    '/api/rbac/',
    {
      preValidation: allowed('update'),
      config: { errorResponses: [409, 422] },
      schema: {
        operationId: 'replaceRbacConfig',
        tags,
        summary: 'Update RBAC configuration (full replace)',
        description:
          'Replaces every custom role and group mapping. Predefined roles may be left out or sent back unchanged; ' +
          'changing one is refused (400). Removing a role users or mappings still hold is refused (409).',
        body: RbacConfigBodySchema,
        response: { 200: successSaying('RBAC configuration updated') },
      },
    },
    async (request) => rbac.replaceConfig(request.body.config, await may(request)),
  );

  routes.post(
    '/api/rbac/reload',
    {
      preValidation: allowed('update'),
      schema: {
        operationId: 'reloadRbac',
        tags,
        summary: 'Reload RBAC configuration from ConfigMap',
        description:
          'Re-reads the RBAC ConfigMap now, on every replica. `success` is false (and the last good configuration ' +
          'stays in force) when the stored document is invalid; the message says why.',
        response: { 200: successSaying('RBAC configuration reloaded') },
      },
    },
    () => rbac.reload(),
  );

  routes.get(
    '/api/rbac/roles',
    {
      preValidation: allowed('list'),
      schema: {
        operationId: 'listRbacRoles',
        tags,
        summary: 'List all RBAC roles',
        description: 'Predefined roles first, then the custom ones (at most 100).',
        response: { 200: RoleListEnvelopeSchema },
      },
    },
    async () => ({ roles: await rbac.listRoles() }),
  );

  routes.post(
    '/api/rbac/roles',
    {
      preValidation: allowed('create'),
      config: { errorResponses: [409, 422] },
      schema: {
        operationId: 'createRbacRole',
        tags,
        summary: 'Create a custom RBAC role',
        description: 'A role name that exists already (ignoring case), the predefined ones included, is refused (409).',
        body: CreateRoleBodySchema,
        response: { 201: successSaying('Role auditor created') },
      },
    },
    async (request, reply) => reply.code(201).send(await rbac.createRole(request.body, await may(request))),
  );

  routes.get(
    '/api/rbac/roles/:roleName',
    {
      preValidation: allowed('get'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'getRbacRole',
        tags,
        summary: 'Get specific RBAC role by name',
        description: 'One role, predefined or custom.',
        params: RoleNameParamsSchema,
        response: { 200: RoleEnvelopeSchema },
      },
    },
    async (request) => ({ role: await rbac.getRole(request.params.roleName) }),
  );

  routes.put(
    '/api/rbac/roles/:roleName',
    {
      preValidation: allowed('update'),
      config: { errorResponses: [404, 409, 422] },
      schema: {
        operationId: 'updateRbacRole',
        tags,
        summary: 'Update a custom RBAC role',
        description: 'Replaces the rules (and the description when given) of a custom role; predefined roles: 400.',
        params: RoleNameParamsSchema,
        body: UpdateRoleSchema,
        response: { 200: successSaying('Role auditor updated') },
      },
    },
    async (request) => rbac.updateRole(request.params.roleName, request.body, await may(request)),
  );

  routes.delete(
    '/api/rbac/roles/:roleName',
    {
      preValidation: allowed('delete'),
      config: { errorResponses: [404, 409, 422] },
      schema: {
        operationId: 'deleteRbacRole',
        tags,
        summary: 'Delete a custom RBAC role',
        description:
          'Predefined roles cannot be deleted (400); a role users or group mappings still hold is not deleted (409).',
        params: RoleNameParamsSchema,
        response: { 200: successSaying('Role auditor deleted') },
      },
    },
    async (request) => rbac.deleteRole(request.params.roleName),
  );

  routes.get(
    '/api/rbac/group-mappings',
    {
      preValidation: allowed('list'),
      schema: {
        operationId: 'listRbacGroupMappings',
        tags,
        summary: 'List all group-to-role mappings',
        description: 'At most 500 mappings, in the order they were created.',
        response: { 200: GroupMappingListEnvelopeSchema },
      },
    },
    async () => ({ mappings: await rbac.listGroupMappings() }),
  );

  routes.post(
    '/api/rbac/group-mappings',
    {
      preValidation: allowed('create'),
      config: { errorResponses: [409, 422] },
      schema: {
        operationId: 'createRbacGroupMapping',
        tags,
        summary: 'Create a group-to-role mapping',
        description:
          'At OAuth sign-in, the mapping of the highest priority among the user’s groups decides the role when ' +
          'role_attribute_path yields none. The role must exist (400); a group mapped already is refused (409).',
        body: CreateGroupMappingBodySchema,
        response: { 201: successSaying('Group mapping analysts@example.com created') },
      },
    },
    async (request, reply) => reply.code(201).send(await rbac.createGroupMapping(request.body, await may(request))),
  );

  routes.put(
    '/api/rbac/group-mappings/:groupEmail',
    {
      preValidation: allowed('update'),
      config: { errorResponses: [404, 409, 422] },
      schema: {
        operationId: 'updateRbacGroupMapping',
        tags,
        summary: 'Update a group-to-role mapping',
        description: 'The group is named by its e-mail address, ignoring case.',
        params: GroupEmailParamsSchema,
        body: UpdateGroupMappingSchema,
        response: { 200: successSaying('Group mapping analysts@example.com updated') },
      },
    },
    async (request) => rbac.updateGroupMapping(request.params.groupEmail, request.body, await may(request)),
  );

  routes.delete(
    '/api/rbac/group-mappings/:groupEmail',
    {
      preValidation: allowed('delete'),
      config: { errorResponses: [404, 409, 422] },
      schema: {
        operationId: 'deleteRbacGroupMapping',
        tags,
        summary: 'Delete a group-to-role mapping',
        description: 'The group is named by its e-mail address, ignoring case.',
        params: GroupEmailParamsSchema,
        response: { 200: successSaying('Group mapping analysts@example.com deleted') },
      },
    },
    async (request) => rbac.deleteGroupMapping(request.params.groupEmail),
  );
}
