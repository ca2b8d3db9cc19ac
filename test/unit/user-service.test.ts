// The database user list as JSON (userListJson).
import { describe, expect, it } from 'vitest';
import { usersFromAclList } from '../../src/browser/users/acl-rules.js';
import { userListJson } from '../../src/browser/users/user-service.js';

describe('userListJson', () => {
  it("is the list's JSON of the users and roles ACL LIST's lines hold", () => {
    const lines = [
      'user default on nopass sanitize-payload ~* &* +@all',
      'user reader on #5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8 ~* resetchannels -@all +graph.ro_query +graph.list',
      'user writer on #5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8 ~* -@all +graph.query +graph.ro_query',
    ];
    const expected = usersFromAclList(lines).map(({ username, role, keys }) => ({
      username,
      role,
      keys,
      selected: false,
    }));
    expect(JSON.parse(userListJson(lines))).toEqual({ result: expected });
    expect(expected.map((user) => user.role)).toEqual(['Admin', 'Read-Only', 'Read-Write']);
    // No password hash reaches the body.
    expect(userListJson(lines)).not.toContain('#5e88');
  });
});
