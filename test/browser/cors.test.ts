// CORS_ORIGINS lets pages on the listed origins call the browser API with a bearer token, from a real
// Chromium: every browser operation of the OpenAPI document answers a page on an allowed origin readably, a page
// on another origin is blocked at its preflight, and the admin API is never readable cross-origin.
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBrowserPath } from '../../src/browser/paths.js';
import { corsHeaders, parseCorsOrigins } from '../../src/http/cors.js';
import { listen, startTestApp, type TestApp } from '../support/app.js';
import { tokensForEveryRole, type RoleTokens } from '../support/browser.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];

/** A page server: each origin (its own port) serves one empty page for the browser to run fetches from. */
async function startPageServer(): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>page</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface Operation {
  method: string;
  path: string;
}

/** Every browser API operation of the checked-in OpenAPI document, with sample path parameters. */
function browserOperations(): Operation[] {
  const document = JSON.parse(readFileSync('openapi/openapi.json', 'utf8')) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const operations: Operation[] = [];
  for (const [template, methods] of Object.entries(document.paths)) {
    const path = template.replace(/\{[^}]+\}/g, 'cors-probe');
    if (!isBrowserPath(path)) continue;
    for (const method of Object.keys(methods))
      if (['get', 'post', 'put', 'patch', 'delete'].includes(method))
        operations.push({ method: method.toUpperCase(), path });
  }
  return operations;
}

let allowedPage: Awaited<ReturnType<typeof startPageServer>>;
let otherPage: Awaited<ReturnType<typeof startPageServer>>;
let browser: Browser;
// Built by hand rather than with useBrowserApp: CORS_ORIGINS names the page server's port, known only once it listens.
const t = {} as { app: TestApp['app']; baseUrl: string; tokens: RoleTokens; close: () => Promise<void> };

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium not found at ${CHROMIUM}: run npm test as root (it installs it) or set CHROMIUM_PATH`);
  allowedPage = await startPageServer();
  otherPage = await startPageServer();
  const started = await startTestApp({ env: { CORS_ORIGINS: allowedPage.origin } });
  Object.assign(t, {
    app: started.app,
    close: () => started.close(),
    tokens: await tokensForEveryRole(started.app, started.falkordb, 'cors'),
    baseUrl: await listen(started.app),
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
});
afterAll(async () => {
  await browser?.close();
  await t.close?.();
  await allowedPage?.close();
  await otherPage?.close();
});

/** Runs fetches from a page on `origin`; each answers its status, or `blocked` when the browser refused it. */
async function fetchFrom(origin: string, requests: (Operation & { token?: string })[]): Promise<(number | string)[]> {
  const page = await browser.newPage();
  try {
    await page.goto(origin);
    return await page.evaluate(
      async ({ api, requests }) =>
        Promise.all(
          requests.map(async ({ method, path, token }) => {
            const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
            const hasBody = method !== 'GET' && method !== 'DELETE';
            if (hasBody) headers['content-type'] = 'application/json';
            try {
              const res = await fetch(`${api}${path}`, { method, headers, ...(hasBody ? { body: '{}' } : {}) });
              await res.text();
              return res.status;
            } catch {
              return 'blocked';
            }
          }),
        ),
      { api: t.baseUrl, requests },
    );
  } finally {
    await page.close();
  }
}

describe('CORS_ORIGINS in a real browser', () => {
  it('answers every browser API operation readably to a page on an allowed origin', async () => {
    const operations = browserOperations();
    expect(operations.length).toBeGreaterThan(40);
    const statuses = await fetchFrom(
      allowedPage.origin,
      operations.map((operation) => ({ ...operation, token: t.tokens.Admin })),
    );
    const blocked = operations.filter((_operation, index) => statuses[index] === 'blocked');
    expect(blocked).toEqual([]);
    // Real answers, not just readable ones: the graph list is a 200 with the token sent cross-origin.
    const [list] = await fetchFrom(allowedPage.origin, [{ method: 'GET', path: '/api/graph', token: t.tokens.Admin }]);
    expect(list).toBe(200);
  });

  it('blocks a page on another origin at the preflight, and a simple request by withholding the header', async () => {
    const [withToken, simple] = await fetchFrom(otherPage.origin, [
      { method: 'GET', path: '/api/graph', token: t.tokens.Admin },
      { method: 'GET', path: '/api/status' },
    ]);
    expect([withToken, simple]).toEqual(['blocked', 'blocked']);
  });

  it('never makes the admin API readable cross-origin, not even from an allowed origin', async () => {
    expect(await fetchFrom(allowedPage.origin, [{ method: 'GET', path: '/api/auth/config' }])).toEqual(['blocked']);
  });
});

describe('CORS preflights and headers', () => {
  it('answers a preflight from an allowed origin with 204 and the methods and headers; another origin with 403', async () => {
    const preflight = (origin: string) =>
      t.app.inject({
        method: 'OPTIONS',
        url: '/api/graph/x',
        headers: {
          origin,
          'access-control-request-method': 'DELETE',
          'access-control-request-headers': 'authorization',
        },
      });
    const allowed = await preflight(allowedPage.origin);
    expect(allowed.statusCode).toBe(204);
    expect(allowed.headers).toMatchObject({
      'access-control-allow-origin': allowedPage.origin,
      'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE',
      'access-control-allow-headers': 'authorization, content-type, accept, x-request-id',
      vary: 'Origin',
    });
    expect(allowed.headers['access-control-allow-credentials']).toBeUndefined();
    const refused = await preflight(otherPage.origin);
    expect([refused.statusCode, refused.json()]).toEqual([
      403,
      { message: `Origin ${otherPage.origin} is not allowed (see CORS_ORIGINS)`, code: 'forbidden' },
    ]);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('sends no CORS header at all without CORS_ORIGINS', async () => {
    const plain = await startTestApp();
    try {
      const res = await plain.app.inject({
        method: 'OPTIONS',
        url: '/api/graph',
        headers: { origin: 'https://console.example', 'access-control-request-method': 'GET' },
      });
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.statusCode).toBe(404);
    } finally {
      await plain.close();
    }
  });
});

describe('CORS_ORIGINS parsing and headers', () => {
  it('takes exact origins or * alone, and refuses anything else at start', () => {
    expect(parseCorsOrigins('https://a.example, http://127.0.0.1:8080/')).toEqual([
      'https://a.example',
      'http://127.0.0.1:8080',
    ]);
    expect(parseCorsOrigins('*')).toBe('*');
    expect(parseCorsOrigins(undefined)).toEqual([]);
    for (const bad of ['https://a.example/app', 'ftp://a.example', 'a.example', '*, https://a.example'])
      expect(() => parseCorsOrigins(bad)).toThrow(/CORS_ORIGINS/);
  });

  it('never allows credentials and answers * only when * is configured', () => {
    expect(corsHeaders('https://x.example', '*', false)).toMatchObject({ 'access-control-allow-origin': '*' });
    expect(corsHeaders('https://x.example', ['https://y.example'], true)).toEqual({});
    for (const headers of [corsHeaders('https://y.example', ['https://y.example'], true), corsHeaders('o', '*', true)])
      expect(headers['access-control-allow-credentials']).toBeUndefined();
  });
});
