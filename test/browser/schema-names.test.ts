// A query pays for no name lookups once the graph's names are known, and the names stay right when anyone
// deletes and recreates the graph, adds names, or reorders them: FalkorDB confirms the schema version in the same
// command (src/platform/falkordb/schema-names.ts).
import { describe, expect, it } from 'vitest';
import { adminClient, bearer, graphQuery, useBrowserApp } from '../support/browser.js';

const t = useBrowserApp({ prefix: 'names' });

async function query(graph: string, cypher: string) {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/graph/${graph}?query=${encodeURIComponent(cypher)}&timeout=10000`,
    headers: bearer(t.tokens.Admin),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: Record<string, unknown>[] }>().data;
}

async function recreate(graph: string, cypher: string): Promise<void> {
  const client = await adminClient(t.falkordb);
  try {
    await client.sendCommand(['GRAPH.DELETE', graph]).catch(() => undefined);
  } finally {
    await client.close();
  }
  await graphQuery(t.falkordb, graph, cypher);
}

/** GRAPH.QUERY and GRAPH.RO_QUERY calls the database has served so far (name lookups are RO_QUERY calls too). */
async function graphCommandCalls(): Promise<number> {
  const client = await adminClient(t.falkordb);
  try {
    const info = await client.sendCommand<string>(['INFO', 'commandstats']);
    return [...info.matchAll(/^cmdstat_graph\.(?:ro_)?query:calls=(\d+)/gim)].reduce(
      (sum, match) => sum + Number(match[1]),
      0,
    );
  } finally {
    await client.close();
  }
}

describe('schema names', () => {
  it('sends one command per query once the names are known', async () => {
    await recreate('steady', "CREATE (:Person {name: 'Ada'})-[:KNOWS]->(:Person {name: 'Grace'})");
    await query('steady', 'MATCH (p:Person) RETURN p');
    const before = await graphCommandCalls();
    for (let i = 0; i < 10; i++) {
      const rows = await query('steady', 'MATCH (p:Person)-[k:KNOWS]->(q) RETURN p, k, q');
      expect(rows[0]).toMatchObject({
        p: { labels: ['Person'], properties: { name: 'Ada' } },
        k: { relationshipType: 'KNOWS' },
        q: { labels: ['Person'], properties: { name: 'Grace' } },
      });
    }
    // Ten queries, ten commands (the counting itself goes through INFO, not a graph command).
    expect((await graphCommandCalls()) - before).toBe(10);
  });

  it('names a recreated graph by its new names, even when the same names come in another order', async () => {
    await recreate('reborn', 'CREATE (:A {x: 1}), (:B {y: 2})');
    expect(await query('reborn', 'MATCH (n) RETURN n ORDER BY id(n)')).toEqual([
      { n: { id: 0, labels: ['A'], properties: { x: 1 } } },
      { n: { id: 1, labels: ['B'], properties: { y: 2 } } },
    ]);
    // Same names, other ids: label 0 is now B, property key 0 is now y.
    await recreate('reborn', 'CREATE (:B {y: 3}), (:A {x: 4})');
    expect(await query('reborn', 'MATCH (n) RETURN n ORDER BY id(n)')).toEqual([
      { n: { id: 0, labels: ['B'], properties: { y: 3 } } },
      { n: { id: 1, labels: ['A'], properties: { x: 4 } } },
    ]);
    await recreate('reborn', "CREATE ()-[:OTHER {w: 'z'}]->()");
    expect(await query('reborn', 'MATCH ()-[r]->() RETURN type(r) AS t, r.w AS w, r')).toMatchObject([
      { t: 'OTHER', w: 'z', r: { relationshipType: 'OTHER', properties: { w: 'z' } } },
    ]);
  });

  it('names what a query itself creates, and what another client added meanwhile', async () => {
    await recreate('growing', 'CREATE (:Old {a: 1})');
    await query('growing', 'MATCH (n) RETURN n');
    expect(await query('growing', "CREATE (n:New {b: 'made here'}) RETURN n")).toMatchObject([
      { n: { labels: ['New'], properties: { b: 'made here' } } },
    ]);
    await graphQuery(t.falkordb, 'growing', "CREATE (:Elsewhere {c: 'made there'})");
    expect(await query('growing', 'MATCH (n:Elsewhere) RETURN n')).toMatchObject([
      { n: { labels: ['Elsewhere'], properties: { c: 'made there' } } },
    ]);
  });

  it('leaves no empty graph behind when a write fails on a graph deleted after its names were remembered', async () => {
    await recreate('vanishing', 'CREATE (:V)');
    await query('vanishing', 'MATCH (n) RETURN n');
    const client = await adminClient(t.falkordb);
    try {
      await client.sendCommand(['GRAPH.DELETE', 'vanishing']);
    } finally {
      await client.close();
    }
    const failed = await t.app.inject({
      method: 'GET',
      url: `/api/graph/vanishing?query=${encodeURIComponent('CREATE (:V) RETURN toInteger({})')}&timeout=10000`,
      headers: bearer(t.tokens.Admin),
    });
    expect(failed.statusCode).toBe(400);
    const graphs = await t.app.inject({ method: 'GET', url: '/api/graph', headers: bearer(t.tokens.Admin) });
    expect(graphs.json<{ opts: string[] }>().opts).not.toContain('vanishing');
  });
});
