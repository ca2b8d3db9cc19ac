import { describe, expect, it } from 'vitest';
import { useBrowserApp } from '../support/browser.js';
import { contractMismatch, takeContractMismatches } from '../support/response-contract.js';

// The shared check (test/support/response-contract.ts) must be able to say no: an app whose /healthz answers what the
// document does not say is caught, whichever way the response is wrong.
const t = useBrowserApp({
  roles: [],
  beforeReady: (app) => {
    app.addHook('onRequest', async (request, reply) => {
      const wrong = request.headers['x-wrong'];
      // Sent as text, past the response serializer (which would refuse it with a 500 of its own).
      if (wrong === 'body') return reply.code(200).type('application/json').send('{"status":"fine"}');
      if (wrong === 'status') return reply.code(418).send({ status: 'ok' });
      if (wrong === 'media-type') return reply.code(200).type('text/plain').send('ok');
      return undefined;
    });
  },
});

describe('every response is checked against the API document', () => {
  it('records nothing for a response the document describes', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect(takeContractMismatches()).toEqual([]);
  });

  it('records a body that does not match the schema, an undeclared status and an undeclared media type', async () => {
    for (const wrong of ['body', 'status', 'media-type'])
      await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-wrong': wrong } });
    const found = takeContractMismatches();
    expect(found).toHaveLength(3);
    expect(found[0]).toMatch(
      /^GET \/healthz answered 200: the body does not match the schema for 200 application\/json/,
    );
    expect(found[1]).toMatch(/^GET \/healthz answered 418, a status the document does not declare/);
    expect(found[2]).toMatch(/^GET \/healthz answered 200 as text\/plain, not one of application\/json/);
  });

  it('checks a route by its parameters and a response by its error schema', () => {
    const observed = { method: 'GET', route: '/api/graph/:graph/count', contentType: 'application/json' };
    expect(
      contractMismatch({
        ...observed,
        status: 404,
        body: JSON.stringify({ message: 'Graph x not found', code: 'not_found' }),
      }),
    ).toBe(undefined);
    expect(contractMismatch({ ...observed, status: 404, body: JSON.stringify({ error: 'no message' }) })).toMatch(
      /does not match the schema for 404/,
    );
  });

  it('records an error body of either API without its code, or with a code outside the list', () => {
    const browser = { method: 'GET', route: '/api/graph/:graph/count', contentType: 'application/json', status: 404 };
    const admin = { method: 'GET', route: '/api/users/:email', contentType: 'application/json', status: 401 };
    const adminBody = { statusCode: 401, error: 'Unauthorized', message: 'Authentication required' };
    expect(contractMismatch({ ...admin, body: JSON.stringify({ ...adminBody, code: 'unauthenticated' }) })).toBe(
      undefined,
    );
    for (const [observed, body] of [
      [browser, { message: 'Graph x not found' }],
      [browser, { message: 'Graph x not found', code: 'GraphNotFoundError' }],
      [admin, adminBody],
      [admin, { ...adminBody, code: 'UNAUTHENTICATED' }],
    ] as const)
      expect(contractMismatch({ ...observed, body: JSON.stringify(body) })).toMatch(
        new RegExp(`answered ${observed.status}: the body does not match the schema for ${observed.status}`),
      );
  });
});
