// HS256 JSON Web Tokens with jose: both APIs sign with a shared secret and verify with the algorithm pinned.
import { webcrypto } from 'node:crypto';
import { jwtVerify, SignJWT, type JWTPayload } from 'jose';

export interface SignOptions {
  /** Seconds since the epoch; omitted means the token does not expire. */
  expiresAt?: number;
  issuer?: string;
  audience?: string;
}

const encoder = new TextEncoder();
/**
 * Given raw bytes, jose imports a WebCrypto key on every call, which cost more than the signature itself in
 * profiles; the few secrets a process uses are imported once.
 */
const importedKeys = new Map<string, Promise<webcrypto.CryptoKey>>();

export function secretKey(secret: string): Promise<webcrypto.CryptoKey> {
  let key = importedKeys.get(secret);
  if (!key) {
    key = webcrypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]);
    importedKeys.set(secret, key);
  }
  return key;
}

export async function signHs256(claims: JWTPayload, secret: string, options: SignOptions = {}): Promise<string> {
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt();
  if (options.expiresAt !== undefined) jwt = jwt.setExpirationTime(options.expiresAt);
  if (options.issuer) jwt = jwt.setIssuer(options.issuer);
  if (options.audience) jwt = jwt.setAudience(options.audience);
  return jwt.sign(await secretKey(secret));
}

/** Rejects on a bad signature, another algorithm (including `none`), expiry, or a wrong issuer/audience. */
export async function verifyHs256(
  token: string,
  secret: string,
  options: { issuer?: string; audience?: string } = {},
): Promise<JWTPayload> {
  const { payload } = await jwtVerify(token, await secretKey(secret), {
    algorithms: ['HS256'],
    issuer: options.issuer,
    audience: options.audience,
  });
  return payload;
}
