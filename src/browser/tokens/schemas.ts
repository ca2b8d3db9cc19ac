// Request and response shapes of the token endpoints.
import { z } from 'zod';
import { ROLES } from '../auth/roles.js';

export const MAX_TTL_SECONDS = 31_622_400;

export const CreateTokenBodySchema = z.object({
  username: z.string().min(1).max(256),
  password: z.string().max(4096).optional(),
  name: z.string().trim().min(1).max(128).optional(),
  expiresAt: z.string().max(64).nullable().optional(),
  ttlSeconds: z.number().optional(),
  host: z
    .string()
    .min(1)
    .max(253)
    .regex(/^[^\s/?#@]+$/, 'must be a host name or IP address'),
  port: z
    .string()
    .regex(/^\d{1,5}$/, 'must be a port number between 1 and 65535')
    .refine((port) => Number(port) >= 1 && Number(port) <= 65535, 'must be a port number between 1 and 65535'),
  tls: z.enum(['true', 'false']),
  /** PEM certificate authority for TLS connections; the system trust store when absent. */
  ca: z.string().max(65_536).optional(),
  topology: z
    .enum(['single', 'sentinel', 'cluster'])
    .optional()
    .meta({
      description:
        '`single` (default): host and port are the database. `sentinel`: host and port are a sentinel, `masterName` ' +
        'the primary it watches; every connection asks the sentinels where the primary is, so a failover keeps the token. ' +
        '`cluster`: host and port are a node of a sharded cluster (a seed); the other nodes are found from it, and each ' +
        "graph is served by the primary of its key's hash slot.",
    }),
  masterName: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be a Sentinel master name (letters, digits, . _ -)')
    .optional()
    .meta({ description: 'The Sentinel master name (topology `sentinel`)' }),
  sentinels: z
    .array(z.string().regex(/^[^\s/?#@]{1,253}:\d{1,5}$/, 'must be host:port'))
    .max(8)
    .optional()
    .meta({ description: 'More sentinels to ask, `host:port`, after the one named by host and port' }),
  seeds: z
    .array(z.string().regex(/^[^\s/?#@]{1,253}:\d{1,5}$/, 'must be host:port'))
    .max(8)
    .optional()
    .meta({
      description: 'More cluster nodes to ask for the slot map, `host:port`, after the one named by host and port',
    }),
});
export type CreateTokenBody = z.infer<typeof CreateTokenBodySchema>;

export const CreateTokenResponseSchema = z.object({ message: z.string(), token: z.string() });

export const TokenMetadataSchema = z
  .object({
    user_id: z.string(),
    token_id: z.string(),
    created_at: z.string(),
    expires_at: z.string().nullable(),
    last_used: z.string().nullable(),
    name: z.string(),
    permissions: z.array(z.enum(ROLES)),
    username: z.string(),
    role: z.enum(ROLES),
    host: z.string(),
    port: z.number().int(),
    topology: z.enum(['single', 'sentinel', 'cluster']),
    masterName: z.string().optional(),
    revoked: z.boolean(),
  })
  .meta({ id: 'TokenMetadata' });
export type TokenMetadata = z.infer<typeof TokenMetadataSchema>;

export const TokenListSchema = z.object({ tokens: z.array(TokenMetadataSchema), count: z.number().int() });
export const TokenReadSchema = z.object({ token: TokenMetadataSchema });
export const TokenRevokedSchema = z.object({ message: z.string(), tokenId: z.string() });
// Any id is looked up: one that is not of the `<epoch_millis>-<uuid>` form names no token, which the specification
// answers with 404 `Token not found` (the store never builds a key from it).
export const TokenIdParamsSchema = z.object({
  tokenId: z.string().min(1).max(256).meta({ description: 'A token id, `<epoch_millis>-<uuid>`' }),
});
