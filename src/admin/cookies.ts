// Cookies as plain values: what a service asks its route to set (or clear), without a reply in sight.

export interface CookieAttributes {
  httpOnly: boolean;
  sameSite: 'lax' | 'strict' | 'none';
  secure: boolean;
  path: string;
  maxAge: number;
  expires?: Date;
}

export interface CookieToSet {
  name: string;
  value: string;
  options: CookieAttributes;
}

/** The cookie that replaces `name` with nothing, expired at once: the attributes must match the cookie it clears. */
export function clearedCookie(name: string, attributes: Omit<CookieAttributes, 'maxAge' | 'expires'>): CookieToSet {
  return { name, value: '', options: { ...attributes, maxAge: 0, expires: new Date(0) } };
}
