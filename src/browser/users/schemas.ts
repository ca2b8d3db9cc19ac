// Request and response shapes of /api/user (database users and their roles).
import { z } from 'zod';
import { verbatim } from '../../lib/verbatim-messages.js';
import { ROLES } from '../auth/roles.js';

/** ACL rule syntax gives meaning to spaces and to leading `>`, `<`, `~`, `+`, `-`, `&`, `%`: none of them may appear. */
export const UsernameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9_][A-Za-z0-9._@-]{0,127}$/,
    'must be 1-128 letters, digits, `_`, `.`, `@` or `-`, starting with a letter, digit or `_`',
  );
const PasswordSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(512)
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
  .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters');
const invalidRole = `Invalid role: must be one of ${ROLES.join(', ')}`;
const RoleSchema = z.enum(ROLES, { error: () => verbatim(invalidRole) });

export const CreateUserBodySchema = z.object({ username: UsernameSchema, password: PasswordSchema, role: RoleSchema });
export const DeleteUsersBodySchema = z.object({
  users: z
    .array(z.object({ username: UsernameSchema }))
    .min(1)
    .max(1000),
});
export const UserParamsSchema = z.object({ user: UsernameSchema });
// Required in the query (the browser API specification; docs/decisions/embedded-mode-persistence.md); the FalkorDB Browser's body copy is moved
// there before validation.
export const RoleQuerySchema = z.object({
  role: z.enum(ROLES, {
    error: (issue) => verbatim(issue.input === undefined ? 'Missing parameter role' : invalidRole),
  }),
});
export const RoleBodySchema = z.object({ role: RoleSchema.optional() }).nullish();
export const UserItemSchema = z.object({ username: z.string(), role: z.enum(ROLES), selected: z.boolean() });
export const UserListSchema = z.object({ result: z.array(UserItemSchema) });

export type UserItem = z.infer<typeof UserItemSchema>;

export type UserList = z.infer<typeof UserListSchema>;
