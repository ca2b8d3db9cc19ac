// The three roles of a database user as the browser API detects them from its ACL: a fact both the token store
// (which keeps each token's role) and the browser's access checks (browser/auth/roles.ts) read.
export const ROLES = ['Admin', 'Read-Write', 'Read-Only'] as const;
export type Role = (typeof ROLES)[number];
