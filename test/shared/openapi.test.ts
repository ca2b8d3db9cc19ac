import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { chromium } from 'playwright-core';
import { validate } from '@readme/openapi-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_FILE, serializeDocument } from '../../scripts/export-openapi.js';
import { isBrowserPath } from '../../src/browser/paths.js';
import { findFreePort } from '../../src/platform/net.js';
import { startTestApp } from '../support/app.js';
import { useBrowserApp } from '../support/browser.js';

interface Operation {
  operationId?: string;
  tags?: string[];
  responses?: Record<string, unknown>;
  security?: Record<string, string[]>[];
}
type Document = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown> };
};

const t = useBrowserApp({ roles: [] });
let document: Document;
beforeAll(async () => {
  const res = await t.app.inject({ method: 'GET', url: '/api-spec.json' });
  expect(res.statusCode).toBe(200);
  document = res.json<Document>();
});

describe('/api-spec.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, JSON.stringify(result)).toBe(true);
    // The validator itself must be able to say no, or this test proves nothing.
    const broken = { ...structuredClone(document), paths: { '/x': { get: { responses: 'none' } } } };
    expect((await validate(broken as never)).valid).toBe(false);
  });

  it('gives every operation an operationId, tags and responses', () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method, op })),
    );
    expect(operations.length).toBeGreaterThan(0);
    for (const { path, method, op } of operations) {
      expect(op.operationId, `${method} ${path}`).toMatch(/^\w+$/);
      expect(op.tags?.length, `${method} ${path}`).toBeGreaterThan(0);
      expect(Object.keys(op.responses ?? {}).length, `${method} ${path}`).toBeGreaterThan(0);
    }
    const ids = operations.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('declares the headers the server sends, and 503 (and 408 with a body) wherever REQUEST_TIMEOUT_MS or an outage can answer', () => {
    type Response = { headers?: Record<string, { schema: { type: string }; description: string }> };
    const response = (path: string, method: string, status: string) =>
      document.paths[path]![method]!.responses![status] as Response;
    expect(Object.keys(response('/api/user', 'post', '201').headers ?? {})).toEqual(['location']);
    expect(Object.keys(response('/api/auth/login', 'post', '200').headers ?? {})).toEqual(['set-cookie']);
    expect(Object.keys(response('/api/auth/logout', 'post', '200').headers ?? {})).toEqual(['set-cookie']);
    expect(Object.keys(response('/api/auth/oauth/{provider}/callback', 'get', '302').headers ?? {}).sort()).toEqual([
      'location',
      'set-cookie',
    ]);
    let limited = 0;
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const responses = op.responses ?? {};
        if (path.startsWith('/api/')) expect(responses, `${method} ${path}`).toHaveProperty('503');
        if ('requestBody' in op) expect(responses, `${method} ${path}`).toHaveProperty('408');
        if (responses['429']) {
          limited++;
          expect((responses['429'] as Response).headers?.['retry-after']?.schema.type, `${method} ${path}`).toBe(
            'string',
          );
        }
      }
    }
    expect(limited).toBeGreaterThan(1);
  });

  it('declares every tag it uses once, with one spelling, and carries no boolean `items` beside prefixItems', () => {
    const declared = (document as unknown as { tags: { name: string }[] }).tags.map((tag) => tag.name);
    const used = new Set(
      Object.values(document.paths).flatMap((methods) => Object.values(methods).flatMap((op) => op.tags ?? [])),
    );
    expect([...used].filter((tag) => !declared.includes(tag))).toEqual([]);
    expect(new Set(declared.map((tag) => tag.toLowerCase())).size).toBe(declared.length);
    const closedTuples: string[] = [];
    const visit = (node: unknown, at: string): void => {
      if (node === null || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      if ('prefixItems' in schema && schema.items === false) closedTuples.push(at);
      for (const [key, value] of Object.entries(schema)) visit(value, `${at}/${key}`);
    };
    visit(document, '');
    expect(closedTuples).toEqual([]);
  });

  it('names a deployment in a path {clusterName} everywhere', () => {
    const names = new Set(
      Object.keys(document.paths)
        .map((path) => /^\/api\/clusters\/\{([^}]+)\}/.exec(path)?.[1])
        .filter((name) => name !== undefined),
    );
    expect([...names]).toEqual(['clusterName']);
  });

  it('declares the bearer and cookie security schemes', () => {
    expect(document.components.securitySchemes).toMatchObject({
      bearerAuth: { type: 'http', scheme: 'bearer' },
      cookieAuth: { type: 'apiKey', in: 'cookie', name: 'token' },
      sessionBearerAuth: { type: 'http', scheme: 'bearer' },
    });
  });

  it('declares security exactly where a request without credentials is refused with 401', async () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method, op })),
    );
    for (const { path, method, op } of operations) {
      const url = path.replace(/\{[^}]+\}/g, 'x');
      const res = await t.app.inject({ method: method.toUpperCase() as 'GET', url });
      const declared = (op.security ?? []).flatMap((requirement) => Object.keys(requirement));
      const expected =
        res.statusCode === 401 ? (isBrowserPath(url) ? ['bearerAuth'] : ['cookieAuth', 'sessionBearerAuth']) : [];
      expect(declared, `${method} ${path} answered ${res.statusCode}`).toEqual(expected);
      if (declared.length > 0)
        expect(Object.keys(op.responses ?? {}), `${method} ${path}`).toEqual(expect.arrayContaining(['401', '403']));
    }
  });

  it('documents the probes under the ops tag and hides the documentation routes', () => {
    expect(document.paths['/healthz']?.get?.tags).toEqual(['ops']);
    expect(document.paths['/readyz']?.get?.tags).toEqual(['ops']);
    expect(
      Object.keys(document.paths).filter((path) => path.startsWith('/api-docs') || path === '/api-spec.json'),
    ).toEqual([]);
  });

  it('matches the checked-in openapi/openapi.json (run `npm run openapi` when this fails)', async () => {
    const checkedIn = await readFile(OPENAPI_FILE, 'utf8');
    expect(checkedIn).toBe(serializeDocument(document));
  });
});

describe('/api-docs', () => {
  it('serves the interactive browser by default', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api-docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('swagger-ui');
  });

  it('sends a Content-Security-Policy, X-Frame-Options and nosniff with the page and every file it loads', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/api-docs/' });
    const assets = [...page.body.matchAll(/(?:src|href)="\.\/static\/([^"]+)"/g)].map(
      (match) => `/api-docs/static/${match[1]}`,
    );
    expect(assets).toEqual(
      expect.arrayContaining([
        '/api-docs/static/swagger-ui-bundle.js',
        '/api-docs/static/swagger-initializer.js',
        '/api-docs/static/swagger-ui.css',
      ]),
    );
    for (const url of ['/api-docs', '/api-docs/', '/api-docs/json', ...assets]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBeLessThan(400);
      const csp = String(res.headers['content-security-policy']);
      expect(csp, url).toContain("default-src 'self'");
      expect(csp, url).toContain("script-src 'self'");
      expect(csp, url).toContain("frame-ancestors 'none'");
      expect(csp, url).toContain("object-src 'none'");
      expect(csp, url).not.toMatch(/script-src[^;]*unsafe/);
      expect(res.headers['x-frame-options'], url).toBe('DENY');
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
    }
  });

  it('still works under that policy in a real browser (the spec renders, no violation)', async () => {
    const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
    if (!existsSync(chromiumPath))
      throw new Error(
        `Chromium not found at ${chromiumPath}: run npm test as root (it installs Debian's chromium) or set CHROMIUM_PATH`,
      );
    const port = await findFreePort();
    const served = await startTestApp({ falkordb: t.falkordb });
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      await served.app.listen({ port, host: '127.0.0.1' });
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
      });
      await page.goto(`http://127.0.0.1:${port}/api-docs/`);
      await page.waitForSelector('.swagger-ui .info .title', { timeout: 15_000 });
      expect(await page.textContent('.swagger-ui .info .title')).toContain('graphdb-server');
      await page.waitForSelector('.opblock', { timeout: 15_000 });
      expect(violations).toEqual([]);
    } finally {
      await browser.close();
      await served.close();
    }
  });

  it('is absent with ENABLE_DOCSUI=false while /api-spec.json stays', async () => {
    const hidden = await startTestApp({ falkordb: t.falkordb, env: { ENABLE_DOCSUI: 'false' } });
    try {
      for (const url of ['/api-docs', '/api-docs/', '/api-docs/json']) {
        const res = await hidden.app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(404);
      }
      expect((await hidden.app.inject({ method: 'GET', url: '/api-spec.json' })).statusCode).toBe(200);
    } finally {
      await hidden.close();
    }
  });
});
