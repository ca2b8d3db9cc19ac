// The FalkorDB Browser's server-facts routes against a real FalkorDB: module version, INFO, monitor, connection
// info, a graph's memory use and its counts, for every role.
import { createClient } from 'redis';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, graphQuery, parseEvents, type RoleTokens, useBrowserApp } from '../support/browser.js';

const t = useBrowserApp({ prefix: 'facts' });
beforeAll(() =>
  graphQuery(t.falkordb, 'city', 'UNWIND range(1, 5) AS i CREATE (:Town {i: i})-[:ROAD]->(:Town {i: i + 100})'),
);

const get = (url: string, role: keyof RoleTokens = 'Read-Only', headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers: { ...bearer(t.tokens[role]), ...headers } });

describe('server facts', () => {
  it('answers the graph module and its version to every role', async () => {
    for (const role of ['Admin', 'Read-Write', 'Read-Only'] as const) {
      const res = await get('/api/DBVersion', role);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ result: ['graph', 41603] });
    }
  });

  it('answers allow-listed INFO sections without the host paths, and refuses others', async () => {
    const memory = await get('/api/info?section=memory');
    expect(memory.statusCode).toBe(200);
    expect(memory.json<{ result: string }>().result).toMatch(/^# Memory/);
    expect(memory.json<{ result: string }>().result).toContain('used_memory:');
    const server = (await get('/api/info?section=server')).json<{ result: string }>().result;
    expect(server).toContain('redis_version:');
    expect(server).not.toMatch(/^executable:|^config_file:/m);
    const all = (await get('/api/info')).json<{ result: string }>().result;
    expect(all).toContain('# Keyspace');
    expect(all).not.toContain('executable:');
    const refused = await get('/api/info?section=commandstats');
    expect(refused.statusCode).toBe(400);
    expect(refused.json<{ message: string }>().message).toContain('section must be one of');
  });

  it('shows memory and running queries; only an Admin token sees their text', async () => {
    const slowClient = createClient({ url: t.falkordb.url });
    await slowClient.connect();
    try {
      const slow = slowClient.sendCommand([
        'GRAPH.QUERY',
        'city',
        "UNWIND range(1, 40000000) AS x WITH x WHERE x = -1 RETURN 'secret-literal' AS s",
      ]);
      let running: { graph: string; query?: string }[] = [];
      for (let i = 0; i < 100 && running.length === 0; i++) {
        running = (await get('/api/monitor', 'Admin')).json<{ runningQueries: { graph: string; query?: string }[] }>()
          .runningQueries;
      }
      expect(running[0]).toMatchObject({ graph: 'city', query: expect.stringContaining('secret-literal') as unknown });
      const asReader = (await get('/api/monitor', 'Read-Only')).json<{
        memory: { name: string; series: number }[];
        graph: { name: string; series: number }[];
        runningQueries: Record<string, unknown>[];
      }>();
      expect(asReader.memory.find((point) => point.name === 'used_memory')!.series).toBeGreaterThan(0);
      expect(asReader.graph.map((point) => point.name)).toEqual(['running_queries', 'waiting_queries']);
      expect(JSON.stringify(asReader)).not.toContain('secret-literal');
      await slow;
    } finally {
      await slowClient.close();
    }
  });

  it('tells the connection role and replication, never a password', async () => {
    const res = await get('/api/connection-info');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      result: { role: 'master', connectedReplicas: 0, replicas: [], clusterEnabled: false, topology: 'single' },
    });
  });

  it("answers a graph's memory use, and 404 for a missing graph without creating it", async () => {
    const res = await get('/api/graph/city/memory');
    expect(res.statusCode).toBe(200);
    const body = res.json<{ result: unknown[]; usage: Record<string, unknown> }>();
    expect(body.result).toContain('total_graph_sz_mb');
    expect(body.usage.amortized_node_attributes_by_label_sz_mb).toEqual({ Town: expect.any(Number) as unknown });
    const missing = await get('/api/graph/nowhere/memory');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ message: 'Graph nowhere not found', code: 'not_found' });
    expect((await get('/api/graph', 'Admin')).json<{ opts: string[] }>().opts).not.toContain('nowhere');
  });

  it('counts nodes and relationships as JSON and as one SSE result event', async () => {
    expect((await get('/api/graph/city/count/nodes')).json()).toEqual({ result: { nodes: 10 } });
    expect((await get('/api/graph/city/count/edges')).json()).toEqual({ result: { edges: 5 } });
    const stream = await get('/api/graph/city/count/edges', 'Read-Only', { accept: 'text/event-stream' });
    expect(stream.headers['content-type']).toContain('text/event-stream');
    expect(parseEvents(stream.body)).toEqual([{ event: 'result', data: { edges: 5 } }]);
    expect((await get('/api/graph/nowhere/count/nodes')).statusCode).toBe(404);
  });

  it('needs a token like every other browser route', async () => {
    for (const url of [
      '/api/DBVersion',
      '/api/info',
      '/api/monitor',
      '/api/connection-info',
      '/api/graph/city/memory',
      '/api/graph/city/count/nodes',
      '/api/udf',
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(401);
      expect(res.json<Record<string, unknown>>(), url).toEqual({
        message: expect.any(String) as unknown,
        code: 'unauthenticated',
      });
    }
  });
});
