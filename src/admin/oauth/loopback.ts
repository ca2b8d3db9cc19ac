// Sign-in for native apps (RFC 8252): the CLI names a loopback redirect and a PKCE challenge; after the web sign-in
// the server sends the browser there with a one-time code, which only the holder of the verifier can exchange for a
// session. Pure helpers; the codes' store is a port (one-time-codes.ts).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { BadRequestError } from '../../http/http-errors.js';

/** How long a code may wait for its exchange: the CLI is listening, so seconds are plenty. */
export const CLI_CODE_TTL_MS = 60_000;

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const CLI_STATE = /^[A-Za-z0-9_-]{16,128}$/;

/**
 * The loopback redirect a native client may name (RFC 8252 §7.3): `http`, the IP literal 127.0.0.1 or [::1] (not
 * `localhost`, which a resolver could send elsewhere), any port, no user info, query or fragment. Anything else is
 * a 400: this is the one redirect outside the server's own origin the sign-in ever follows.
 */
export function loopbackRedirect(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new BadRequestError('cliRedirect must be a loopback URL such as http://127.0.0.1:<port>/callback');
  }
  const loopbackHost = url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  if (url.protocol !== 'http:' || !loopbackHost || !url.port || url.username || url.password || url.search || url.hash)
    throw new BadRequestError('cliRedirect must be a loopback URL such as http://127.0.0.1:<port>/callback');
  return url.toString();
}

export interface CliSignIn {
  redirect: string;
  /** base64url(SHA-256(verifier)), RFC 7636 S256. */
  challenge: string;
  /** The CLI's own state, echoed back so it can tell its answer from any other request to its listener. */
  state: string;
}

/** The CLI parameters of a start request, checked; undefined for a browser's sign-in. */
export function cliSignInOf(query: {
  cliRedirect?: string;
  codeChallenge?: string;
  cliState?: string;
}): CliSignIn | undefined {
  const { cliRedirect, codeChallenge, cliState } = query;
  if (cliRedirect === undefined && codeChallenge === undefined && cliState === undefined) return undefined;
  if (cliRedirect === undefined || codeChallenge === undefined || cliState === undefined)
    throw new BadRequestError('cliRedirect, codeChallenge and cliState go together');
  if (!CHALLENGE.test(codeChallenge))
    throw new BadRequestError('codeChallenge must be an S256 PKCE challenge (43 base64url characters)');
  if (!CLI_STATE.test(cliState)) throw new BadRequestError('cliState must be 16 to 128 base64url characters');
  return { redirect: loopbackRedirect(cliRedirect), challenge: codeChallenge, state: cliState };
}

export const newCode = (): string => randomBytes(32).toString('base64url');

/** What is stored for a code: never the code itself. */
export const codeKey = (code: string): string => createHash('sha256').update(code).digest('hex');

export const challengeOf = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

/** Whether `verifier` is the one the challenge was made from, compared in constant time. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(challengeOf(verifier));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
