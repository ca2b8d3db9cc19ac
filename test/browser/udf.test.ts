// UDF libraries through GRAPH.UDF against a real FalkorDB: Admin only, each refusal with its status.
import { describe, expect, it } from 'vitest';
import { adminClient, useBrowserApp } from '../support/browser.js';

const t = useBrowserApp({ prefix: 'udf' });
const admin = t.as('Admin');

async function storedLibraries(): Promise<unknown> {
  const client = await adminClient(t.falkordb);
  try {
    return await client.sendCommand(['GRAPH.UDF', 'LIST']);
  } finally {
    await client.close();
  }
}

const DOUBLE = "function twice(a) { return a * 2; } falkor.register('twice', twice);";

describe('UDF libraries', () => {
  it('loads a library that queries can then call, lists it, and reads its code', async () => {
    const load = await admin.inject({ method: 'POST', url: '/api/udf/math', payload: { code: DOUBLE } });
    expect(load.statusCode, load.body).toBe(200);
    expect(load.json()).toEqual({ message: 'UDF created successfully' });
    // The graph the function is called on exists first: a read never creates a graph.
    expect((await admin.inject({ method: 'POST', url: '/api/graph/udfs' })).statusCode).toBe(200);
    const query = await admin.inject({
      method: 'GET',
      url: `/api/graph/udfs?query=${encodeURIComponent('RETURN math.twice(21) AS n')}&timeout=5000`,
    });
    expect(query.json()).toMatchObject({ data: [{ n: 42 }] });
    // In GRAPH.UDF LIST's own tuple shape, which the FalkorDB Browser reads by position.
    expect((await admin.inject({ method: 'GET', url: '/api/udf' })).json()).toEqual({
      result: [['library_name', 'math', 'functions', ['twice']]],
    });
    expect((await admin.inject({ method: 'GET', url: '/api/udf/math' })).json()).toEqual({
      result: [['library_name', 'math', 'functions', ['twice'], 'library_code', DOUBLE]],
    });
  });

  it('refuses to overwrite without replace (409), replaces with it, and reports bad code as 400', async () => {
    const again = await admin.inject({ method: 'POST', url: '/api/udf/math', payload: { code: DOUBLE } });
    expect(again.statusCode).toBe(409);
    const triple = "function twice(a) { return a * 3; } falkor.register('twice', twice);";
    expect(
      (await admin.inject({ method: 'POST', url: '/api/udf/math', payload: { code: triple, replace: true } }))
        .statusCode,
    ).toBe(200);
    expect(
      (await admin.inject({ method: 'GET', url: '/api/udf/math' })).json<{ result: unknown[][] }>().result[0]![5],
    ).toBe(triple);
    const broken = await admin.inject({ method: 'POST', url: '/api/udf/broken', payload: { code: 'function (' } });
    expect(broken.statusCode).toBe(400);
    expect(broken.json<{ message: string }>().message).toContain("Failed to evaluate UDF library 'broken'");
    expect(JSON.stringify(await storedLibraries())).not.toContain('broken');
  });

  it('refuses bad names and oversized code before sending anything', async () => {
    expect(
      (await admin.inject({ method: 'POST', url: '/api/udf/bad-name', payload: { code: DOUBLE } })).statusCode,
    ).toBe(400);
    const huge = await admin.inject({
      method: 'POST',
      url: '/api/udf/huge',
      payload: { code: `// ${'x'.repeat(300 * 1024)}` },
    });
    expect(huge.statusCode).toBe(400);
    expect(huge.json<{ message: string }>().message).toContain('at most 262144 bytes');
  });

  it('answers 404 for a missing library, deletes one, and flushes all', async () => {
    expect((await admin.inject({ method: 'GET', url: '/api/udf/nothing' })).statusCode).toBe(404);
    const missing = await admin.inject({ method: 'DELETE', url: '/api/udf/nothing' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ message: 'UDF library nothing not found', code: 'not_found' });
    expect(
      (
        await admin.inject({
          method: 'POST',
          url: '/api/udf/extra',
          payload: { code: "function one() { return 1; } falkor.register('one', one);" },
        })
      ).statusCode,
    ).toBe(200);
    expect((await admin.inject({ method: 'DELETE', url: '/api/udf/extra' })).json()).toEqual({
      message: 'UDF deleted successfully',
    });
    expect((await admin.inject({ method: 'DELETE', url: '/api/udf' })).json()).toEqual({
      result: 'UDFs flushed successfully',
    });
    expect(await storedLibraries()).toEqual([]);
  });

  it('is for Admin tokens only, checked before the body', async () => {
    for (const role of ['Read-Write', 'Read-Only'] as const) {
      expect((await t.as(role).inject({ method: 'GET', url: '/api/udf' })).statusCode).toBe(403);
      const res = await t.as(role).inject({ method: 'POST', url: '/api/udf/sneaky', payload: { code: 42 } });
      expect(res.statusCode).toBe(403);
    }
    expect(await storedLibraries()).toEqual([]);
  });
});
