// Issue 15: a query's timeout is clamped to QUERY_TIMEOUT_MAX_MS, and timeout=0 no longer means "no limit".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { bearer, parseEvents, tokensForEveryRole, type RoleTokens } from '../support/browser.js';
import { clampQueryTimeout } from '../../src/browser/graphs/query-routes.js';

let t: TestApp;
let tokens: RoleTokens;
const SLOW_QUERY = 'UNWIND range(1, 20000000) AS x RETURN count(x) AS n';

beforeAll(async () => {
  t = await startTestApp({ env: { QUERY_TIMEOUT_MAX_MS: '100' } });
  tokens = await tokensForEveryRole(t.app, t.falkordb, 'bounds');
});
afterAll(() => t.close());

const url = (timeout: string) => `/api/graph/bounds?query=${encodeURIComponent(SLOW_QUERY)}&timeout=${timeout}`;

describe('QUERY_TIMEOUT_MAX_MS', () => {
  it.each(['0', '600000'])('runs a query asked to take timeout=%s with the maximum instead', async (timeout) => {
    const stream = await t.app.inject({ method: 'GET', url: url(timeout), headers: { ...bearer(tokens.Admin), accept: 'text/event-stream' } });
    expect(parseEvents(stream.body)).toEqual([{ event: 'error', data: { message: 'Query timed out', status: 400 } }]);
    const json = await t.app.inject({ method: 'GET', url: url(timeout), headers: bearer(tokens.Admin) });
    expect(json.statusCode).toBe(400);
    expect(json.json()).toEqual({ message: 'Query timed out' });
  });

  it('keeps timeouts within the maximum and clamps the rest', () => {
    expect(clampQueryTimeout(500, 1000)).toBe(500);
    expect(clampQueryTimeout(0, 1000)).toBe(1000);
    expect(clampQueryTimeout(5000, 1000)).toBe(1000);
    expect(clampQueryTimeout(0, undefined)).toBe(0);
  });
});
