// Shapes of /api/serviceaccounts/ and its tokens. Views are built by picking fields: a token's hash never leaves
// the store, and its text is answered once, by the creation route only.
import { z } from 'zod';
import { printableString } from '../../lib/printable.js';
import { ServiceAccountNameSchema } from '../../lib/service-accounts-bootstrap.js';
import { parseCidr } from '../../lib/service-account-tokens.js';

/** At most this many tokens per account (rotation needs two; a few more for overlapping pipelines). */
export const MAX_TOKENS_PER_ACCOUNT = 20;
export const MAX_SERVICE_ACCOUNTS = 500;
const MAX_CIDRS = 32;

const DescriptionSchema = printableString({ max: 500 }).or(z.literal(''));
const RoleSchema = z
  .string()
  .min(1)
  .max(64)
  .describe('A role name: a predefined one (admin, operator, viewer) or a custom one (GET /api/rbac/roles)');
const CidrSchema = z
  .string()
  .max(64)
  .refine((text) => parseCidr(text) !== undefined, 'must be an IP address or a CIDR block such as 10.0.0.0/8');

export const ServiceAccountSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().optional(),
    role: z.string(),
    disabled: z.boolean(),
    createdAt: z.string(),
    createdBy: z.string().describe('Who created it: an e-mail, or serviceaccount:<name> for another account'),
    tokens: z.number().describe('How many tokens it has (expired ones included until revoked)'),
  })
  .meta({ id: 'ServiceAccount' });
export type ServiceAccountView = z.infer<typeof ServiceAccountSchema>;

export const ServiceAccountListSchema = z.object({ serviceAccounts: z.array(ServiceAccountSchema) });

export const CreateServiceAccountSchema = z.strictObject({
  name: ServiceAccountNameSchema,
  description: DescriptionSchema.optional(),
  role: RoleSchema,
  disabled: z.boolean().optional().describe('false by default'),
});
export type CreateServiceAccount = z.infer<typeof CreateServiceAccountSchema>;

export const UpdateServiceAccountSchema = z.strictObject({
  description: DescriptionSchema.optional(),
  role: RoleSchema.optional(),
  disabled: z.boolean().optional().describe('true: every token of the account stops at once, on every replica'),
});
export type UpdateServiceAccount = z.infer<typeof UpdateServiceAccountSchema>;

export const ServiceAccountParamsSchema = z.object({ id: z.string().min(1).max(64) });
export const TokenParamsSchema = z.object({ id: z.string().min(1).max(64), tokenId: z.string().min(1).max(64) });

export const TokenSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    createdAt: z.string(),
    createdBy: z.string(),
    expiresAt: z.string(),
    expired: z.boolean(),
    allowedCidrs: z.array(z.string()),
    lastUsedAt: z.string().optional().describe('Recorded at most once a minute per token'),
    lastUsedIp: z.string().optional(),
  })
  .meta({ id: 'ServiceAccountToken' });
export type TokenView = z.infer<typeof TokenSchema>;

export const TokenListSchema = z.object({ tokens: z.array(TokenSchema) });

export const CreateTokenSchema = z.strictObject({
  name: printableString({ max: 100 }),
  expiresInDays: z
    .int()
    .min(1)
    .max(3650)
    .describe('Required: days until the token stops working; at most service_accounts.max_token_lifetime_days'),
  allowedCidrs: z
    .array(CidrSchema)
    .max(MAX_CIDRS)
    .optional()
    .describe('Source addresses the token may be used from (CIDR blocks or addresses); any when absent or empty'),
});
export type CreateToken = z.infer<typeof CreateTokenSchema>;

export const CreatedTokenSchema = z
  .object({
    token: TokenSchema,
    key: z.string().describe('The token itself (gdbsa_…): shown this once, stored only as a hash'),
  })
  .meta({ id: 'CreatedServiceAccountToken' });
export const NoContentSchema = z.null().describe('No content');
