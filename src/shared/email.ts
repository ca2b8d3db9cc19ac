// E-mail addresses as the server accepts them: zod's address syntax within RFC 5321's limits (a local part of
// at most 64 characters, 254 in all), so every address it stores also passes the `format: email` it documents.
import { domainToASCII } from 'node:url';
import { z } from 'zod';

const MAX_LOCAL_PART = 64;

export const EmailSchema = z
  .email('must be an e-mail address')
  .max(254)
  .refine(
    (address) => address.slice(0, address.lastIndexOf('@')).length <= MAX_LOCAL_PART,
    `must have at most ${MAX_LOCAL_PART} characters before the @`,
  );

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
