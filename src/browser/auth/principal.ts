// Who a request acts for in the browser API: the token's database user, set by the bearer guard (bearer-auth.ts)
// and kept by the token cache (token-cache.ts).
import type { DbCredentials } from '../../platform/falkordb/database-pool.js';
import type { Role } from './roles.js';

export interface Principal {
  tokenId: string;
  userId: string;
  dbKey: string;
  username: string;
  role: Role;
  credentials: DbCredentials;
  /** `ConnectionPools.keyOf(credentials)`, computed once when the token is checked rather than per request. */
  poolKey: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}
