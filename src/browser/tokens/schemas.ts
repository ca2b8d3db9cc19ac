// Request and response shapes of the token endpoints.
import { z } from 'zod';
import { timestamp } from '../../lib/timestamp-schema.js';
import { verbatim } from '../../lib/verbatim-messages.js';
import { booleanOrWord, integerOrDigits } from '../../lib/wire-values.js';
import { ROLES } from '../auth/roles.js';

export const MAX_TTL_SECONDS = 31_622_400;
const TTL_MESSAGE = verbatim(`Invalid TTL value (must be between 1 and ${MAX_TTL_SECONDS} seconds)`);

export const CreateTokenBodySchema = z
  .object({
    username: z.string().min(1).max(256).meta({ description: 'The database user the token acts as' }),
    password: z
      .string()
      .max(4096)
      .optional()
      .meta({ description: "The database user's password, the proof the database checks (never stored)" }),
    name: z
      .string()
      .trim()
      .min(1)
      .max(128)
      .optional()
      .meta({ description: 'A name to recognise the token by in the list' }),
    expiresAt: z
      .string()
      .max(64)
      .nullable()
      .optional()
      .meta({ description: 'When the token expires (an ISO 8601 date-time); null or absent: the default lifetime' }),
    ttlSeconds: z
      .number()
      .int(TTL_MESSAGE)
      .min(1, TTL_MESSAGE)
      .max(MAX_TTL_SECONDS, TTL_MESSAGE)
      .optional()
      .meta({ description: 'Lifetime in seconds, instead of expiresAt' }),
    host: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[^\s/?#@]+$/, 'must be a host name or IP address')
      .meta({ description: 'Host name or IP address of the database (allowed by DATABASE_HOSTS)' }),
    port: integerOrDigits(1, 65535, 'must be a port number between 1 and 65535').meta({
      description: 'Port of the database: a string of digits, as the browser API defines it, or a JSON integer',
    }),
    tls: booleanOrWord('must be true or false').meta({
      description:
        'Whether to connect with TLS: the string `true` or `false`, as the browser API defines it, or a JSON boolean',
    }),
    ca: z
      .string()
      .max(65_536)
      .optional()
      .meta({ description: 'PEM certificate authority for TLS connections; the system trust store when absent' }),
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
  })
  .meta({
    examples: [
      { username: 'default', password: 'secret', name: 'laptop', host: 'localhost', port: '6379', tls: 'false' },
    ],
  });
export type CreateTokenBody = z.infer<typeof CreateTokenBodySchema>;

export const CreateTokenResponseSchema = z
  .object({
    message: z.string().meta({ description: 'Always `Token created successfully`' }),
    token: z.string().meta({ description: 'The signed token (a JWT), to send as `Authorization: Bearer`' }),
  })
  .meta({
    examples: [
      {
        message: 'Token created successfully',
        token:
          'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJkZWZhdWx0IiwianRpIjoiMTc2NDMyMjAwMDAwMC01YjQxIn0.c2lnbmF0dXJl',
      },
    ],
  });

export const TokenMetadataSchema = z
  .object({
    user_id: z.string().meta({ description: 'The owner: the database user at the database address' }),
    token_id: z.string().meta({ description: 'The token id, `<epoch_millis>-<uuid>`' }),
    created_at: timestamp('When the token was created'),
    expires_at: timestamp('When the token expires')
      .nullable()
      .describe('When the token expires; null when it does not'),
    last_used: timestamp('When the token was last used (to the minute)')
      .nullable()
      .describe('When the token was last used (to the minute); null when never'),
    name: z.string().meta({ description: 'The name given at creation' }),
    permissions: z.array(z.enum(ROLES)).meta({ description: "The token's role, as a list" }),
    username: z.string().meta({ description: 'The database user the token acts as' }),
    role: z.enum(ROLES).meta({ description: "The database user's role when the token was created" }),
    host: z.string().meta({ description: 'Host of the database' }),
    port: z.number().int().meta({ description: 'Port of the database' }),
    topology: z.enum(['single', 'sentinel', 'cluster']).meta({ description: 'How the database is reached' }),
    masterName: z.string().optional().meta({ description: 'The Sentinel master name (topology `sentinel`)' }),
    revoked: z.boolean().meta({ description: 'Whether the token was revoked' }),
  })
  .meta({ id: 'TokenMetadata', description: 'A personal access token, without its secret' });
export type TokenMetadata = z.infer<typeof TokenMetadataSchema>;

const TOKEN_EXAMPLE: TokenMetadata = {
  user_id: '30f7dc13beaa2d4c592a9d0b6eefb3abf53f32ed5189b6157ab3a54ecabdcba2',
  token_id: '1764322000000-5b41c0de-7f3a-4c55-9b1e-0c2d4e6f8a90',
  created_at: '2026-11-28T09:26:40.000Z',
  expires_at: null,
  last_used: '2026-11-28T09:30:00.000Z',
  name: 'laptop',
  permissions: ['Admin'],
  username: 'default',
  role: 'Admin',
  host: 'localhost',
  port: 6379,
  topology: 'single',
  revoked: false,
};
export const TokenListSchema = z
  .object({
    tokens: z.array(TokenMetadataSchema).meta({ description: 'The visible tokens' }),
    count: z.number().int().meta({ description: 'How many tokens the list holds' }),
  })
  .meta({ examples: [{ tokens: [TOKEN_EXAMPLE], count: 1 }] });
export const TokenReadSchema = z.object({ token: TokenMetadataSchema }).meta({ examples: [{ token: TOKEN_EXAMPLE }] });
export const TokenRevokedSchema = z
  .object({
    message: z.string().meta({ description: 'Always `Token revoked successfully`' }),
    tokenId: z.string().meta({ description: 'The revoked token id' }),
  })
  .meta({ examples: [{ message: 'Token revoked successfully', tokenId: TOKEN_EXAMPLE.token_id }] });
// Any id is looked up: one that is not of the `<epoch_millis>-<uuid>` form names no token, which the specification
// answers with 404 `Token not found` (the store never builds a key from it).
export const TokenIdParamsSchema = z.object({
  tokenId: z.string().min(1).max(256).meta({ description: 'A token id, `<epoch_millis>-<uuid>`' }),
});
