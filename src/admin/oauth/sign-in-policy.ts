// Pure sign-in policy over verified ID-token claims: provider checks, allowed domains, identity and role.
import { hasControlCharacter } from '../../lib/printable.js';
import { search } from '@jmespath-community/jmespath';
import { emailDomain, normalizeDomain } from '../../lib/email.js';
import type { RoleName } from '../permissions/permissions.js';
import { findRoleName, roleFromGroupMappings, rulesTable, type RbacConfig } from '../rbac/rbac-document.js';
import type { Settings } from '../settings/schemas.js';
import type { ProviderConfig } from './providers.js';

export type Claims = Record<string, unknown>;

/** A refusal with its HTTP status and the short code used for `/login?error=<code>`. */
export class SignInRefused extends Error {
  /** The identity's e-mail, once the provider has vouched for one (the audit log's actor). */
  email?: string;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SignInRefused';
  }
}

export interface Identity {
  subject: string;
  email: string;
  name: string;
  /** The provider vouches for the e-mail: only then may it link to an existing account (see mayLinkByEmail). */
  emailVerified: boolean;
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** allowed_domains as compared: lower case, ASCII (IDNA); entries that are not domain names match nothing. */
function allowedDomains(settings: Settings): string[] {
  return settings.oauth.allowed_domains.map(normalizeDomain).filter((domain) => domain !== undefined);
}

/** Checks the provider-specific claims and extracts who signed in. */
export function identityFrom(provider: ProviderConfig, claims: Claims, settings: Settings): Identity {
  const allowed = allowedDomains(settings);
  const restricted = settings.oauth.allowed_domains.length > 0;
  if (provider.type === 'alpha') {
    const email = text(claims.email);
    if (!email) throw new SignInRefused(403, 'email_missing', 'The identity provider did not share an e-mail address');
    if (claims.email_verified !== true)
      throw new SignInRefused(403, 'email_not_verified', `Email ${email} is not verified by the identity provider`);
    const hd = text(claims.hd);
    const hostedDomain = hd === undefined ? undefined : normalizeDomain(hd);
    if (restricted && (!hostedDomain || !allowed.includes(hostedDomain))) {
      throw new SignInRefused(
        403,
        'domain_not_allowed',
        `Email domain ${hostedDomain ?? hd ?? emailDomain(email) ?? '(none)'} is not allowed`,
      );
    }
    return { subject: String(claims.sub), email, name: text(claims.name) ?? email, emailVerified: true };
  }
  const tenant = text(claims.tid);
  if (!tenant || tenant !== provider.tenantId)
    throw new SignInRefused(403, 'tenant_not_allowed', `Tenant ${tenant ?? '(none)'} is not allowed`);
  const email = text(claims.email) ?? text(claims.preferred_username);
  if (!email) throw new SignInRefused(403, 'email_missing', 'The identity provider did not share an e-mail address');
  // Entra vouches for an e-mail only through these claims; without them the address may not be linked.
  const emailVerified = claims.email_verified === true || claims.xms_edov === true;
  return {
    subject: `${tenant}:${text(claims.oid) ?? String(claims.sub)}`,
    email,
    name: text(claims.name) ?? email,
    emailVerified,
  };
}

/**
 * allowed_domains applies to the e-mail's domain for every provider: the address must have exactly one `@`, and
 * its domain (lower case, IDNA to ASCII) must equal an allowed one. An address without a domain is refused.
 */
export function assertDomainAllowed(email: string, settings: Settings): void {
  if (settings.oauth.allowed_domains.length === 0) return;
  const domain = emailDomain(email);
  if (domain === undefined)
    throw new SignInRefused(
      403,
      'domain_not_allowed',
      `Email ${email} has no single domain to check against allowed_domains`,
    );
  if (!allowedDomains(settings).includes(domain))
    throw new SignInRefused(403, 'domain_not_allowed', `Email domain ${domain} is not allowed`);
}

/** What linking needs to know of an existing account. */
export interface LinkCandidate {
  provider: 'local' | 'alpha' | 'beta';
  identities?: { alpha?: string; beta?: string };
  passwordHash?: string;
}

/**
 * Whether a provider-verified sign-in with the e-mail of an existing account, not yet linked to this identity, may
 * take that account over (it linked into any local account, the local admin included). Only:
 * - an account the same provider created (auto-onboarding) and not linked to another subject of it, or
 * - an invitation: an account an admin created without a password ("OAuth sign-in only") that no provider has
 *   claimed yet.
 * A local account with a password, or one already claimed by another provider, is never linked.
 */
export function mayLinkByEmail(account: LinkCandidate, provider: 'alpha' | 'beta'): boolean {
  const identities = account.identities ?? {};
  if (identities[provider] !== undefined) return false;
  if (account.provider === provider) return true;
  const invitation =
    account.provider === 'local' &&
    !account.passwordHash &&
    Object.values(identities).every((subject) => subject === undefined);
  return invitation;
}

/**
 * Evaluates role_attribute_path: a string naming an existing role (shipped or custom; any case) counts, anything
 * else (another value, an error) counts as no role.
 */
export function resolveRole(expression: string, profile: Claims, rbac: RbacConfig): RoleName | undefined {
  if (!expression) return undefined;
  try {
    const value = search(profile as Parameters<typeof search>[0], expression);
    return typeof value === 'string' ? findRoleName(rbac, value) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The role an OAuth sign-in gets (docs/decisions/rbac-as-data.md): role_attribute_path first, when it yields an
 * existing role; otherwise the group mappings, whose highest-priority match among `groups` (compared ignoring case)
 * decides; otherwise none (the caller keeps the user's role, or refuses under role_attribute_strict).
 */
export function resolveSignInRole(
  expression: string,
  profile: Claims,
  groups: readonly string[],
  rbac: RbacConfig,
): RoleName | undefined {
  const roles = rulesTable(rbac);
  return (
    resolveRole(expression, profile, rbac) ?? roleFromGroupMappings(groups, rbac.groupMappings, (n) => roles.has(n))
  );
}

/** `returnTo` must be a same-origin path: one leading `/`, not `//` or `/\`, no control characters. */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || value.length > 2048 || !/^\/(?![/\\])/.test(value) || hasControlCharacter(value))
    return '/';
  // The Location header carries visible ASCII only (anything else makes Node throw): the rest is sent
  // percent-encoded as UTF-8, as a browser would; text that is not valid UTF-16 (a lone surrogate) goes to /.
  try {
    return value.replace(/[^\x21-\x7e]+/g, (run) => encodeURIComponent(run));
  } catch {
    return '/';
  }
}
