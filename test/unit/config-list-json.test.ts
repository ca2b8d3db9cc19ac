// GET /api/graph/config's body, written straight from GRAPH.CONFIG GET *'s pairs: the same JSON as the object it
// replaced, value rules (numbers, CMD_INFO as yes/no, text) included.
import { describe, expect, it } from 'vitest';
import { configListJson, presentConfigValue } from '../../src/browser/config/config-service.js';

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
