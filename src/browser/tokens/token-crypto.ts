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

/** Constant-time comparison of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
