// Validation fast paths (fast-validation.ts): the app's validator runs a schema's fast path before zod, and the
// query route's querystring and the graph name's fast paths, against zod's parse of the same schemas over every
// combination of the values that matter, answer either nothing (zod then decides) or exactly what zod answers, and
// never accept what zod refuses.
import Fastify from 'fastify';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { validatorCompiler, withFastPath } from '../../src/http/fast-validation.js';
import {
  GraphParamsSchema,
  queryStreamQuerySchema,
  usualGraphParams,
  usualQueryStreamQuery,
} from '../../src/browser/graphs/schemas.js';

const ALLOWLIST = ['https://allowed.example/data/'];
const queries: unknown[] = [
  'MATCH (n) RETURN n LIMIT 10',
  'RETURN $a',
  '',
  ' ',
  'x'.repeat(1_000_001),
  "LOAD CSV FROM 'file://people.csv' AS row RETURN row",
  "LOAD CSV FROM 'https://allowed.example/data/a.csv' AS row RETURN row",
  "LOAD CSV FROM 'https://evil.example/a.csv' AS row RETURN row",
  'MATCH (n) WHERE n.name = "load" RETURN n',
  ['MATCH (n) RETURN n', 'RETURN 1'],
  undefined,
];
const timeouts: unknown[] = [
  '1000',
  '0',
  '01',
  '9999999999',
  '99999999999',
  '-1',
  '1e3',
  ' 1000',
  '',
  undefined,
  ['1', '2'],
];
const params: unknown[] = [
  undefined,
  '{"a":1}',
  '{"a":',
  '[1]',
  '{}',
  '',
  '{"a":{"b":[1,2,"x"]}}',
  '{"a":1}x',
  ['{}', '{}'],
];
const maxRows: unknown[] = [undefined, '1', '0', '00', '999999999', '1000000000', '01', '5x', '', ['1', '2']];
const extras: Record<string, unknown>[] = [{}, { other: '1' }];

/** Every combination, as fast-querystring gives them (an object without a prototype) and as a plain object. */
function* inputs(): Generator<Record<string, unknown>> {
  for (const query of queries)
    for (const timeout of timeouts)
      for (const param of params)
        for (const rows of maxRows)
          for (const extra of extras) {
            const fields: Record<string, unknown> = { ...extra };
            if (query !== undefined) fields.query = query;
            if (timeout !== undefined) fields.timeout = timeout;
            // `parameters`: the route renames the `params` alias before validation.
            if (param !== undefined) fields.parameters = param;
            if (rows !== undefined) fields.maxRows = rows;
            yield fields;
            yield Object.assign(Object.create(null) as Record<string, unknown>, fields);
          }
}

describe('the query route querystring fast path', () => {
  it('answers nothing or exactly what zod answers, and never accepts what zod refuses', () => {
    const schema = queryStreamQuerySchema(ALLOWLIST);
    let fast = 0;
    let zodOnly = 0;
    for (const input of inputs()) {
      const answered = usualQueryStreamQuery(input, ALLOWLIST);
      const parsed = schema.safeParse(input);
      if (answered === undefined) {
        if (parsed.success) zodOnly++;
        continue;
      }
      fast++;
      expect(parsed.success, JSON.stringify(input)).toBe(true);
      expect(answered, JSON.stringify(input)).toStrictEqual(parsed.data);
    }
    // The usual inputs take the fast path; what it leaves to zod and zod accepts is only what it does not know
    // (an extra field, which zod strips).
    expect(fast).toBeGreaterThan(500);
    expect(zodOnly).toBeLessThanOrEqual(fast);
    expect(usualQueryStreamQuery({ query: 'MATCH (n) RETURN n', timeout: '1000' }, ALLOWLIST)).toStrictEqual({
      query: 'MATCH (n) RETURN n',
      timeout: 1000,
    });
    // Thousands of inputs through zod: seconds on a loaded two-core machine, so the unit tier's 5 s is too short here.
  }, 60_000);
});

describe('the graph name parameter fast path', () => {
  it('answers nothing or exactly what zod answers, and never accepts what zod refuses', () => {
    const names: unknown[] = [
      'social',
      'a',
      '',
      ' ',
      'x'.repeat(512),
      'x'.repeat(513),
      'with space',
      'caf\u00e9 \u{1f600}',
      'tab\there',
      'nul\u0000',
      'unit\u001f',
      'del\u007f',
      'c1\u0080',
      '\u2028',
      '\ud800',
      '%2F',
      'config',
      ['a', 'b'],
      42,
      undefined,
    ];
    let fast = 0;
    for (const name of names)
      for (const extra of [{}, { node: '1' }])
        for (const bare of [false, true]) {
          const fields: Record<string, unknown> = { ...extra, ...(name === undefined ? {} : { graph: name }) };
          const input = bare ? Object.assign(Object.create(null) as Record<string, unknown>, fields) : fields;
          const answered = usualGraphParams(input);
          const parsed = GraphParamsSchema.safeParse(input);
          if (answered === undefined) continue;
          fast++;
          expect(parsed.success, JSON.stringify(input)).toBe(true);
          expect(answered).toStrictEqual(parsed.data);
        }
    expect(fast).toBeGreaterThan(10);
  });
});

describe('the validator compiler', () => {
  it("answers a fast path's value, and leaves what it does not answer to zod, whose 400 is unchanged", async () => {
    const app = Fastify();
    app.setValidatorCompiler(validatorCompiler);
    // A fast path that marks what it answered, so the test can tell which one ran.
    const schema = withFastPath(z.object({ n: z.string().regex(/^\d+$/) }), (input) =>
      (input as { n?: unknown }).n === '1' ? { n: 'fast' } : undefined,
    );
    app.get('/', { schema: { querystring: schema } }, (request) => request.query);
    app.get('/plain', { schema: { querystring: z.object({ n: z.string() }) } }, (request) => request.query);
    expect((await app.inject('/?n=1')).json()).toEqual({ n: 'fast' });
    expect((await app.inject('/?n=2')).json()).toEqual({ n: '2' });
    const refused = await app.inject('/?n=x');
    expect(refused.statusCode).toBe(400);
    expect(refused.json<{ message: string }>().message).toContain('Invalid string');
    expect((await app.inject('/plain?n=1')).json()).toEqual({ n: '1' });
  });
});
