// Shapes of the OAuth sign-in endpoints: GET /api/auth/oauth/{provider} and its callback.
import { z } from 'zod';
import { PROVIDERS } from './providers.js';

// Any name reaches the handler, which answers an unknown one with its own message; the document lists the known ones.
export const ProviderParamsSchema = z.object({
  provider: z
    .string()
    .max(32)
    .meta({ enum: [...PROVIDERS], description: 'The identity provider', examples: ['alpha'] }),
});
export const StartQuerySchema = z.object({
  returnTo: z
    .string()
    .max(4096)
    .optional()
    .meta({ description: 'Where to send the browser after signing in: a path of this server' }),
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
export const CliTokenBodySchema = z
  .strictObject({
    code: z.string().min(1).max(128).meta({ description: 'The one-time code the loopback redirect received' }),
    codeVerifier: z
      .string()
      .regex(/^[A-Za-z0-9._~-]{43,128}$/, 'must be a PKCE code verifier (43 to 128 characters)')
      .meta({ description: 'The PKCE verifier whose S256 challenge started the sign-in' }),
  })
  .meta({
    examples: [{ code: 'b1c9e0f4a7d24e8e', codeVerifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk' }],
  });
export const CliTokenResponseSchema = z
  .object({
    message: z.string().meta({ description: 'Always `Signed in`' }),
    user: z
      .object({
        email: z.string().meta({ description: "The user's e-mail" }),
        role: z.string().meta({ description: "The user's role" }),
      })
      .meta({ description: 'Who signed in' }),
  })
  .meta({ examples: [{ message: 'Signed in', user: { email: 'ada@example.com', role: 'admin' } }] });
const param = z.string().max(8192).optional();
/** What providers send back; other parameters (e.g. `iss`, `session_state`) are kept for the response checks. */
export const CallbackQuerySchema = z.looseObject({
  code: param.meta({ description: 'The authorization code' }),
  state: param.meta({ description: 'The state this server sent, checked against its cookie' }),
  error: param.meta({ description: "The provider's error code, when it refused" }),
  error_description: param.meta({ description: "The provider's error text" }),
  scope: param.meta({ description: 'The scopes granted' }),
  iss: param.meta({ description: 'The issuer (RFC 9207), checked against the provider' }),
});

export const StartRedirectSchema = z.null().describe('Redirect to the identity provider');
export const CallbackRedirectSchema = z
  .null()
  .describe('Redirect to returnTo (or to /login?error=<code> for a browser on failure)');
