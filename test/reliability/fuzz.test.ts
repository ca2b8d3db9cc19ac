// Schema-driven fuzzing of every operation in openapi/openapi.json against the live app (real FalkorDB, the
// Kubernetes API double with KubeBlocks): valid requests generated from the declared schemas and invalid variants
// of them. Invariants per case: no 5xx and no logged error, error bodies in the owning API's shape, 2xx bodies valid
// against the declared response schema, schema-violating requests refused, and stored state unchanged by a refusal.
// FUZZ_RUNS (cases per operation; default 32), FUZZ_SEED (replay a run), FUZZ_SHRINK=0 (report without shrinking).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFuzzFixture, generationContext, type FuzzFixture } from '../support/fuzz/fixture.js';
import { invalidRequests } from '../support/fuzz/invalid-variants.js';
import { loadOperations, type Operation } from '../support/fuzz/operations.js';
import { printable, type FuzzRequest } from '../support/fuzz/requests.js';
import { checkResponse } from '../support/fuzz/response-checks.js';
import { firstDifference } from '../support/fuzz/state-snapshot.js';
import { captureBaseline } from '../support/fuzz/repair.js';
import { createCaseRunner, summaryLine, type CaseRunner } from '../support/fuzz/run-case.js';
import { validRequests } from '../support/fuzz/valid-requests.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 32);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
const SHRINK = process.env.FUZZ_SHRINK !== '0';
const operations = loadOperations();

let fixture: FuzzFixture;
let runner: CaseRunner;
const started = Date.now();

beforeAll(async () => {
  fixture = await startFuzzFixture();
  runner = await createCaseRunner(fixture, await captureBaseline(fixture));
});

afterAll(async () => {
  if (runner) {
    // The figures the README's Reliability section quotes.
    // eslint-disable-next-line no-console
    console.log(
      `${summaryLine(operations.length, runner.stats)} in ${Math.round((Date.now() - started) / 1000)} s (seed ${SEED}, ${RUNS} runs per operation)`,
    );
    // eslint-disable-next-line no-console
    console.log(
      `fuzz statuses: ${JSON.stringify(runner.stats.statuses)}; variants: ${JSON.stringify(runner.stats.variants)}`,
    );
  }
  await fixture?.close();
});

describe('schema-driven fuzzing', () => {
  it('covers every operation of the OpenAPI document', () => {
    expect(operations.length).toBeGreaterThanOrEqual(50);
    expect(new Set(operations.map((op) => op.id)).size).toBe(operations.length);
    // Every body states its bound, which the oversized-body variant goes past.
    expect(operations.filter((op) => op.body && op.body.limitBytes === undefined).map((op) => op.id)).toEqual([]);
  });

  it('has checks that can fail (or the passing cases would prove nothing)', () => {
    const byId = (id: string) => operations.find((op) => op.id === id)!;
    const request = (op: Operation, extra: Partial<FuzzRequest> = {}): FuzzRequest =>
      printable({ op, variant: 'self-test', path: { graph: { value: 'g' } }, query: {}, auth: 'valid', ...extra });
    const json = (status: number, body: unknown) => ({
      status,
      contentType: 'application/json; charset=utf-8',
      body: JSON.stringify(body),
    });
    const problems = (req: FuzzRequest, url: string, outcome: ReturnType<typeof json>) =>
      checkResponse(req, url, outcome).problems;
    expect(problems(request(byId('listGraphs')), '/api/graph', json(200, { opts: ['g'] }))).toEqual([]);
    expect(
      problems(
        request(byId('listGraphs')),
        '/api/graph',
        json(500, { message: 'Internal server error', code: 'internal_error' }),
      ),
    ).toHaveLength(1);
    expect(
      problems(
        request(byId('listGraphs')),
        '/api/graph',
        json(404, { statusCode: 404, error: 'Not Found', message: 'x', code: 'not_found' }),
      ),
    ).toHaveLength(1);
    expect(
      problems(
        request(byId('listUsers')),
        '/api/users',
        json(403, { statusCode: 403, error: 'Bad Request', message: 'x', code: 'forbidden' }),
      ),
    ).toHaveLength(1);
    expect(problems(request(byId('listGraphs')), '/api/graph', json(200, { opts: [1] }))).toHaveLength(1);
    expect(
      problems(
        request(byId('createUser'), { body: { json: { username: 'a', role: 'Admin' } } }),
        '/api/user',
        json(201, { message: 'ok' }),
      ),
    ).toHaveLength(1);
    expect(problems(request(byId('listGraphs'), { auth: 'none' }), '/api/graph', json(200, { opts: [] }))).toHaveLength(
      1,
    );
    // A refusal on an event stream: a 200 whose one `error` event carries the status the request must get.
    const refusedBody = request(byId('runQueryFromBody'), {
      body: { text: '{"__proto__":{},"query":"RETURN 1"}', contentType: 'application/json' },
      expectStatus: 400,
    });
    const stream = (event: string, data: unknown) => ({
      status: 200,
      contentType: 'text/event-stream',
      body: `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`,
    });
    expect(
      problems(
        refusedBody,
        '/api/graph/g/query',
        stream('error', { message: 'x', status: 400, code: 'invalid_request' }),
      ),
    ).toEqual([]);
    expect(
      problems(refusedBody, '/api/graph/g/query', stream('error', { message: 'x', status: 404, code: 'not_found' })),
    ).toHaveLength(1);
    expect(
      problems(refusedBody, '/api/graph/g/query', stream('result', { metadata: [], data: [] })).length,
    ).toBeGreaterThan(0);
    expect(firstDifference({ graphs: ['a'] }, { graphs: ['a', 'b'] })).toContain('added ["b"]');
  });

  for (const op of operations) {
    it(`${op.method} ${op.path} (${op.id})`, { timeout: 60_000 + RUNS * 2_000 }, async () => {
      const valid = validRequests(op, generationContext(fixture, op));
      const invalid = invalidRequests(op, valid);
      const requests = invalid ? fc.oneof({ weight: 2, arbitrary: valid }, { weight: 3, arbitrary: invalid }) : valid;
      const result = await fc.check(
        fc.asyncProperty(requests, (request) => runner.run(request)),
        { numRuns: RUNS, seed: SEED, endOnFailure: !SHRINK },
      );
      if (result.failed) {
        const cause =
          result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
        const report = `${fc.defaultReportMessage(result) ?? 'failed'}\n${cause}`;
        runner.stats.failures.push({ operation: op.id, report });
        expect.fail(report);
      }
    });
  }

  it('leaves the server healthy and the fixture usable', async () => {
    const { app } = fixture.t;
    for (const url of ['/healthz', '/readyz'])
      expect((await app.inject({ method: 'GET', url })).statusCode, url).toBe(200);
    expect(
      (
        await app.inject({
          method: 'GET',
          url: '/api/status',
          headers: { authorization: `Bearer ${fixture.credentials.bearer}` },
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (await app.inject({ method: 'GET', url: '/api/auth/validate', headers: { cookie: fixture.credentials.cookie } }))
        .statusCode,
    ).toBe(200);
    expect(await fixture.redis.ping()).toBe('PONG');
  });
});
