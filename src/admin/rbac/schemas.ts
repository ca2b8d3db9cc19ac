// Shapes of the /api/rbac endpoints and of the stored RBAC document (`rbac.json`: custom roles and group mappings),
// in the FalkorDB Enterprise admin API's vocabulary (its RBAC tag; Role, GroupMapping, SuccessMessage).
import { z } from 'zod';
import { EmailSchema } from '../../lib/email.js';
import { printableString } from '../../lib/printable.js';
import { KUBERNETES_NAME_OR_ANY } from '../../lib/kubernetes-names.js';
import { ACTIONS, RESOURCES } from '../permissions/permissions.js';

/** Bounds of the document (and so of every list the routes answer). */
export const MAX_CUSTOM_ROLES = 100;
export const MAX_RULES_PER_ROLE = 100;
export const MAX_GROUP_MAPPINGS = 500;
const MAX_PRIORITY = 1_000_000;

/** A role name: what users, group mappings and role_attribute_path refer to. */
export const RoleNameSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(63, 'must be at most 63 characters')
  .regex(
    /^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/,
    'must be letters, digits, `.`, `_` or `-`, starting and ending with a letter or digit',
  );

/** A Kubernetes namespace name, or `*` for every namespace. */
const RuleNamespaceSchema = z.string().regex(KUBERNETES_NAME_OR_ANY, 'must be a Kubernetes namespace name or *');

export const RuleSchema = z
  .strictObject({
    resource: z.enum([...RESOURCES, '*']),
    actions: z
      .array(z.enum([...ACTIONS, '*']))
      .min(1, 'must name at least one action')
      .max(ACTIONS.length + 1),
    namespace: RuleNamespaceSchema.optional(),
  })
  .meta({ id: 'RbacRule' });
const RulesSchema = z.array(RuleSchema).max(MAX_RULES_PER_ROLE, `at most ${MAX_RULES_PER_ROLE} rules per role`);
const DescriptionSchema = printableString({ max: 500 }).or(z.literal(''));

/** A role as stored, sent (POST /api/rbac/roles, PUT /api/rbac/) and answered. */
export const RoleSchema = z
  .strictObject({
    name: RoleNameSchema,
    description: DescriptionSchema.optional(),
    rules: RulesSchema,
    /** Answered true for the shipped roles; a custom role cannot be predefined. */
    predefined: z.boolean().optional(),
  })
  .meta({ id: 'RbacRole' });
export type Role = z.infer<typeof RoleSchema>;

export const UpdateRoleSchema = z.strictObject({ rules: RulesSchema, description: DescriptionSchema.optional() });
export type UpdateRole = z.infer<typeof UpdateRoleSchema>;

export const GroupMappingSchema = z
  .strictObject({
    /** The IdP group's e-mail address, matched case-insensitively with the signed-in user's groups. */
    groupEmail: EmailSchema,
    roleName: RoleNameSchema,
    /** The highest priority among the user's matching groups decides the role. */
    priority: z.int().min(-MAX_PRIORITY).max(MAX_PRIORITY),
  })
  .meta({ id: 'RbacGroupMapping' });
export type GroupMapping = z.infer<typeof GroupMappingSchema>;

export const UpdateGroupMappingSchema = GroupMappingSchema.pick({ roleName: true, priority: true });
export type UpdateGroupMapping = z.infer<typeof UpdateGroupMappingSchema>;

const RoleListSchema = z
  .array(RoleSchema)
  .max(MAX_CUSTOM_ROLES + 3, `at most ${MAX_CUSTOM_ROLES} custom roles (besides the predefined ones)`);
const GroupMappingListSchema = z
  .array(GroupMappingSchema)
  .max(MAX_GROUP_MAPPINGS, `at most ${MAX_GROUP_MAPPINGS} group mappings`);

/** The stored document (`rbac.json`); both lists may be left out of a hand-written one. */
export const RbacDocumentSchema = z.strictObject({
  roles: RoleListSchema.default([]),
  groupMappings: GroupMappingListSchema.default([]),
});
export type RbacDocument = z.infer<typeof RbacDocumentSchema>;

/** PUT /api/rbac/: the whole configuration (predefined roles may be left out or sent back as GET answers them). */
export const RbacConfigBodySchema = z.strictObject({
  config: z.strictObject({ roles: RoleListSchema, groupMappings: GroupMappingListSchema.optional() }),
});
export type RbacConfigBody = z.infer<typeof RbacConfigBodySchema>;

export const RbacConfigEnvelopeSchema = z.object({
  config: z.object({ roles: z.array(RoleSchema), groupMappings: z.array(GroupMappingSchema) }),
});
export const RoleListEnvelopeSchema = z.object({ roles: z.array(RoleSchema) });
export const RoleEnvelopeSchema = z.object({ role: RoleSchema });
export const GroupMappingListEnvelopeSchema = z.object({ mappings: z.array(GroupMappingSchema) });
export const SuccessMessageSchema = z.object({ success: z.boolean(), message: z.string() });
export type SuccessMessage = z.infer<typeof SuccessMessageSchema>;

export const RoleNameParamsSchema = z.object({ roleName: z.string().min(1).max(253) });
export const GroupEmailParamsSchema = z.object({ groupEmail: z.string().min(1).max(254) });
