// Token secrets at rest: database passwords encrypted with AES-256-GCM, tokens kept only as SHA-256 hashes.
import { createCipheriv, createDecipheriv, hash, randomBytes, timingSafeEqual } from 'node:crypto';

const IV_BYTES = 12;

/** `<iv hex>:<tag hex>:<ciphertext hex>` under a 32-byte key given as 64 hex characters. */
export function encryptPassword(plain: string, keyHex: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(keyHex, 'hex'), iv);
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `${iv.toString('hex')}:${cipher.getAuthTag().toString('hex')}:${ciphertext.toString('hex')}`;
}

export function decryptPassword(stored: string, keyHex: string): string {
  const [iv, tag, ciphertext] = stored.split(':');
  if (iv === undefined || tag === undefined || ciphertext === undefined)
    throw new Error('malformed encrypted password');
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(keyHex, 'hex'), Buffer.from(iv, 'hex'));
  decipher.setAuthTag(Buffer.from(tag, 'hex'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'hex')), decipher.final()]).toString('utf8');
}

export function hashToken(token: string): string {
  // The one-shot form: no Hash object per call, on the path of every bearer request.
  return hash('sha256', token, 'hex');
}

/**
 * Whether two strings are equal, in a time that depends on their length only (not on where they first differ): for
 * secrets held as text, where `===` would stop at the first difference.
 */
export function sameSecretText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= a.charCodeAt(index) ^ b.charCodeAt(index);
  return difference === 0;
}

/**
 * `hashToken` remembered per connection: the last token each connection sent, with its hash. A keep-alive client
 * sends the same token on every request, and its SHA-256 was about 2 µs of each bearer request (issue 25). A token is
 * compared (in constant time, sameSecretText) only with the one the same connection sent before, so its timing can
 * tell a caller nothing but whether it repeated itself; a different token replaces the remembered one. What the hash
 * then unlocks is unchanged: the token cache and its revocation checks still decide.
 */
export function hashTokenPerConnection(
  hasher: (token: string) => string = hashToken,
): (connection: object, token: string) => string {
  const lastOf = new WeakMap<object, { token: string; tokenHash: string }>();
  return (connection, token) => {
    const last = lastOf.get(connection);
    if (last !== undefined && sameSecretText(last.token, token)) return last.tokenHash;
    const tokenHash = hasher(token);
    lastOf.set(connection, { token, tokenHash });
    return tokenHash;
  };
}

/** Constant-time comparison of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
