import { ErrorReply } from 'redis';
import { describe, expect, it } from 'vitest';
import { highestSchemaIds, namesCover } from '../../src/platform/falkordb/compact-reply.js';
import { SchemaNamesCache, versionMismatchOf } from '../../src/platform/falkordb/schema-names.js';

const NODE = 8;
const EDGE = 7;
const PATH = 9;
const ARRAY = 6;
const MAP = 10;
const INTEGER = 3;

describe('schema ids in a compact reply', () => {
  it('finds the highest label, type and key ids wherever they sit: nodes, edges, paths, lists and maps', () => {
    const node = (id: string, labels: string[], keys: string[]) => [
      id,
      labels,
      keys.map((key) => [key, String(INTEGER), '1']),
    ];
    const edge = (type: string, keys: string[]) => ['9', type, '0', '1', keys.map((key) => [key, INTEGER, '1'])];
    const rows = [
      [[NODE, node('0', ['0', '4'], ['1'])]],
      [[ARRAY, [[EDGE, edge('2', ['6'])]]]],
      [
        [
          MAP,
          [
            'k',
            [
              PATH,
              [
                [ARRAY, [[NODE, node('1', ['1'], ['7'])]]],
                [ARRAY, [[EDGE, edge('5', [])]]],
              ],
            ],
          ],
        ],
      ],
    ];
    expect(highestSchemaIds(rows)).toEqual({ labels: 4, relationshipTypes: 5, propertyKeys: 7 });
    expect(highestSchemaIds([[[INTEGER, '1']]])).toEqual({ labels: -1, relationshipTypes: -1, propertyKeys: -1 });
  });

  it('says whether the names held cover those ids', () => {
    const names = { labels: ['A', 'B'], relationshipTypes: ['R'], propertyKeys: [] };
    expect(namesCover(names, { labels: 1, relationshipTypes: 0, propertyKeys: -1 })).toBe(true);
    expect(namesCover(names, { labels: 2, relationshipTypes: 0, propertyKeys: -1 })).toBe(false);
    expect(namesCover(names, { labels: 0, relationshipTypes: 0, propertyKeys: 0 })).toBe(false);
  });
});

describe('the schema names cache', () => {
  it('forgets the least recently used graph beyond its capacity', () => {
    const cache = new SchemaNamesCache(2);
    const entry = (version: string) => ({
      version,
      names: { labels: [], relationshipTypes: [], propertyKeys: [] },
    });
    cache.set('a', entry('1'));
    cache.set('b', entry('2'));
    cache.get('a');
    cache.set('c', entry('3'));
    expect([cache.get('a')?.version, cache.get('b'), cache.get('c')?.version]).toEqual(['1', undefined, '3']);
    cache.forget('a');
    expect(cache.get('a')).toBeUndefined();
  });

  it('recognises the version mismatch reply and nothing else', () => {
    expect(versionMismatchOf([new ErrorReply('version mismatch'), '1540963884'])).toBe('1540963884');
    expect(versionMismatchOf([new ErrorReply('some other error'), '1'])).toBeUndefined();
    expect(versionMismatchOf([['Nodes created: 1']])).toBeUndefined();
    expect(versionMismatchOf([[[1, 'n']], [], ['stats']])).toBeUndefined();
  });
});
