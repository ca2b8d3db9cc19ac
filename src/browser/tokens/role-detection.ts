// Which role a set of database credentials holds, read from how the server answers two probes.
import { isReplyError } from '../../platform/falkordb/database-errors.js';
import type { GraphDatabase } from '../../platform/falkordb/graph-database.js';
import type { Role } from '../auth/roles.js';

const PERMISSION_DENIED = /^NOPERM\b/;

/** `ACL GETUSER` allowed → Admin; `GRAPH.QUERY` refused for permissions → Read-Only; refused otherwise → Read-Write. */
export async function detectRole(database: GraphDatabase, username: string): Promise<Role> {
  try {
    await database.aclGetUser(username);
    return 'Admin';
  } catch (error) {
    if (!isReplyError(error)) throw error;
  }
  try {
    await database.probeGraphQuery();
    return 'Read-Write';
  } catch (error) {
    if (!isReplyError(error)) throw error;
    return PERMISSION_DENIED.test(error.message) ? 'Read-Only' : 'Read-Write';
  }
}
