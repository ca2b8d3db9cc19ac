// Database roles written as ACL rules and read back from ACL GETUSER.
import { describe, expect, it } from 'vitest';
import { ROLES } from '../../src/browser/auth/roles.js';
import { roleFromAclUser, rulesFor } from '../../src/browser/users/acl-rules.js';

/** The reply shape of ACL GETUSER for a user made with `rules`. */
function getUserReply(rules: string[]): unknown[] {
  const commands = rules.filter((rule) => /^[+-]/.test(rule)).join(' ');
  const keys = rules.filter((rule) => rule.startsWith('~')).join(' ');
  const channels = rules.filter((rule) => rule.startsWith('&')).join(' ');
  return ['flags', ['on'], 'passwords', [], 'commands', commands, 'keys', keys, 'channels', channels, 'selectors', []];
}

describe('ACL rules per role', () => {
  it.each(ROLES)('reads %s back from the rules it writes', (role) => {
    expect(roleFromAclUser(getUserReply(rulesFor(role)))).toBe(role);
  });

  it('gives Read-Only no command that writes, and Read-Write no ACL or config command', () => {
    const readOnly = rulesFor('Read-Only');
    expect(readOnly).toContain('+graph.ro_query');
    expect(readOnly).not.toContain('+graph.query');
    const readWrite = rulesFor('Read-Write');
    expect(readWrite).toContain('+graph.query');
    expect(readWrite.some((rule) => /acl|config|@all/.test(rule) && rule.startsWith('+'))).toBe(false);
  });
});
