// Shapes of the session endpoints.
import { z } from 'zod';
import { ADMIN_USER_EXAMPLE, UserSchema } from '../users/schemas.js';

export const LoginBodySchema = z
  .object({
    email: z.string().min(1).max(254).describe("The user's e-mail"),
    password: z.string().min(1).max(1024).describe("The user's password"),
  })
  .meta({ examples: [{ email: 'ada@example.com', password: 'a long passphrase' }] });
const SESSION_TOKEN_EXAMPLE =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhZGFAZXhhbXBsZS5jb20iLCJyb2xlIjoiYWRtaW4ifQ.c2lnbmF0dXJl';
export const LoginResultSchema = UserSchema.extend({
  token: z
    .string()
    .describe('The session JWT, the same value as the HttpOnly cookie `token` (docs/decisions/identity-routes.md)'),
}).meta({ examples: [{ ...ADMIN_USER_EXAMPLE, token: SESSION_TOKEN_EXAMPLE }] });
export const ValidateResultSchema = z
  .object({
    valid: z.boolean().describe('Always true (an invalid session is answered 401)'),
    user: UserSchema,
  })
  .meta({ examples: [{ valid: true, user: ADMIN_USER_EXAMPLE }] });
export const SuccessMessageSchema = z.object({
  success: z.boolean().describe('Always true'),
  message: z.string().describe('What was done'),
});
/** SuccessMessageSchema with examples of the texts one route answers, for the API document. */
export const successSaying = (...texts: string[]) =>
  SuccessMessageSchema.meta({ examples: texts.map((message) => ({ success: true, message })) });
export const AuthConfigSchema = z
  .object({
    methods: z
      .array(
        z.object({
          type: z.string().describe('`local`, or an OAuth provider (`alpha`, `beta`)'),
          enabled: z.boolean().describe('Whether the login page offers it (the settings turn methods on and off)'),
          clientId: z.string().optional().describe("An OAuth provider's public client id"),
        }),
      )
      .describe('The sign-in methods'),
  })
  .meta({
    examples: [
      {
        methods: [
          { type: 'local', enabled: true },
          { type: 'alpha', enabled: true, clientId: 'graphdb-admin' },
        ],
      },
    ],
  });
