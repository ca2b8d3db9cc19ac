// Shapes of the session endpoints.
import { z } from 'zod';
import { UserSchema } from '../users/schemas.js';

export const LoginBodySchema = z.object({ email: z.string().min(1).max(254), password: z.string().min(1).max(1024) });
export const LoginResultSchema = UserSchema.extend({
  token: z
    .string()
    .describe('The session JWT, the same value as the HttpOnly cookie `token` (docs/decisions/identity-routes.md)'),
});
export const ValidateResultSchema = z.object({ valid: z.boolean(), user: UserSchema });
export const SuccessMessageSchema = z.object({ success: z.boolean(), message: z.string() });
export const AuthConfigSchema = z.object({
  methods: z.array(z.object({ type: z.string(), enabled: z.boolean(), clientId: z.string().optional() })),
});
