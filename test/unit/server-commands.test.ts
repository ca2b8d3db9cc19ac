// Parsers of FalkorDB's server-level replies, over replies recorded from a real server (fixtures/record-server-replies.ts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  graphModuleVersion,
  parseInfo,
  parseMemoryUsage,
  parseQueryList,
  parseQueryLists,
  parseUdfList,
} from '../../src/platform/falkordb/server-commands.js';

const replies = JSON.parse(
  readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'server-replies.json'), 'utf8'),
) as Record<string, unknown>;

describe('server command replies', () => {
  it('reads the graph module version from MODULE LIST, and nothing when it is absent', () => {
    expect(graphModuleVersion(replies.moduleList)).toBe(41603);
    expect(graphModuleVersion([['name', 'search', 'ver', 20000]])).toBeUndefined();
    expect(graphModuleVersion(null)).toBeUndefined();
  });

  it('lists UDF libraries with their functions, and their code when asked', () => {
    expect(parseUdfList(replies.udfListAll)).toEqual([
      { name: 'mylib', functions: ['double'] },
      { name: 'other', functions: ['same', 'again'] },
    ]);
    expect(parseUdfList(replies.udfListOne)).toEqual([
      { name: 'mylib', functions: ['double'], code: "function f(a){return a*2}; falkor.register('double', f);" },
    ]);
    expect(parseUdfList(replies.udfListNone)).toEqual([]);
  });

  it('reads running and waiting queries from GRAPH.INFO', () => {
    const [running] = parseQueryList(replies.running);
    expect(running).toMatchObject({
      graph: 'g',
      query: 'UNWIND range(1, 30000000) AS x RETURN count(x)',
      replicated: false,
    });
    expect(running!.durationMs).toBeGreaterThan(0);
    expect(running!.receivedAt % 1000).toBe(0);
    expect(parseQueryList(replies.waiting)).toEqual([]);
    expect(parseQueryList(replies.runningIdle)).toEqual([]);
  });

  it('reads both query lists from GRAPH.INFO without a section (one command, no key for a cluster to route)', () => {
    const { running, waiting } = parseQueryLists(replies.infoAll);
    expect(running).toEqual([
      {
        receivedAt: 1795562592000,
        graph: 'g',
        query: 'UNWIND range(1, 30000000) AS x WITH x WHERE x = -1 RETURN 1',
        durationMs: 482.57462400215445,
        replicated: false,
      },
    ]);
    expect(waiting).toEqual([]);
    expect(parseQueryLists(replies.infoAllIdle)).toEqual({ running: [], waiting: [] });
    expect(parseQueryLists(null)).toEqual({ running: [], waiting: [] });
  });

  it('breaks GRAPH.MEMORY USAGE down per label and relationship type', () => {
    expect({ ...parseMemoryUsage(replies.memory) }).toEqual({
      total_graph_sz_mb: 0,
      label_matrices_sz_mb: 0,
      relation_matrices_sz_mb: 0,
      amortized_node_block_sz_mb: 0,
      amortized_node_attributes_by_label_sz_mb: { P: 0, Q: 0 },
      amortized_unlabeled_nodes_attributes_sz_mb: 0,
      amortized_edge_block_sz_mb: 0,
      amortized_edge_attributes_by_type_sz_mb: { R: 0 },
      indices_sz_mb: 0,
    });
  });

  it('splits INFO text into sections', () => {
    const info = parseInfo(
      '# Memory\r\nused_memory:1024\r\nused_memory_human:1.00K\r\n\r\n# Keyspace\r\ndb0:keys=1,expires=0\r\n',
    );
    expect(info).toEqual({
      memory: { used_memory: '1024', used_memory_human: '1.00K' },
      keyspace: { db0: 'keys=1,expires=0' },
    });
  });
});
