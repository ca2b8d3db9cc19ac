// Database roles written as ACL rules and read back from ACL GETUSER.
import { describe, expect, it } from 'vitest';
import { ROLES } from '../../src/browser/auth/roles.js';
import { rulesFor, userFromAclUser, usersFromAclList } from '../../src/browser/users/acl-rules.js';

/** The reply shape of ACL GETUSER for a user made with `rules`. */
function getUserReply(rules: string[]): unknown[] {
  const commands = rules.filter((rule) => /^[+-]/.test(rule)).join(' ');
  const keys = rules.filter((rule) => rule.startsWith('~')).join(' ');
  const channels = rules.filter((rule) => rule.startsWith('&')).join(' ');
  return ['flags', ['on'], 'passwords', [], 'commands', commands, 'keys', keys, 'channels', channels, 'selectors', []];
}

describe('ACL rules per role', () => {
  it.each(ROLES)('reads %s back from the rules it writes', (role) => {
    expect(userFromAclUser(getUserReply(rulesFor(role)))).toEqual({ role, keys: ['*'] });
  });

  it.each(ROLES)('limits %s to the given key patterns, in place of every key, and reads them back', (role) => {
    const rules = rulesFor(role, ['sales*', 'social']);
    expect(rules).not.toContain('~*');
    expect(rules.filter((rule) => rule.startsWith('~'))).toEqual(['~sales*', '~social']);
    // `resetkeys` comes first, so the patterns replace the user's former ones.
    expect(rules.indexOf('resetkeys')).toBeLessThan(rules.indexOf('~sales*'));
    expect(userFromAclUser(getUserReply(rules))).toEqual({ role, keys: ['sales*', 'social'] });
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

describe('users and roles from ACL LIST', () => {
  it('reads every user, its role and its key patterns from one reply, ignoring passwords, channels and selectors', () => {
    const line = (name: string, role: 'Admin' | 'Read-Write' | 'Read-Only') =>
      `user ${name} on sanitize-payload #5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8 ${rulesFor(
        role,
      )
        .filter((rule) => rule.startsWith('+') || rule.startsWith('-') || rule.startsWith('~'))
        .join(' ')}`;
    expect(
      usersFromAclList([
        line('ada', 'Admin'),
        line('bob', 'Read-Write'),
        line('cy', 'Read-Only'),
        'user default off nopass sanitize-payload resetchannels -@all',
        'user sel on nopass ~* resetchannels -@all +graph.ro_query (~other* +graph.query)',
        'user scoped on nopass ~sales* %R~audit resetchannels -@all +graph.ro_query',
        'not a user line',
      ]),
    ).toEqual([
      { username: 'ada', role: 'Admin', keys: ['*'] },
      { username: 'bob', role: 'Read-Write', keys: ['*'] },
      { username: 'cy', role: 'Read-Only', keys: ['*'] },
      { username: 'default', role: 'Read-Only', keys: [] },
      { username: 'sel', role: 'Read-Only', keys: ['*'] },
      { username: 'scoped', role: 'Read-Only', keys: ['sales*', 'audit'] },
    ]);
  });
});
