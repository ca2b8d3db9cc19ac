import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { installErrorHandling } from '../../src/http/error-handler.js';
import type { ErrorShape } from '../../src/http/error-shapes.js';
import type { ErrorCode } from '../../src/http/error-codes.js';
import { NotFoundError } from '../../src/http/http-errors.js';
import { useBrowserApp } from '../support/browser.js';

/** A scope set up exactly as an API plugin sets itself up, with routes that fail in each way. */
function failingRoutes(shape: ErrorShape) {
  return (scope: FastifyInstance, _options: unknown, done: () => void) => {
    installErrorHandling(scope, shape);
    const routes = scope.withTypeProvider<ZodTypeProvider>();
    routes.post(
      '/echo',
      {
        schema: {
          operationId: `echo_${shape}`,
          tags: ['ops'],
          body: z.object({ name: z.string().min(1) }).strict(),
          querystring: z.object({ n: z.coerce.number().int() }),
          response: { 200: z.object({ name: z.string(), n: z.number() }) },
        },
      },
      (request) => ({ name: request.body.name, n: request.query.n }),
    );
    routes.get('/missing', () => {
      throw new NotFoundError('Token not found');
    });
    routes.get('/boom', () => {
      throw new Error('connect ECONNREFUSED 10.1.2.3:6379 at /srv/secret/internals.ts');
    });
    done();
  };
}

const SHAPES: { shape: ErrorShape; prefix: string; keys: string[] }[] = [
  { shape: 'browser', prefix: '/test-browser', keys: ['code', 'message'] },
  { shape: 'admin', prefix: '/test-admin', keys: ['code', 'error', 'message', 'statusCode'] },
];

const t = useBrowserApp({
  beforeReady: async (app) => {
    await app.register(failingRoutes('browser'), { prefix: '/test-browser' });
    await app.register(failingRoutes('admin'), { prefix: '/test-admin' });
  },
  roles: [],
});

/** The shape's keys exactly (the seed's keys and `code`), and the code the failure calls for. */
function expectShape(body: Record<string, unknown>, keys: string[], status: number, code: ErrorCode) {
  expect(Object.keys(body).sort()).toEqual(keys);
  expect(typeof body.message).toBe('string');
  expect(body.code).toBe(code);
  if (keys.includes('statusCode')) expect(body.statusCode).toBe(status);
}

describe.each(SHAPES)('the $shape error shape', ({ prefix, keys }) => {
  it('answers a valid request normally', async () => {
    const res = await t.app.inject({ method: 'POST', url: `${prefix}/echo?n=3`, payload: { name: 'x' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ name: 'x', n: 3 });
  });

  it('answers a schema violation with 400 naming the field', async () => {
    const res = await t.app.inject({ method: 'POST', url: `${prefix}/echo?n=3`, payload: { name: 42 } });
    expect(res.statusCode).toBe(400);
    const body = res.json<Record<string, unknown>>();
    expectShape(body, keys, 400, 'invalid_request');
    expect(body.message).toContain('body.name');
    if (keys.includes('error')) expect(body.error).toBe('Bad Request');
  });

  it('answers a bad query parameter with 400', async () => {
    const res = await t.app.inject({ method: 'POST', url: `${prefix}/echo?n=abc`, payload: { name: 'x' } });
    expect(res.statusCode).toBe(400);
    expectShape(res.json(), keys, 400, 'invalid_request');
    expect(res.json<{ message: string }>().message).toContain('querystring.n');
  });

  it('answers malformed JSON with 400', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `${prefix}/echo?n=1`,
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(res.statusCode).toBe(400);
    expectShape(res.json(), keys, 400, 'invalid_json');
    expect(res.json<{ message: string }>().message).toBe('Invalid JSON in request body');
  });

  it('answers an empty JSON body with 400', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `${prefix}/echo?n=1`,
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(res.statusCode).toBe(400);
    // An empty body is no body: the route's schema asks for one.
    expectShape(res.json(), keys, 400, 'invalid_request');
  });

  it('answers a wrong content type with 400', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `${prefix}/echo?n=1`,
      headers: { 'content-type': 'text/plain' },
      payload: 'name=x',
    });
    expect(res.statusCode).toBe(400);
    expectShape(res.json(), keys, 400, 'unsupported_content_type');
    expect(res.json<{ message: string }>().message).toContain('Content-Type');
  });

  it('rejects __proto__ in a JSON body with 400', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `${prefix}/echo?n=1`,
      headers: { 'content-type': 'application/json' },
      payload: '{"name":"x","__proto__":{"polluted":true}}',
    });
    expect(res.statusCode).toBe(400);
    expectShape(res.json(), keys, 400, 'invalid_json');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('answers a thrown HttpError with its status and message', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${prefix}/missing` });
    expect(res.statusCode).toBe(404);
    expectShape(res.json(), keys, 404, 'not_found');
    expect(res.json<{ message: string }>().message).toBe('Token not found');
  });

  it('answers an unexpected throw with a generic 500 and logs the cause', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${prefix}/boom` });
    expect(res.statusCode).toBe(500);
    expectShape(res.json(), keys, 500, 'internal_error');
    expect(res.json<{ message: string }>().message).toBe('Internal server error');
    expect(res.body).not.toMatch(/ECONNREFUSED|10\.1\.2\.3|secret|internals|stack/);
    expect(t.logs.text).toContain('ECONNREFUSED 10.1.2.3');
  });
});

describe('requests that match no route', () => {
  it('answers a browser API path in the browser shape', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/graph/a/b/c/d/e' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ message: 'Route GET /api/graph/a/b/c/d/e not found', code: 'route_not_found' });
  });

  it('answers router-level failures (malformed encoding, oversized segment) with 400 in the owning shape', async () => {
    const badEncoding = await t.app.inject({ method: 'GET', url: '/api/graph/%E0%A4%A' });
    expect(badEncoding.statusCode).toBe(400);
    expect(badEncoding.json()).toEqual({ message: 'Malformed URL', code: 'malformed_request' });
    const oversized = await t.app.inject({ method: 'GET', url: `/api/graph/${'g'.repeat(3000)}/count` });
    expect(oversized.statusCode).toBe(400);
    expect(oversized.json()).toEqual({ message: 'A path segment is too long', code: 'malformed_request' });
  });

  it('answers any other path in the admin shape', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/no-such-thing?x=1' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'Route GET /api/no-such-thing not found',
      code: 'route_not_found',
    });
  });
});
