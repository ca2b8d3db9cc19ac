// The ACL rules each role gets (the public FalkorDB Browser's, so users made by either tool read the same, plus
// CLUSTER SLOTS and ASKING, which a token for a sharded cluster needs to find the shards and follow a slot being
// migrated, and WAIT, with which a write behind Sentinel or on a cluster shard is answered once a replica has it),
// and reading a user's role back from what ACL GETUSER reports.
import type { Role } from '../auth/roles.js';

const READ_ONLY = [
  'on',
  'resetkeys',
  '~*',
  'resetchannels',
  '-@all',
  '+graph.explain',
  '+graph.list',
  '+graph.ro_query',
  '+graph.info',
  '+graph.memory',
  '+module|list',
  '+ping',
  '+hello',
  '+info',
  '+dump',
  '+exists',
  '+ttl',
  '+pttl',
  '+expiretime',
  '+cluster|slots',
  '+asking',
];
const READ_WRITE = [
  ...READ_ONLY,
  '+graph.delete',
  '+graph.query',
  '+graph.profile',
  '+graph.constraint',
  '+graph.bulk',
  '+graph.copy',
  '+graph.udf',
  '+expire',
  '+pexpire',
  '+restore',
  '+rename',
  '+renamenx',
  '+wait',
];
const ADMIN = ['on', 'resetkeys', '~*', '&*', '+@all'];

export function rulesFor(role: Role): string[] {
  switch (role) {
    case 'Admin':
      return ADMIN;
    case 'Read-Write':
      return READ_WRITE;
    case 'Read-Only':
      return READ_ONLY;
  }
}

/** ACL GETUSER answers a flat list of field names and values; `commands` is a space-separated rule string. */
export function roleFromAclUser(reply: unknown[]): Role {
  const index = reply.indexOf('commands');
  const value = index === -1 ? undefined : reply[index + 1];
  return roleFromCommandRules((typeof value === 'string' ? value : '').split(/\s+/));
}

/**
 * The users and roles of an `ACL LIST` reply (`user <name> on #<hash> ~* &* +@all`): one command for every user,
 * where ACL USERS and an ACL GETUSER per user took one each. Command rules are the tokens starting with + or -;
 * rules inside a selector (`(…)`) only add to what the root grants and are left out, as GETUSER's `commands` does.
 */
export function usersFromAclList(lines: readonly string[]): { username: string; role: Role }[] {
  return lines.flatMap((line) => {
    const [kind, username, ...rest] = line.split(' ');
    if (kind !== 'user' || !username) return [];
    const rules: string[] = [];
    let depth = 0;
    for (const token of rest) {
      if (token.startsWith('(')) depth++;
      if (depth === 0 && (token.startsWith('+') || token.startsWith('-'))) rules.push(token);
      if (token.endsWith(')')) depth = Math.max(0, depth - 1);
    }
    return [{ username, role: roleFromCommandRules(rules) }];
  });
}

function roleFromCommandRules(rules: readonly string[]): Role {
  if (rules.includes('+@all') && !rules.some((rule) => rule.startsWith('-') && rule !== '-@all')) return 'Admin';
  if (rules.includes('+graph.query')) return 'Read-Write';
  return 'Read-Only';
}
