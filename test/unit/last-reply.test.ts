// Bodies written once per database reply (GET /api/graph/config, GET /api/user): the text answered is always the
// one its reply would be written as, whichever replies came before.
import { describe, expect, it } from 'vitest';
import { usersFromAclList } from '../../src/browser/users/acl-rules.js';
import { userListJson } from '../../src/browser/users/user-service.js';
import { sameItems, writtenOncePerReply } from '../../src/lib/last-reply.js';

describe('writtenOncePerReply', () => {
  it('writes a reply unlike the last, and answers the last text for an equal one without writing', () => {
    const written: string[][] = [];
    const write = (reply: string[]) => {
      written.push(reply);
      return reply.join('|');
    };
    const textOf = writtenOncePerReply(write, sameItems);
    expect(textOf(['a', 'b'])).toBe('a|b');
    // Equal content in new arrays and new strings: not written again.
    expect(textOf(['a', `${'b'}`])).toBe('a|b');
    expect(written).toHaveLength(1);
    for (const reply of [['a'], ['a', 'c'], ['a', 'b', 'c'], ['b', 'a'], []])
      expect(textOf(reply)).toBe(reply.join('|'));
    // Only the last is kept: a reply seen two replies ago is written again.
    expect(textOf(['a', 'b'])).toBe('a|b');
    expect(written).toHaveLength(7);
  });

  it('compares items by value for numbers and text, by identity otherwise', () => {
    expect(sameItems([1, 'x', null], [1, 'x', null])).toBe(true);
    expect(sameItems([1], ['1'])).toBe(false);
    expect(sameItems([Number.NaN], [Number.NaN])).toBe(false);
    expect(sameItems([Buffer.from('a')], [Buffer.from('a')])).toBe(false);
    const same = Buffer.from('a');
    expect(sameItems([same], [same])).toBe(true);
  });
});

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
