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

function roleRules(role: Role): string[] {
  switch (role) {
    case 'Admin':
      return ADMIN;
    case 'Read-Write':
      return READ_WRITE;
    case 'Read-Only':
      return READ_ONLY;
  }
}

/** The role's rules, limited to the given key patterns (all keys when there are none). */
export function rulesFor(role: Role, keys: readonly string[] = []): string[] {
  const rules = roleRules(role);
  if (keys.length === 0) return rules;
  return rules.flatMap((rule) => (rule === '~*' ? keys.map((key) => `~${key}`) : [rule]));
}

/** ACL GETUSER answers a flat list of field names and values; `commands` and `keys` are space-separated rules. */
export function userFromAclUser(reply: unknown[]): { role: Role; keys: string[] } {
  const field = (name: string) => {
    const index = reply.indexOf(name);
    const value = index === -1 ? undefined : reply[index + 1];
    return (typeof value === 'string' ? value : '').split(/\s+/).filter(Boolean);
  };
  return { role: roleFromCommandRules(field('commands')), keys: keyPatterns(field('keys')) };
}

/** The patterns of `~pattern` rules (`%R~`/`%W~` ones included: the user reaches those keys too). */
function keyPatterns(rules: readonly string[]): string[] {
  return rules.flatMap((rule) => {
    const match = /^(?:%[RW]+)?~(.+)$/.exec(rule);
    return match ? [match[1]!] : rule === 'allkeys' ? ['*'] : [];
  });
}

/**
 * The users and roles of an `ACL LIST` reply (`user <name> on #<hash> ~* &* +@all`): one command for every user,
 * where ACL USERS and an ACL GETUSER per user took one each. Command rules are the tokens starting with + or -;
 * rules inside a selector (`(…)`) only add to what the root grants and are left out, as GETUSER's `commands` does.
 */
export function usersFromAclList(lines: readonly string[]): { username: string; role: Role; keys: string[] }[] {
  return lines.flatMap((line) => {
    const [kind, username, ...rest] = line.split(' ');
    if (kind !== 'user' || !username) return [];
    const rules: string[] = [];
    const keyRules: string[] = [];
    let depth = 0;
    for (const token of rest) {
      if (token.startsWith('(')) depth++;
      if (depth === 0 && (token.startsWith('+') || token.startsWith('-'))) rules.push(token);
      if (depth === 0 && (token.includes('~') || token === 'allkeys')) keyRules.push(token);
      if (token.endsWith(')')) depth = Math.max(0, depth - 1);
    }
    return [{ username, role: roleFromCommandRules(rules), keys: keyPatterns(keyRules) }];
  });
}

function roleFromCommandRules(rules: readonly string[]): Role {
  if (rules.includes('+@all') && !rules.some((rule) => rule.startsWith('-') && rule !== '-@all')) return 'Admin';
  if (rules.includes('+graph.query')) return 'Read-Write';
  return 'Read-Only';
}
