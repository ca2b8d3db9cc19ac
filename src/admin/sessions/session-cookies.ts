// The session cookies: their attributes, the cookies that start or end a session, and which cookie a request's
// session is read from.
import { clearedCookie, type CookieAttributes, type CookieToSet } from '../cookies.js';

export const SESSION_COOKIE = 'token';
/**
 * With `Secure`, the session is also set under this name. Browsers accept a `__Host-` cookie only from this exact
 * origin, over HTTPS, for path `/`, so a sibling subdomain cannot plant one (cookie tossing, session fixation).
 * Browsers' requests (they send `Sec-Fetch-Site`) are authenticated by it alone; other clients keep the specified
 * `token`.
 */
export const HOST_ONLY_SESSION_COOKIE = '__Host-token';

/** `Secure` is set unless the public origin is plain http. */
export function sessionCookieAttributes(publicOrigin: string, maxAge: number): CookieAttributes {
  return {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: !publicOrigin.startsWith('http://'),
    maxAge,
  };
}

/** The cookies carrying a new session JWT: `token`, and `__Host-token` too when they are `Secure`. */
export function sessionCookies(jwt: string, publicOrigin: string, ttlSeconds: number): CookieToSet[] {
  const options = sessionCookieAttributes(publicOrigin, ttlSeconds);
  const names = options.secure ? [SESSION_COOKIE, HOST_ONLY_SESSION_COOKIE] : [SESSION_COOKIE];
  return names.map((name) => ({ name, value: jwt, options }));
}

/** The cookies that sign a browser out: the same names and attributes, emptied and expired. */
export function clearedSessionCookies(publicOrigin: string): CookieToSet[] {
  const { maxAge: _maxAge, ...attributes } = sessionCookieAttributes(publicOrigin, 0);
  const names = attributes.secure ? [SESSION_COOKIE, HOST_ONLY_SESSION_COOKIE] : [SESSION_COOKIE];
  return names.map((name) => clearedCookie(name, attributes));
}

/** What a request offers as its session: its cookies, its Authorization header, and where a browser says it is from. */
export interface SessionCredentials {
  cookies: Readonly<Record<string, string | undefined>>;
  /** The `Sec-Fetch-Site` header; browsers send it, other clients do not. */
  secFetchSite: string | undefined;
  /** The `Authorization` header: `Bearer <session JWT>` from scripts, generated clients and Swagger UI. */
  authorization?: string | undefined;
}

const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i;

/**
 * The session JWT a request presents: its session cookie, or, without one, `Authorization: Bearer <token>` (scripts,
 * generated clients, Swagger UI). A cookie wins, so a browser's own session is never replaced by a header another
 * piece of code added. Over HTTPS, a browser's cookie session is the `__Host-` cookie only: a planted `token` from a
 * sibling site is ignored.
 */
export function sessionCookieOf(credentials: SessionCredentials, publicOrigin: string): string | undefined {
  return cookieSessionOf(credentials, publicOrigin) ?? bearerOf(credentials.authorization);
}

function bearerOf(authorization: string | undefined): string | undefined {
  return authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
}

function cookieSessionOf(credentials: SessionCredentials, publicOrigin: string): string | undefined {
  const { cookies } = credentials;
  if (!sessionCookieAttributes(publicOrigin, 0).secure) return cookies[SESSION_COOKIE];
  if (credentials.secFetchSite !== undefined) return cookies[HOST_ONLY_SESSION_COOKIE];
  return cookies[HOST_ONLY_SESSION_COOKIE] ?? cookies[SESSION_COOKIE];
}
