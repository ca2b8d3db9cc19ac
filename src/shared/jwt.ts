// HS256 JSON Web Tokens with jose: both APIs sign with a shared secret and verify with the algorithm pinned.
import { jwtVerify, SignJWT, type JWTPayload } from 'jose';

export interface SignOptions {
  /** Seconds since the epoch; omitted means the token does not expire. */
  expiresAt?: number;
  issuer?: string;
  audience?: string;
}

const encoder = new TextEncoder();

export function secretKey(secret: string): Uint8Array {
  return encoder.encode(secret);
}

export async function signHs256(claims: JWTPayload, secret: string, options: SignOptions = {}): Promise<string> {
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt();
  if (options.expiresAt !== undefined) jwt = jwt.setExpirationTime(options.expiresAt);
  if (options.issuer) jwt = jwt.setIssuer(options.issuer);
  if (options.audience) jwt = jwt.setAudience(options.audience);
  return jwt.sign(secretKey(secret));
}

/** Rejects on a bad signature, another algorithm (including `none`), expiry, or a wrong issuer/audience. */
export async function verifyHs256(token: string, secret: string, options: { issuer?: string; audience?: string } = {}): Promise<JWTPayload> {
  const { payload } = await jwtVerify(token, secretKey(secret), { algorithms: ['HS256'], issuer: options.issuer, audience: options.audience });
  return payload;
}
