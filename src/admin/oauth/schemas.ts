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
export const StartQuerySchema = z.object({
  returnTo: z.string().max(4096).optional(),
  cliRedirect: z.string().max(512).optional().meta({
    description: "A native client's loopback redirect (RFC 8252): http://127.0.0.1:<port>/… or http://[::1]:<port>/…",
  }),
  codeChallenge: z
    .string()
    .max(128)
    .optional()
    .meta({ description: 'With cliRedirect: the S256 PKCE challenge of its verifier' }),
  cliState: z
    .string()
    .max(128)
    .optional()
    .meta({ description: 'With cliRedirect: echoed back to the loopback redirect' }),
});
export const CliTokenBodySchema = z.strictObject({
  code: z.string().min(1).max(128),
  codeVerifier: z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/, 'must be a PKCE code verifier (43 to 128 characters)'),
});
export const CliTokenResponseSchema = z.object({
  message: z.string(),
  user: z.object({ email: z.string(), role: z.string() }),
});
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
