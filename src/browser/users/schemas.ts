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

/** Most key patterns one user may be limited to; each becomes one ACL `~pattern` rule. */
export const MAX_KEY_PATTERNS = 100;
/** A key pattern in ACL glob syntax (`*`, `?`, `[…]`); spaces would split the ACL rule, so none may appear. */
const KeyPatternSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(256)
  // eslint-disable-next-line no-control-regex -- control characters and spaces are exactly what is refused here
  .regex(/^[^\u0000-\u0020\u007f]+$/, 'must not contain spaces or control characters')
  .meta({ description: 'A key (graph name) pattern in glob syntax: `*`, `?` and `[…]` match as in Redis' });
const KeysSchema = z
  .array(KeyPatternSchema)
  .max(MAX_KEY_PATTERNS)
  .meta({
    description:
      'The graphs (keys) the user may reach, as glob patterns; absent or empty: all of them (`*`). Each pattern becomes an ACL `~pattern` rule.',
    example: ['sales*', 'social'],
  });

const ROLE_DESCRIPTION = 'The role: `Admin` (everything), `Read-Write` (queries that write) or `Read-Only`';
export const CreateUserBodySchema = z
  .object({
    username: UsernameSchema.meta({ description: 'The new database user’s name' }),
    password: PasswordSchema.meta({ description: 'Its password' }),
    role: RoleSchema.meta({ description: ROLE_DESCRIPTION }),
    keys: KeysSchema.optional(),
  })
  .meta({ examples: [{ username: 'analyst', password: 'a long passphrase', role: 'Read-Only', keys: ['sales*'] }] });
export const DeleteUsersBodySchema = z
  .object({
    users: z
      .array(z.object({ username: UsernameSchema.meta({ description: 'The database user’s name' }) }))
      .min(1)
      .max(1000)
      .meta({ description: 'The users to delete (1 to 1000)' }),
  })
  .meta({ examples: [{ users: [{ username: 'analyst' }, { username: 'reporting' }] }] });
export const UserParamsSchema = z.object({
  user: UsernameSchema.meta({ description: 'The database user’s name', examples: ['analyst'] }),
});
// Required in the query (the browser API specification; docs/decisions/embedded-mode-persistence.md); the FalkorDB Browser's body copy is moved
// there before validation.
export const RoleQuerySchema = z.object({
  role: z
    .enum(ROLES, {
      error: (issue) => verbatim(issue.input === undefined ? 'Missing parameter role' : invalidRole),
    })
    .meta({ description: `The new role. ${ROLE_DESCRIPTION}`, examples: ['Read-Write'] }),
});
/**
 * The FalkorDB Browser sends the role in the body, with the user's key patterns and, to change it, a new password
 * (which replaces the old ones). The role is moved to the query before validation.
 */
export const UpdateUserBodySchema = z
  .object({
    role: RoleSchema.optional().meta({
      description: 'The new role, as the FalkorDB Browser sends it (the query parameter wins when both are sent)',
    }),
    keys: KeysSchema.optional(),
    password: PasswordSchema.optional().meta({
      description:
        "A new password: it replaces the user's passwords, and the user's tokens (made with the old one) are revoked",
    }),
  })
  .nullish()
  .meta({ examples: [{ role: 'Read-Write', keys: ['sales*', 'social'] }] });
const USER_EXAMPLE = { username: 'analyst', role: 'Read-Only', keys: ['sales*'], selected: false } as const;
export const UserItemSchema = z
  .object({
    username: z.string().meta({ description: 'The database user’s name' }),
    role: z.enum(ROLES).meta({ description: ROLE_DESCRIPTION }),
    keys: z
      .array(z.string())
      .meta({ description: 'The key (graph name) patterns the user may reach; `["*"]` for all of them' }),
    selected: z.boolean().meta({ description: 'Always false (the FalkorDB Browser keeps its selection there)' }),
  })
  .meta({ examples: [USER_EXAMPLE] });
export const UserListSchema = z
  .object({ result: z.array(UserItemSchema).meta({ description: 'The database users' }) })
  .meta({
    examples: [{ result: [{ username: 'default', role: 'Admin', keys: ['*'], selected: false }, USER_EXAMPLE] }],
  });

export type UserItem = z.infer<typeof UserItemSchema>;

export type UserList = z.infer<typeof UserListSchema>;
