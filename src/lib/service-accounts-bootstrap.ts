// Service accounts declared at start-up (SERVICE_ACCOUNTS_BOOTSTRAP, which the chart renders from
// adminServer.serviceAccountsBootstrap), for GitOps: each account with its role, and tokens whose text comes from an
// environment variable the chart fills from a Secret. This module parses the declaration (the configuration does, at
// start-up); admin/service-accounts/bootstrap.ts applies it. A token's text is read here and hashed when applied; it is
// never stored, logged or echoed in an error, which names the variable instead.
import { z } from 'zod';
import { DNS_LABEL_CHARACTERS } from './kubernetes-names.js';
import { parseCidr, wellFormedToken } from './service-account-tokens.js';

/** A DNS-label-like name: what the CLI, audit entries and the chart's bootstrap name an account by. */
export const ServiceAccountNameSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(63, 'must be at most 63 characters')
  .regex(
    DNS_LABEL_CHARACTERS,
    'must be lower-case letters, digits and `-`, starting and ending with a letter or digit',
  );

const TokenEntrySchema = z.strictObject({
  name: ServiceAccountNameSchema,
  /** The environment variable holding the token's text (`gdbsa_…`, from `graphdb-admin serviceaccounts tokens generate`). */
  tokenVariable: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'must be an environment variable name'),
  expiresAt: z.iso.datetime({ offset: true }),
  allowedCidrs: z
    .array(z.string().refine((text) => parseCidr(text) !== undefined, 'must be an IP address or a CIDR block'))
    .max(32)
    .optional(),
});

const AccountEntrySchema = z.strictObject({
  name: ServiceAccountNameSchema,
  role: z.string().min(1).max(64),
  description: z.string().max(500).optional(),
  disabled: z.boolean().optional(),
  tokens: z.array(TokenEntrySchema).max(20).optional(),
});

const ManifestSchema = z.array(AccountEntrySchema).max(500);

export interface BootstrapToken {
  name: string;
  /** The token's text: hashed when applied, never kept in the store or written anywhere. */
  text: string;
  expiresAt: string;
  allowedCidrs?: string[];
}

export interface BootstrapAccount {
  name: string;
  role: string;
  description?: string;
  disabled?: boolean;
  tokens: BootstrapToken[];
}

/**
 * The accounts SERVICE_ACCOUNTS_BOOTSTRAP declares, their tokens' texts read from `env`. Throws a list of problems
 * (each naming where, never a token's text) when the declaration is not valid JSON of the right shape, a variable is
 * unset or does not hold a well-formed token, or a name or a text is used twice.
 */
export function parseServiceAccountsBootstrap(
  text: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): BootstrapAccount[] {
  if (text === undefined || text.trim() === '') return [];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BootstrapError(['must be a JSON array of service accounts']);
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success)
    throw new BootstrapError(
      parsed.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(top)'}: ${issue.message}`),
    );
  const problems: string[] = [];
  const accountNames = new Set<string>();
  const texts = new Set<string>();
  const accounts = parsed.data.map((entry, i): BootstrapAccount => {
    if (accountNames.has(entry.name)) problems.push(`${i}.name: service account ${entry.name} is declared twice`);
    accountNames.add(entry.name);
    const tokenNames = new Set<string>();
    const tokens = (entry.tokens ?? []).flatMap((token, j): BootstrapToken[] => {
      const where = `${i}.tokens.${j}`;
      if (tokenNames.has(token.name)) problems.push(`${where}.name: token ${token.name} is declared twice`);
      tokenNames.add(token.name);
      const value = env[token.tokenVariable]?.trim();
      if (!value) {
        problems.push(`${where}.tokenVariable: ${token.tokenVariable} is not set`);
        return [];
      }
      if (!wellFormedToken(value)) {
        problems.push(
          `${where}.tokenVariable: ${token.tokenVariable} does not hold a service account token (make one with graphdb-admin serviceaccounts tokens generate)`,
        );
        return [];
      }
      if (texts.has(value)) problems.push(`${where}.tokenVariable: ${token.tokenVariable} holds a token used twice`);
      texts.add(value);
      return [
        {
          name: token.name,
          text: value,
          expiresAt: new Date(token.expiresAt).toISOString(),
          ...(token.allowedCidrs && token.allowedCidrs.length > 0 ? { allowedCidrs: token.allowedCidrs } : {}),
        },
      ];
    });
    return {
      name: entry.name,
      role: entry.role,
      ...(entry.description !== undefined ? { description: entry.description } : {}),
      ...(entry.disabled !== undefined ? { disabled: entry.disabled } : {}),
      tokens,
    };
  });
  if (problems.length > 0) throw new BootstrapError(problems);
  return accounts;
}

export class BootstrapError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
    this.name = 'BootstrapError';
  }
}
