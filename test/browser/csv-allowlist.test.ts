// CSV_URL_ALLOWLIST (issue 15): LOAD CSV may read URLs only under the prefixes an operator named; an admitted
// query reaches the database, and a URL beside the prefix is refused before the database sees the query.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { bearer, tokensForEveryRole, type RoleTokens } from '../support/browser.js';

let t: TestApp;
let tokens: RoleTokens;
let files: Server;
let origin: string;
const fetched: string[] = [];

beforeAll(async () => {
  files = createServer((request, response) => {
    fetched.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'text/csv' }).end('name,born\nAda,1815\nCharles,1791\n');
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  t = await startTestApp({ env: { CSV_URL_ALLOWLIST: `${origin}/exports/` } });
  tokens = await tokensForEveryRole(t.app, t.falkordb, 'csv-allow');
});
afterAll(async () => {
  await t.close();
  files.close();
});

const run = (query: string) => t.app.inject({ method: 'GET', url: `/api/graph/csv-allow?query=${encodeURIComponent(query)}&timeout=10000`, headers: bearer(tokens['Read-Write']) });

describe('CSV_URL_ALLOWLIST', () => {
  it('passes LOAD CSV from a URL under an allowed prefix on to the database', async () => {
    const res = await run(`LOAD CSV WITH HEADERS FROM '${origin}/exports/people.csv' AS row RETURN row.name AS name ORDER BY name`);
    // The FalkorDB build of the tests reads file:// only and says so; a build with URL support would fetch it.
    // Either way the answer is the database's, not the guard's refusal.
    if (res.statusCode === 200) {
      expect(res.json<{ data: unknown[] }>().data).toEqual([{ name: 'Ada' }, { name: 'Charles' }]);
      expect(fetched).toEqual(['/exports/people.csv']);
    } else {
      expect([res.statusCode, res.json()]).toEqual([400, { message: 'Unsupported URI' }]);
    }
  });

  it.each([`/exports/../secrets.csv`, `/exportsx/people.csv`, `/other.csv`])('refuses %s beside the prefix, without a fetch', async (path) => {
    const before = fetched.length;
    const res = await run(`LOAD CSV FROM '${origin}${path}' AS row RETURN row`);
    expect([res.statusCode, res.json()]).toEqual([400, { message: 'LOAD CSV may only read file:// URLs, or URLs under CSV_URL_ALLOWLIST, given as a string literal' }]);
    expect(fetched.length).toBe(before);
  });
});
