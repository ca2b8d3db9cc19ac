// Shapes of /api/serviceaccounts/ and its tokens. Views are built by picking fields: a token's hash never leaves
// the store, and its text is answered once, by the creation route only.
import { z } from 'zod';
import { printableString } from '../../lib/printable.js';
import { ServiceAccountNameSchema } from '../../lib/service-accounts-bootstrap.js';
import { parseCidr } from '../../lib/service-account-tokens.js';
import { timestamp } from '../../lib/timestamp-schema.js';

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

const ServiceAccountFields = z.object({
  id: z.string().describe("The account's id, which names it in the paths"),
  name: z.string().describe("The account's unique name (`serviceaccount:<name>` in the audit log)"),
  description: z.string().optional().describe('What the account is for'),
  role: z.string().describe('The role its tokens act with: a predefined one or a custom one (GET /api/rbac/roles)'),
  disabled: z.boolean().describe('A disabled account’s tokens are refused'),
  createdAt: timestamp('When the account was created'),
  createdBy: z.string().describe('Who created it: an e-mail, or serviceaccount:<name> for another account'),
  tokens: z.number().describe('How many tokens it has (expired ones included until revoked)'),
});
export type ServiceAccountView = z.infer<typeof ServiceAccountFields>;
const SERVICE_ACCOUNT_EXAMPLE: ServiceAccountView = {
  id: '0b6f3c1e-5d2a-4e8f-9a47-3c1d2e5f6a70',
  name: 'ci-deployer',
  description: 'Deploys from the CI pipeline',
  role: 'operator',
  disabled: false,
  createdAt: '2026-11-02T10:15:00.000Z',
  createdBy: 'ada@example.com',
  tokens: 1,
};
export const ServiceAccountSchema = ServiceAccountFields.meta({
  id: 'ServiceAccount',
  description: 'An identity for automation; it signs in with its bearer tokens',
  examples: [SERVICE_ACCOUNT_EXAMPLE],
});

export const ServiceAccountListSchema = z
  .object({ serviceAccounts: z.array(ServiceAccountSchema).describe('Every service account') })
  .meta({ examples: [{ serviceAccounts: [SERVICE_ACCOUNT_EXAMPLE] }] });

const ACCOUNT_DESCRIPTION = 'What the account is for (at most 500 characters; empty to clear it)';
export const CreateServiceAccountSchema = z
  .strictObject({
    name: ServiceAccountNameSchema.describe("The account's unique name"),
    description: DescriptionSchema.optional().describe(ACCOUNT_DESCRIPTION),
    role: RoleSchema,
    disabled: z.boolean().optional().describe('false by default'),
  })
  .meta({ examples: [{ name: 'ci-deployer', description: 'Deploys from the CI pipeline', role: 'operator' }] });
export type CreateServiceAccount = z.infer<typeof CreateServiceAccountSchema>;

export const UpdateServiceAccountSchema = z
  .strictObject({
    description: DescriptionSchema.optional().describe(ACCOUNT_DESCRIPTION),
    role: RoleSchema.optional(),
    disabled: z.boolean().optional().describe('true: every token of the account stops at once, on every replica'),
  })
  .meta({ examples: [{ role: 'viewer', disabled: true }] });
export type UpdateServiceAccount = z.infer<typeof UpdateServiceAccountSchema>;

const AccountIdSchema = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: "The service account's id", examples: [SERVICE_ACCOUNT_EXAMPLE.id] });
export const ServiceAccountParamsSchema = z.object({ id: AccountIdSchema });
export const TokenParamsSchema = z.object({
  id: AccountIdSchema,
  tokenId: z
    .string()
    .min(1)
    .max(64)
    .meta({ description: "The token's id", examples: ['5f2a9c0e7b14'] }),
});

const TokenFields = z.object({
  id: z.string().describe("The token's id (not the token: that is shown once, at creation)"),
  name: z.string().describe("The token's name, unique within its account"),
  createdAt: timestamp('When the token was created'),
  createdBy: z.string().describe('Who created it: an e-mail, or serviceaccount:<name>'),
  expiresAt: timestamp('When the token stops working'),
  expired: z.boolean().describe('Whether it has stopped working (it is kept until revoked)'),
  allowedCidrs: z
    .array(z.string())
    .describe('Source addresses the token may be used from (CIDR blocks or addresses); empty: any'),
  lastUsedAt: timestamp('When the token was last used; recorded at most once a minute per token').optional(),
  lastUsedIp: z.string().optional().describe('The address it was last used from'),
});
export type TokenView = z.infer<typeof TokenFields>;
const TOKEN_EXAMPLE: TokenView = {
  id: '5f2a9c0e7b14',
  name: 'pipeline',
  createdAt: '2026-11-02T10:16:00.000Z',
  createdBy: 'ada@example.com',
  expiresAt: '2027-02-02T10:16:00.000Z',
  expired: false,
  allowedCidrs: ['10.0.0.0/8'],
  lastUsedAt: '2026-11-28T08:01:12.000Z',
  lastUsedIp: '10.2.3.4',
};
export const TokenSchema = TokenFields.meta({
  id: 'ServiceAccountToken',
  description: "A service account token's record (never the token itself)",
  examples: [TOKEN_EXAMPLE],
});

export const TokenListSchema = z
  .object({ tokens: z.array(TokenSchema).describe("The account's tokens") })
  .meta({ examples: [{ tokens: [TOKEN_EXAMPLE] }] });

export const CreateTokenSchema = z
  .strictObject({
    name: printableString({ max: 100 }).describe("The token's name, unique within its account"),
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
  })
  .meta({ examples: [{ name: 'pipeline', expiresInDays: 90, allowedCidrs: ['10.0.0.0/8'] }] });
export type CreateToken = z.infer<typeof CreateTokenSchema>;

export const CreatedTokenSchema = z
  .object({
    token: TokenSchema.describe("The new token's record"),
    key: z.string().describe('The token itself (gdbsa_…): shown this once, stored only as a hash'),
  })
  .meta({
    id: 'CreatedServiceAccountToken',
    description: 'A new token: its record and, this once, the token itself',
    examples: [
      {
        token: {
          id: '9c41d7e2a0b3',
          name: 'pipeline-2',
          createdAt: '2026-11-28T12:00:00.000Z',
          createdBy: 'ada@example.com',
          expiresAt: '2027-02-26T12:00:00.000Z',
          expired: false,
          allowedCidrs: ['10.0.0.0/8'],
        },
        key: 'gdbsa_4Fq9ZkT2mW7xR1bN8cV3pL6sD0hJ5gYaQe2K9t',
      },
    ],
  });
export const NoContentSchema = z.null().describe('No content');
