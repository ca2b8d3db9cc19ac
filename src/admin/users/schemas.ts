// Shapes of /api/users/ (keyed by e-mail) and /api/users/me/: the FalkorDB Enterprise admin API's User object and its requests.
import { z } from 'zod';
import { queryInteger, wholeNumber } from '../../lib/wire-values.js';
import { EmailSchema } from '../../lib/email.js';
import { timestamp } from '../../lib/timestamp-schema.js';
import { ADMIN_ROLES } from '../permissions/permissions.js';

const StatusSchema = z.enum(['active', 'disabled']).meta({ description: 'A disabled user cannot sign in' });
const SourceSchema = z.enum(['local', 'alpha', 'beta']).meta({ description: 'How the user signs in' });

/** The FalkorDB Enterprise admin API's User (google → alpha, azure → beta). No id, no password hash: users are named by e-mail. */
const UserFields = z.object({
  email: z.string().describe("The user's e-mail, which names it"),
  name: z.string().describe('Display name'),
  role: z.string().describe(`A predefined role (${ADMIN_ROLES.join(', ')}) or a custom one (GET /api/rbac/roles)`),
  lastLogin: timestamp('When the user last signed in; absent if never').optional(),
  source: SourceSchema.describe('How the user signs in: a local password, or provider alpha or beta'),
  status: StatusSchema,
  createdAt: timestamp('When the user was created'),
  mustChangePassword: z
    .boolean()
    .describe('Set by an admin password reset: until it is changed, the session may only change it'),
});
export type AdminUserExample = z.infer<typeof UserFields>;
export const ADMIN_USER_EXAMPLE: AdminUserExample = {
  email: 'ada@example.com',
  name: 'Ada Lovelace',
  role: 'admin',
  lastLogin: '2026-11-28T09:30:00.000Z',
  source: 'local',
  status: 'active',
  createdAt: '2026-11-01T08:00:00.000Z',
  mustChangePassword: false,
};
export const UserSchema = UserFields.meta({
  id: 'AdminUser',
  description: 'An admin API user, named by e-mail (no id, no password hash)',
  examples: [ADMIN_USER_EXAMPLE],
});
/** UserSchema, as the operations answer it (the AdminUser component carries the example). */
export const UserAnswerSchema = UserSchema;

const PasswordSchema = z.string().min(8, 'must be at least 8 characters long').max(1024);
const NameSchema = z.string().trim().min(1).max(200);
// Any name reaches the service, which checks it against the roles there are (users/role-check.ts).
const RoleNameSchema = z
  .string()
  .min(1)
  .max(64)
  .describe(`A role name: a predefined one (${ADMIN_ROLES.join(', ')}) or a custom one (GET /api/rbac/roles)`);

export const CreateUserSchema = z
  .strictObject({
    email: EmailSchema.describe("The new user's e-mail, which names it"),
    name: NameSchema.optional().describe('Display name; the e-mail when absent'),
    role: RoleNameSchema,
    source: SourceSchema.optional().describe('local (default), alpha or beta'),
    password: PasswordSchema.optional().describe(
      'Local users only; without one a local user is an invitation, claimed by the first OAuth sign-in with a verified e-mail',
    ),
    status: StatusSchema.optional().describe('active (default) or disabled'),
  })
  .meta({
    examples: [{ email: 'ada@example.com', name: 'Ada Lovelace', role: 'admin', password: 'a long passphrase' }],
  });
export const UpdateUserSchema = z
  .strictObject({
    name: NameSchema.optional().describe('New display name'),
    role: RoleNameSchema.optional(),
    status: StatusSchema.optional().describe('active or disabled'),
  })
  .meta({ examples: [{ role: 'viewer', status: 'disabled' }] });
export const UserEmailParamsSchema = z.object({
  email: EmailSchema.describe("The user's e-mail").meta({ examples: ['ada@example.com'] }),
});
export const ListUsersQuerySchema = z.object({
  role: z.string().max(64).optional().describe('Only users with this role'),
  status: StatusSchema.optional().describe('Only users with this status'),
  page: queryInteger(wholeNumber(1, 1_000_000).default(1)).describe('Page number, from 1'),
  limit: queryInteger(wholeNumber(1, 100).default(50)).describe('Users per page'),
});
export const UserListSchema = z
  .object({
    users: z.array(UserSchema).describe('The users of this page'),
    pagination: z
      .object({
        page: z.number().describe('This page number'),
        limit: z.number().describe('Users per page'),
        total: z.number().describe('Users matching, on all pages'),
        totalPages: z.number().describe('How many pages there are'),
      })
      .describe('Where this page is'),
  })
  .meta({
    examples: [{ users: [ADMIN_USER_EXAMPLE], pagination: { page: 1, limit: 50, total: 1, totalPages: 1 } }],
  });
export const ResetPasswordBodySchema = z.strictObject({}).meta({ examples: [{}] });
export const ResetPasswordResultSchema = z
  .object({
    message: z.string().describe('Always `Password reset successfully`'),
    tempPassword: z.string().describe('The new temporary password: shown this once, stored only as its hash'),
  })
  .meta({ examples: [{ message: 'Password reset successfully', tempPassword: 'q7Vx-3kPz-Wm9d-Rt2c' }] });
export const ChangePasswordBodySchema = z
  .strictObject({
    currentPassword: z.string().min(1).max(1024).describe('The present password'),
    newPassword: PasswordSchema.describe('The new password (at least 8 characters)'),
  })
  .meta({ examples: [{ currentPassword: 'a long passphrase', newPassword: 'a longer passphrase' }] });
export const MessageSchema = z
  .object({ message: z.string().describe('What was done') })
  .meta({ examples: [{ message: 'Password changed successfully' }] });
export const NoContentSchema = z.null().describe('Deleted; no body');
