// CSV_URL_ALLOWLIST: LOAD CSV may read URLs only under the public prefixes an operator named;
// an admitted query reaches the database, a URL beside the prefix or on an internal address is refused before the
// database sees the query (so no connection is ever attempted), and the setting itself refuses internal prefixes.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { TEST_SECRETS } from '../support/app.js';
import { bearer, useBrowserApp } from '../support/browser.js';

const t = useBrowserApp({ env: { CSV_URL_ALLOWLIST: 'https://data.example.org/exports/' }, prefix: 'csv-allow' });
let listener: Server;
let internalOrigin: string;
const connections: string[] = [];
const REFUSED = {
  message: 'LOAD CSV may only read file:// URLs, or URLs under CSV_URL_ALLOWLIST, given as a string literal',
  code: 'invalid_request',
};

beforeAll(async () => {
  // A server on loopback that records any connection: the refused queries must never reach it.
  listener = createServer((request, response) => {
    connections.push(request.url ?? '');
    response.end('name\nx\n');
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  internalOrigin = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
});
afterAll(() => {
  listener.close();
});

const run = (query: string) =>
  t.app.inject({
    method: 'GET',
    url: `/api/graph/csv-allow?query=${encodeURIComponent(query)}&timeout=10000`,
    headers: bearer(t.tokens['Read-Write']),
  });

describe('CSV_URL_ALLOWLIST', () => {
  it('passes LOAD CSV from a URL under an allowed prefix on to the database', async () => {
    const res = await run(
      "LOAD CSV WITH HEADERS FROM 'https://data.example.org/exports/people.csv' AS row RETURN row.name AS name",
    );
    // The answer is the database's (this build reads file:// only, and no registry host is reachable here), not
    // the guard's refusal.
    expect(res.statusCode).toBe(400);
    expect(res.json()).not.toEqual(REFUSED);
  });

  it.each([
    'https://data.example.org/exports/../secrets.csv',
    'https://data.example.org/exportsx/people.csv',
    'https://other.example.org/exports/a.csv',
    'http://169.254.169.254/latest/meta-data/',
  ])('refuses %s without the database seeing it', async (url) => {
    const res = await run(`LOAD CSV FROM '${url}' AS row RETURN row`);
    expect([res.statusCode, res.json()]).toEqual([400, REFUSED]);
  });

  it('refuses a loopback URL without any connection attempt', async () => {
    const res = await run(`LOAD CSV FROM '${internalOrigin}/exports/people.csv' AS row RETURN row`);
    expect([res.statusCode, res.json()]).toEqual([400, REFUSED]);
    expect(connections).toEqual([]);
  });

  it('does not start with an internal prefix in the list', () => {
    for (const prefix of [
      `${internalOrigin}/exports/`,
      'http://169.254.169.254/',
      'http://[::1]/',
      'http://10.0.0.8/',
    ]) {
      expect(() => loadConfig({ ...TEST_SECRETS, CSV_URL_ALLOWLIST: prefix }), prefix).toThrow(
        /loopback, private, link-local or special address/,
      );
    }
  });
});
