// E-mail addresses as the server accepts them: zod's address syntax within RFC 5321's limits (a local part of
// at most 64 characters, 254 in all), so every address it stores also passes the `format: email` it documents.
import { z } from 'zod';

const MAX_LOCAL_PART = 64;

export const EmailSchema = z
  .email('must be an e-mail address')
  .max(254)
  .refine((address) => address.slice(0, address.lastIndexOf('@')).length <= MAX_LOCAL_PART, `must have at most ${MAX_LOCAL_PART} characters before the @`);
