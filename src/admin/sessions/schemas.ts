// Shapes of the session endpoints.
import { z } from 'zod';

export const UserViewSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    /** A shipped role (admin, operator, viewer) or a custom one (/api/rbac/roles). */
    role: z.string(),
    provider: z.enum(['local', 'alpha', 'beta']),
    permissions: z.array(z.string()),
  })
  .meta({ id: 'AdminUser' });

export const LoginBodySchema = z.object({ email: z.string().min(1).max(254), password: z.string().min(1).max(1024) });
export const UserEnvelopeSchema = z.object({ user: UserViewSchema });
export const MessageSchema = z.object({ message: z.string() });
export const AuthConfigSchema = z.object({
  methods: z.array(z.object({ type: z.string(), enabled: z.boolean(), clientId: z.string().optional() })),
});
