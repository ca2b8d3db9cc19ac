// E-mail addresses as the server accepts them, one rule everywhere (the user store, settings, group mappings, the
// first admin's ADMIN_EMAIL): a dot-atom local part of at most 64 characters, `@`, and a host name of one or more
// labels, 254 characters in all. A single-label host is allowed because the embedded deployment's first admin is
// `admin@localhost`, and a user the store holds must be addressable by every route that names users by e-mail
// (docs/decisions/email-rule.md). The document carries the pattern rather than `format: email`, whose usual checkers
// want a dot in the domain.
import { domainToASCII } from 'node:url';
import { z } from 'zod';

const MAX_LOCAL_PART = 64;

const LOCAL_PART = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*";
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
export const EMAIL_PATTERN = new RegExp(`^${LOCAL_PART}@${LABEL}(?:\\.${LABEL})*$`);

export const EmailSchema = z
  .string()
  .max(254, 'must be an e-mail address of at most 254 characters')
  .regex(EMAIL_PATTERN, 'must be an e-mail address')
  .refine(
    (address) => address.slice(0, address.lastIndexOf('@')).length <= MAX_LOCAL_PART,
    `must have at most ${MAX_LOCAL_PART} characters before the @`,
  )
  .meta({
    description:
      'An e-mail address: a local part of at most 64 characters, `@`, and a host name (one label, such as `localhost`, is allowed); at most 254 characters',
    example: 'ada@example.com',
  });

/** A DNS name in ASCII: dot-separated labels of letters, digits and inner hyphens, two labels at least. */
const ASCII_DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/**
 * A domain as it is compared with allowed domains: lower-cased and converted to ASCII with IDNA (as `node:url` does
 * for host names), or undefined when it is not a domain name. `domainToASCII` drops anything after `/`, `\`, `?`
 * or `#`, so those characters (and whitespace) are refused before it runs.
 */
export function normalizeDomain(domain: string): string | undefined {
  if (/[/\\?#\s\p{Cc}]/u.test(domain)) return undefined;
  const ascii = domainToASCII(domain.toLowerCase());
  return ASCII_DOMAIN.test(ascii) ? ascii : undefined;
}

/**
 * The domain of an address, normalized as normalizeDomain does: exactly one `@` with text on both sides, and a
 * domain name after it. Undefined for anything else (`eve@corp.example@evil.example` has no domain).
 */
export function emailDomain(address: string): string | undefined {
  const at = address.indexOf('@');
  if (at <= 0 || at !== address.lastIndexOf('@')) return undefined;
  return normalizeDomain(address.slice(at + 1));
}
