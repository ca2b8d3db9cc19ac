// Shapes of /api/users/ (keyed by e-mail) and /api/users/me/: the FalkorDB Enterprise admin API's User object and its requests.
import { z } from 'zod';
import { EmailSchema } from '../../lib/email.js';
import { ADMIN_ROLES } from '../permissions/permissions.js';

const StatusSchema = z.enum(['active', 'disabled']);
const SourceSchema = z.enum(['local', 'alpha', 'beta']);

/** The FalkorDB Enterprise admin API's User (google → alpha, azure → beta). No id, no password hash: users are named by e-mail. */
export const UserSchema = z
  .object({
    email: z.string(),
    name: z.string(),
    role: z.string().describe(`A predefined role (${ADMIN_ROLES.join(', ')}) or a custom one (GET /api/rbac/roles)`),
    lastLogin: z.string().optional().describe('When the user last signed in (ISO 8601); absent if never'),
    source: SourceSchema.describe('How the user signs in: a local password, or provider alpha or beta'),
    status: StatusSchema,
    createdAt: z.string(),
    mustChangePassword: z
      .boolean()
      .describe('Set by an admin password reset: until it is changed, the session may only change it'),
  })
  .meta({ id: 'AdminUser' });

const PasswordSchema = z.string().min(8, 'must be at least 8 characters long').max(1024);
const NameSchema = z.string().trim().min(1).max(200);
// Any name reaches the service, which checks it against the roles there are (users/role-check.ts).
const RoleNameSchema = z
  .string()
  .min(1)
  .max(64)
  .describe(`A role name: a predefined one (${ADMIN_ROLES.join(', ')}) or a custom one (GET /api/rbac/roles)`);

export const CreateUserSchema = z.strictObject({
  email: EmailSchema,
  name: NameSchema.optional().describe('Display name; the e-mail when absent'),
  role: RoleNameSchema,
  source: SourceSchema.optional().describe('local (default), alpha or beta'),
  password: PasswordSchema.optional().describe(
    'Local users only; without one a local user is an invitation, claimed by the first OAuth sign-in with a verified e-mail',
  ),
  status: StatusSchema.optional().describe('active (default) or disabled'),
});
export const UpdateUserSchema = z.strictObject({
  name: NameSchema.optional(),
  role: RoleNameSchema.optional(),
  status: StatusSchema.optional(),
});
export const UserEmailParamsSchema = z.object({ email: EmailSchema });
export const ListUsersQuerySchema = z.object({
  role: z.string().max(64).optional(),
  status: StatusSchema.optional(),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
export const UserListSchema = z.object({
  users: z.array(UserSchema),
  pagination: z.object({
    page: z.number(),
    limit: z.number(),
    total: z.number(),
    totalPages: z.number(),
  }),
});
export const ResetPasswordBodySchema = z.strictObject({});
export const ResetPasswordResultSchema = z.object({
  message: z.string(),
  tempPassword: z.string().describe('The new temporary password: shown this once, stored only as its hash'),
});
export const ChangePasswordBodySchema = z.strictObject({
  currentPassword: z.string().min(1).max(1024),
  newPassword: PasswordSchema,
});
export const MessageSchema = z.object({ message: z.string() });
export const NoContentSchema = z.null().describe('Deleted; no body');
