// GET /api/graph/config's body, written straight from GRAPH.CONFIG GET *'s pairs: the same JSON as the object it
// replaced, value rules (numbers, CMD_INFO as yes/no, text) included.
import { describe, expect, it } from 'vitest';
import { configListJson, presentConfigValue, samePairs } from '../../src/browser/config/config-service.js';
import { writtenOncePerReply } from '../../src/lib/last-reply.js';

const asObject = (pairs: [unknown, unknown][]) =>
  JSON.stringify({
    configs: Object.fromEntries(pairs.map(([name, value]) => [String(name), presentConfigValue(String(name), value)])),
  });

describe('configListJson', () => {
  it('writes what JSON.stringify wrote of the object built from the same pairs', () => {
    const pairs: [unknown, unknown][] = [
      ['TIMEOUT', 0],
      ['CMD_INFO', 1],
      ['MAX_QUEUED_QUERIES', 4294967295],
      ['RESULTSET_SIZE', -1],
      ['THREAD_COUNT', '8'],
      ['BIG', '123456789012345678901'],
      ['TEXT', 'a "quoted" \\ value\n'],
      ['weird "name"', 'x'],
      ['NOT_FINITE', Number.POSITIVE_INFINITY],
    ];
    expect(configListJson(pairs)).toBe(asObject(pairs));
    expect(JSON.parse(configListJson(pairs))).toMatchObject({ configs: { CMD_INFO: 'yes', THREAD_COUNT: 8 } });
  });

  it('writes an empty list as an empty object', () => {
    expect(configListJson([])).toBe('{"configs":{}}');
  });
});

describe('the config list written once per reply', () => {
  const reply = (threads: unknown, name = 'THREAD_COUNT'): [unknown, unknown][] => [
    ['TIMEOUT', 0],
    [name, threads],
    ['CMD_INFO', 1],
  ];

  it('answers the text of the reply it is given, reusing the last one only for the same names and values', () => {
    const listJson = writtenOncePerReply(configListJson, samePairs);
    const first = listJson(reply(8));
    expect(first).toBe(configListJson(reply(8)));
    // A new reply (new arrays, new strings) with the same content: the same text.
    expect(listJson(reply(8))).toBe(first);
    for (const changed of [reply(4), reply('8'), reply(8, 'THREADS'), reply(8).slice(0, 2), [...reply(8), ['X', 1]]])
      expect(listJson(changed as [unknown, unknown][])).toBe(configListJson(changed as [unknown, unknown][]));
    // Values that are not numbers or text are compared by identity: a new one is written again, never mistaken.
    const binary = Buffer.from('yes');
    expect(listJson(reply(binary))).toBe(configListJson(reply(binary)));
    expect(listJson(reply(Buffer.from('no!')))).toBe(configListJson(reply(Buffer.from('no!'))));
    expect(listJson(reply(8))).toBe(first);
  });
});
