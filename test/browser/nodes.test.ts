import { beforeEach, describe, expect, it } from 'vitest';
import type { ActorRequest } from '../support/actor.js';
import { adminClient, graphQuery, useBrowserApp } from '../support/browser.js';

const t = useBrowserApp({ prefix: 'nodes' });
const admin = t.as('Admin');

/** A fresh graph per test: nodes 0 (Ada) and 1 (Charles), relationship 0 between them. */
beforeEach(async () => {
  const client = await adminClient(t.falkordb);
  try {
    await client.sendCommand(['GRAPH.DELETE', 'people']).catch(() => undefined);
  } finally {
    await client.close();
  }
  await graphQuery(
    t.falkordb,
    'people',
    "CREATE (:Person {name: 'Ada', age: 36})-[:KNOWS {since: 1833}]->(:Person {name: 'Charles'})",
  );
});

// The direct client reads FalkorDB's verbose replies, where lists come back as text such as "[a, b]".
const state = () =>
  graphQuery(
    t.falkordb,
    'people',
    'MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN ID(n), labels(n), properties(n), properties(r) ORDER BY ID(n)',
  );

describe('nodes and relationships', () => {
  it('reads a node with its relationships', async () => {
    const res = await admin.inject({ method: 'GET', url: '/api/graph/people/0' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      result: {
        data: [
          {
            node: { id: 0, labels: ['Person'], properties: { name: 'Ada', age: 36 } },
            relationships: [
              { id: 0, relationshipType: 'KNOWS', sourceId: 0, destinationId: 1, properties: { since: 1833 } },
            ],
          },
        ],
      },
    });
    const missing = await admin.inject({ method: 'GET', url: '/api/graph/people/99' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ message: 'Node 99 not found', code: 'not_found' });
  });

  it('deletes a relationship with type false and a node with type true', async () => {
    const rel = await admin.inject({ method: 'DELETE', url: '/api/graph/people/0', payload: { type: false } });
    expect(rel.statusCode).toBe(200);
    expect(rel.json()).toEqual({ message: 'Relationship 0 deleted' });
    expect(await graphQuery(t.falkordb, 'people', 'MATCH ()-[r]->() RETURN count(r)')).toEqual([[0]]);
    const node = await admin.inject({ method: 'DELETE', url: '/api/graph/people/1', payload: { type: true } });
    expect(node.json()).toEqual({ message: 'Node 1 deleted' });
    expect(await graphQuery(t.falkordb, 'people', 'MATCH (n) RETURN n.name')).toEqual([['Ada']]);
    const gone = await admin.inject({ method: 'DELETE', url: '/api/graph/people/1', payload: { type: true } });
    expect(gone.statusCode).toBe(404);
    const noType = await admin.inject({ method: 'DELETE', url: '/api/graph/people/0', payload: {} });
    expect(noType.statusCode).toBe(400);
    expect(noType.json()).toEqual({ message: 'Missing parameter type', code: 'invalid_request' });
  });

  it('adds and removes labels', async () => {
    expect(
      (
        await admin.inject({ method: 'POST', url: '/api/graph/people/0/label', payload: { label: 'Mathematician' } })
      ).json(),
    ).toEqual({
      message: 'Label added',
    });
    expect(await graphQuery(t.falkordb, 'people', 'MATCH (n) WHERE ID(n) = 0 RETURN labels(n)')).toEqual([
      ['[Person, Mathematician]'],
    ]);
    expect(
      (await admin.inject({ method: 'DELETE', url: '/api/graph/people/0/label', payload: { label: 'Person' } })).json(),
    ).toEqual({
      message: 'Label removed',
    });
    expect(await graphQuery(t.falkordb, 'people', 'MATCH (n) WHERE ID(n) = 0 RETURN labels(n)')).toEqual([
      ['[Mathematician]'],
    ]);
    expect(
      (await admin.inject({ method: 'POST', url: '/api/graph/people/42/label', payload: { label: 'X' } })).statusCode,
    ).toBe(404);
  });

  it('sets and removes properties of nodes and relationships, values as parameters', async () => {
    const tricky = `"}) MATCH (m) DETACH DELETE m //\\ '`;
    expect(
      (
        await admin.inject({ method: 'POST', url: '/api/graph/people/0/motto', payload: { value: tricky, type: true } })
      ).json(),
    ).toEqual({
      message: 'Property set',
    });
    expect(
      (
        await admin.inject({
          method: 'POST',
          url: '/api/graph/people/0/scores',
          payload: { value: [1, 2.5, 'x', true], type: true },
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (await admin.inject({ method: 'POST', url: '/api/graph/people/0/weight', payload: { value: 0.75, type: false } }))
        .statusCode,
    ).toBe(200);
    expect(
      await graphQuery(t.falkordb, 'people', 'MATCH (n)-[r]->() WHERE ID(n) = 0 RETURN n.motto, n.scores, r.weight'),
    ).toEqual([[tricky, '[1, 2.500000, x, true]', '0.75']]);
    expect(await graphQuery(t.falkordb, 'people', 'MATCH (n) RETURN count(n)')).toEqual([[2]]);

    expect(
      (await admin.inject({ method: 'DELETE', url: '/api/graph/people/0/motto', payload: { type: true } })).json(),
    ).toEqual({
      message: 'Property removed',
    });
    expect(
      (await admin.inject({ method: 'DELETE', url: '/api/graph/people/0/since', payload: { type: false } })).json(),
    ).toEqual({
      message: 'Property removed',
    });
    expect(await graphQuery(t.falkordb, 'people', 'MATCH (n)-[r]->() WHERE ID(n) = 0 RETURN n.motto, r.since')).toEqual(
      [[null, null]],
    );

    const missingValue = await admin.inject({
      method: 'POST',
      url: '/api/graph/people/0/motto',
      payload: { type: true },
    });
    expect(missingValue.statusCode).toBe(400);
    expect(missingValue.json()).toEqual({ message: 'Missing parameter value', code: 'invalid_request' });
    const missingType = await admin.inject({ method: 'POST', url: '/api/graph/people/0/motto', payload: { value: 1 } });
    expect(missingType.json()).toEqual({ message: 'Missing parameter type', code: 'invalid_request' });
  });

  it('runs nothing injected through labels, property keys, ids or graph names', async () => {
    const before = await state();
    const attempts: [ActorRequest['method'], string, unknown][] = [
      ['POST', '/api/graph/people/0/label', { label: 'x` SET n.pwned=1 //' }],
      ['DELETE', '/api/graph/people/0/label', { label: 'Person`) DETACH DELETE n //' }],
      ['POST', `/api/graph/people/0/${encodeURIComponent('name` = 1 SET n.pwned = 1 //')}`, { value: 1, type: true }],
      ['DELETE', `/api/graph/people/0/${encodeURIComponent('a`b')}`, { type: true }],
      ['GET', '/api/graph/people/0%20OR%201=1', undefined],
      ['GET', '/api/graph/people/-1', undefined],
      ['GET', '/api/graph/people/1.5', undefined],
      ['DELETE', '/api/graph/people/0)%20DETACH%20DELETE%20(m', { type: true }],
    ];
    for (const [method, url, payload] of attempts) {
      const res = await admin.inject({ method, url, payload });
      expect(res.statusCode, url).toBe(400);
      expect(res.json<{ code: string }>()).toEqual({ message: expect.any(String) as unknown, code: 'invalid_request' });
    }
    expect(await state()).toEqual(before);
    expect(await graphQuery(t.falkordb, 'people', 'MATCH (n) WHERE n.pwned IS NOT NULL RETURN count(n)')).toEqual([
      [0],
    ]);
  });

  it('quotes unusual but harmless names as identifiers', async () => {
    expect(
      (
        await admin.inject({
          method: 'POST',
          url: '/api/graph/people/0/label',
          payload: { label: 'Has Space & ünïcode' },
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (
        await admin.inject({
          method: 'POST',
          url: `/api/graph/people/0/${encodeURIComponent('odd key!')}`,
          payload: { value: 'v', type: true },
        })
      ).statusCode,
    ).toBe(200);
    expect(await graphQuery(t.falkordb, 'people', 'MATCH (n:`Has Space & ünïcode`) RETURN n.`odd key!`')).toEqual([
      ['v'],
    ]);
  });
});

describe('role before validation', () => {
  it.each([
    ['POST', '/api/graph/people/0/label', { label: 'bad`label' }],
    ['DELETE', '/api/graph/people/0', { type: 'not-a-boolean' }],
    ['POST', '/api/graph/people/0/age', { value: { nested: true } }],
  ] as const)('answers a Read-Only %s %s with a bad body 403, not 400', async (method, url, payload) => {
    const before = await state();
    const res = await t.as('Read-Only').inject({ method, url, payload });
    expect(res.statusCode).toBe(403);
    expect(await state()).toEqual(before);
  });
});

describe('element creation (POST /api/graph/{graph}/{element})', () => {
  it('creates a node with labels and properties, every value a parameter', async () => {
    const res = await admin.inject({
      method: 'POST',
      url: '/api/graph/people/new',
      payload: {
        type: true,
        label: ['Person', 'Poet'],
        attributes: [
          ['name', 'Byron'],
          ['born', 1788],
          ['quote', 'it\'s "odd" `here`'],
          ['__proto__', 'kept'],
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const created = res.json<{
      result: { data: [{ n: { id: number; labels: string[]; properties: Record<string, unknown> } }] };
    }>().result.data[0].n;
    expect(created.labels).toEqual(['Person', 'Poet']);
    expect(created.properties).toMatchObject({ name: 'Byron', born: 1788, quote: 'it\'s "odd" `here`' });
    const stored = await graphQuery(
      t.falkordb,
      'people',
      `MATCH (n) WHERE ID(n) = ${created.id} RETURN labels(n), n.name, n.quote`,
    );
    expect(stored).toEqual([['[Person, Poet]', 'Byron', 'it\'s "odd" `here`']]);
    // A node ignores end nodes it was sent, even an empty list (found by the fuzzer: once a 500).
    expect(
      (
        await admin.inject({
          method: 'POST',
          url: '/api/graph/people/new',
          payload: { type: true, label: ['X'], selectedNodes: [] },
        })
      ).statusCode,
    ).toBe(200);
  });

  it('creates a relationship between two existing nodes, and creates nothing when one is missing', async () => {
    const res = await admin.inject({
      method: 'POST',
      url: '/api/graph/people/new',
      payload: {
        type: false,
        label: ['ADMIRES'],
        attributes: [['since', 1840]],
        selectedNodes: [{ id: 1 }, { id: 0 }],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ result: { data: [{ e: unknown }] } }>().result.data[0].e).toMatchObject({
      relationshipType: 'ADMIRES',
      sourceId: 1,
      destinationId: 0,
      properties: { since: 1840 },
    });
    const before = await state();
    const missing = await admin.inject({
      method: 'POST',
      url: '/api/graph/people/new',
      payload: {
        type: false,
        label: ['ADMIRES'],
        attributes: [],
        selectedNodes: [{ id: 0 }, { id: 999 }],
      },
    });
    expect(missing.statusCode).toBe(404);
    expect(await state()).toEqual(before);
  });

  it('refuses a relationship without exactly one type and two end nodes, a backtick in a label, and a missing graph', async () => {
    for (const body of [
      { type: false, label: [], selectedNodes: [{ id: 0 }, { id: 1 }] },
      { type: false, label: ['A', 'B'], selectedNodes: [{ id: 0 }, { id: 1 }] },
      { type: false, label: ['A'], selectedNodes: [{ id: 0 }] },
      { type: true, label: ['Bad`Label'] },
      { label: ['Person'] },
    ]) {
      const res = await admin.inject({ method: 'POST', url: '/api/graph/people/new', payload: body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect(
      (await admin.inject({ method: 'POST', url: '/api/graph/nowhere/new', payload: { type: true, label: ['X'] } }))
        .statusCode,
    ).toBe(404);
    expect((await admin.inject({ method: 'GET', url: '/api/graph' })).json<{ opts: string[] }>().opts).not.toContain(
      'nowhere',
    );
  });

  it('is for Read-Write and Admin tokens', async () => {
    const res = await t.as('Read-Only').inject({
      method: 'POST',
      url: '/api/graph/people/new',
      payload: { type: true, label: ['X'] },
    });
    expect(res.statusCode).toBe(403);
    const writer = await t.as('Read-Write').inject({
      method: 'POST',
      url: '/api/graph/people/new',
      payload: { type: true, label: ['X'] },
    });
    expect(writer.statusCode).toBe(200);
  });
});
