// Shapes of the OAuth sign-in endpoints: GET /api/auth/oauth/{provider} and its callback.
import { z } from 'zod';
import { PROVIDERS } from './providers.js';

// Any name reaches the handler, which answers an unknown one with its own message; the document lists the known ones.
export const ProviderParamsSchema = z.object({
  provider: z
    .string()
    .max(32)
    .meta({ enum: [...PROVIDERS] }),
});
export const StartQuerySchema = z.object({ returnTo: z.string().max(4096).optional() });
const param = z.string().max(8192).optional();
/** What providers send back; other parameters (e.g. `iss`, `session_state`) are kept for the response checks. */
export const CallbackQuerySchema = z.looseObject({
  code: param,
  state: param,
  error: param,
  error_description: param,
  scope: param,
  iss: param,
});

export const StartRedirectSchema = z.null().describe('Redirect to the identity provider');
export const CallbackRedirectSchema = z
  .null()
  .describe('Redirect to returnTo (or to /login?error=<code> for a browser on failure)');
