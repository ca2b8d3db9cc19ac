// Shapes of the /api/users endpoints.
import { z } from 'zod';
import { EmailSchema } from '../../shared/email.js';
import { ADMIN_ROLES } from '../permissions/permissions.js';
import { UserViewSchema } from '../sessions/schemas.js';

export const ManagedUserSchema = UserViewSchema.extend({
  disabled: z.boolean(),
  createdAt: z.string(),
  lastLoginAt: z.string().nullable(),
}).meta({ id: 'ManagedAdminUser' });
const PasswordSchema = z.string().min(8, 'must be at least 8 characters long').max(1024);
export const CreateUserSchema = z.strictObject({
  email: EmailSchema,
  name: z.string().trim().min(1).max(200),
  role: z.enum(ADMIN_ROLES),
  password: PasswordSchema.optional(),
});
export const UpdateUserSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  role: z.enum(ADMIN_ROLES).optional(),
  disabled: z.boolean().optional(),
  password: PasswordSchema.optional(),
});
export const UserIdParamsSchema = z.object({ id: z.uuid('must be a user id') });

export const ManagedUserListSchema = z.object({ users: z.array(ManagedUserSchema) });
export const ManagedUserEnvelopeSchema = z.object({ user: ManagedUserSchema });
export const UserDeletedSchema = z.object({ message: z.string() });
