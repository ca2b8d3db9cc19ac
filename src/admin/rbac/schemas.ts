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
    resource: z.enum([...RESOURCES, '*']).meta({ description: 'What the rule grants access to (`*`: everything)' }),
    actions: z
      .array(z.enum([...ACTIONS, '*']))
      .min(1, 'must name at least one action')
      .max(ACTIONS.length + 1)
      .meta({ description: 'What may be done with it (`*`: every action)' }),
    namespace: RuleNamespaceSchema.optional().meta({
      description: 'Only in this Kubernetes namespace (`*` or absent: every namespace)',
    }),
  })
  .meta({ id: 'RbacRule', description: 'One permission of a role' });
const RulesSchema = z.array(RuleSchema).max(MAX_RULES_PER_ROLE, `at most ${MAX_RULES_PER_ROLE} rules per role`);
const DescriptionSchema = printableString({ max: 500 }).or(z.literal(''));

/** A role as stored, sent (POST /api/rbac/roles, PUT /api/rbac/) and answered. */
export const RoleSchema = z
  .strictObject({
    name: RoleNameSchema.meta({ description: 'The role name users and group mappings refer to' }),
    description: DescriptionSchema.optional().meta({ description: 'What the role is for' }),
    rules: RulesSchema.meta({ description: 'Its permissions' }),
    predefined: z
      .boolean()
      .optional()
      .meta({ description: 'Answered true for the shipped roles; a custom role cannot be predefined' }),
  })
  .meta({ id: 'RbacRole', description: 'A role: a name and its permissions' });
const ROLE_EXAMPLE = {
  name: 'auditor',
  description: 'Reads deployments and backups in the analytics namespace',
  rules: [
    { resource: 'clusters' as const, actions: ['list' as const, 'get' as const], namespace: 'analytics' },
    { resource: 'clusters.backups' as const, actions: ['list' as const], namespace: 'analytics' },
  ],
};
const MAPPING_EXAMPLE = { groupEmail: 'analysts@example.com', roleName: 'auditor', priority: 10 };
export type Role = z.infer<typeof RoleSchema>;

export const UpdateRoleSchema = z
  .strictObject({
    rules: RulesSchema.meta({ description: 'The new permissions (they replace the old ones)' }),
    description: DescriptionSchema.optional().meta({ description: 'The new description' }),
  })
  .meta({ examples: [{ rules: ROLE_EXAMPLE.rules, description: ROLE_EXAMPLE.description }] });
export type UpdateRole = z.infer<typeof UpdateRoleSchema>;

export const GroupMappingSchema = z
  .strictObject({
    groupEmail: EmailSchema.meta({
      description: "The IdP group's e-mail address, matched case-insensitively with the signed-in user's groups",
    }),
    roleName: RoleNameSchema.meta({ description: 'The role its members get' }),
    priority: z
      .int()
      .min(-MAX_PRIORITY)
      .max(MAX_PRIORITY)
      .meta({ description: "The highest priority among the user's matching groups decides the role" }),
  })
  .meta({ id: 'RbacGroupMapping', description: 'An identity-provider group and the role its members get' });
export type GroupMapping = z.infer<typeof GroupMappingSchema>;

export const UpdateGroupMappingSchema = GroupMappingSchema.pick({ roleName: true, priority: true }).meta({
  examples: [{ roleName: 'viewer', priority: 5 }],
});
/** A role as POST /api/rbac/roles takes it, with its example. */
export const CreateRoleBodySchema = RoleSchema.meta({ examples: [ROLE_EXAMPLE] });
/** A group mapping as POST /api/rbac/group-mappings takes it, with its example. */
export const CreateGroupMappingBodySchema = GroupMappingSchema.meta({ examples: [MAPPING_EXAMPLE] });
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
export const RbacConfigBodySchema = z
  .strictObject({
    config: z
      .strictObject({
        roles: RoleListSchema.meta({ description: 'Every role (predefined ones may be left out)' }),
        groupMappings: GroupMappingListSchema.optional().meta({ description: 'Every group mapping' }),
      })
      .meta({ description: 'The whole RBAC configuration' }),
  })
  .meta({ examples: [{ config: { roles: [ROLE_EXAMPLE], groupMappings: [MAPPING_EXAMPLE] } }] });
export type RbacConfigBody = z.infer<typeof RbacConfigBodySchema>;

const PREDEFINED_EXAMPLE = {
  name: 'viewer',
  description: 'Read-only access',
  rules: [{ resource: '*' as const, actions: ['list' as const, 'get' as const] }],
  predefined: true,
};
export const RbacConfigEnvelopeSchema = z
  .object({
    config: z
      .object({
        roles: z.array(RoleSchema).meta({ description: 'Every role, predefined and custom' }),
        groupMappings: z.array(GroupMappingSchema).meta({ description: 'Every group mapping' }),
      })
      .meta({ description: 'The whole RBAC configuration' }),
  })
  .meta({
    examples: [{ config: { roles: [PREDEFINED_EXAMPLE, ROLE_EXAMPLE], groupMappings: [MAPPING_EXAMPLE] } }],
  });
export const RoleListEnvelopeSchema = z
  .object({ roles: z.array(RoleSchema).meta({ description: 'Every role, predefined and custom' }) })
  .meta({ examples: [{ roles: [PREDEFINED_EXAMPLE, ROLE_EXAMPLE] }] });
export const RoleEnvelopeSchema = z.object({ role: RoleSchema }).meta({ examples: [{ role: ROLE_EXAMPLE }] });
export const GroupMappingListEnvelopeSchema = z
  .object({ mappings: z.array(GroupMappingSchema).meta({ description: 'Every group mapping' }) })
  .meta({ examples: [{ mappings: [MAPPING_EXAMPLE] }] });
export const SuccessMessageSchema = z.object({
  success: z.boolean().meta({ description: 'Always true' }),
  message: z.string().meta({ description: 'What was done' }),
});
export type SuccessMessage = z.infer<typeof SuccessMessageSchema>;
/** SuccessMessageSchema with an example of the text one route answers, for the API document. */
export const successSaying = (message: string) => SuccessMessageSchema.meta({ examples: [{ success: true, message }] });

export const RoleNameParamsSchema = z.object({
  roleName: z
    .string()
    .min(1)
    .max(253)
    .meta({ description: 'A role name', examples: ['auditor'] }),
});
export const GroupEmailParamsSchema = z.object({
  groupEmail: z
    .string()
    .min(1)
    .max(254)
    .meta({ description: "A group mapping's group e-mail", examples: ['analysts@example.com'] }),
});
