// Bodies written once per database reply (GET /api/graph/config, GET /api/user): the text answered is always the
// one its reply would be written as, whichever replies came before.
import { describe, expect, it } from 'vitest';
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
