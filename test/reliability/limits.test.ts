// Limits over real HTTP, each answered in the error shape of the API that owns the path (browser `{message}`, admin
// `{statusCode, error, message}`): bodies over 1 MiB (413), header blocks over Node's maxHeaderSize (431), requests
// not received (408) or not answered (503) within REQUEST_TIMEOUT_MS, and the per-client login rate limit (429).
import net, { type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, login, startAdminTestApp, useAdminApp, type AdminTestApp } from '../support/admin.js';
import { listen } from '../support/app.js';
import { bearer, createToken, credentials } from '../support/browser.js';
import { runQuery } from '../support/reliability.js';
import { sleep } from '../support/wait.js';

const MIB = 1024 * 1024;
const REQUEST_TIMEOUT_MS = 1000;
const browserBody = (message: string, code: string) => ({ message, code });
const adminBody = (statusCode: number, error: string, message: string, code: string) => ({
  statusCode,
  error,
  message,
  code,
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  elapsedMs: number;
}

/** Writes `text` on a fresh socket (never more) and reads the answer until the server closes or `waitMs` passes. */
function rawRequest(baseUrl: string, text: string | Buffer, waitMs = 8000): Promise<RawAnswer> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(text));
    const timer = setTimeout(() => socket.destroy(), waitMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = raw.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1]);
      if (!status) return reject(new Error(`no HTTP answer: ${raw.slice(0, 200)}`));
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({
        status,
        headers,
        body: body ? (JSON.parse(body) as unknown) : undefined,
        elapsedMs: Date.now() - started,
      });
    });
  });
}

describe('size limits', () => {
  // Only the per-address-and-e-mail limit is under test here (login-limits.test.ts has the others).
  const t = useAdminApp({
    env: { LOGIN_CHECKS_MAX: '100', LOGIN_FAILURES_BEFORE_BACKOFF: '100' },
    listen: true,
    roles: ['admin'],
  });
  let baseUrl: string;
  let cookie: string;
  beforeAll(() => {
    cookie = t.sessions.admin;
    baseUrl = t.baseUrl;
  });

  const oversized = JSON.stringify({ username: 'x'.repeat(MIB) });

  it('answers a body over 1 MiB with 413 in each shape, declared or chunked, and writes nothing', async () => {
    const settingsBefore = await t.backdoor.settingsText();
    const browser = await fetch(`${baseUrl}/api/auth/tokens/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: oversized,
    });
    expect(browser.status).toBe(413);
    expect(await browser.json()).toEqual(browserBody('Request body is too large', 'payload_too_large'));
    const admin = await fetch(`${baseUrl}/api/settings/`, {
      method: 'PATCH',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ ui: { blob: 'x'.repeat(MIB) } }),
    });
    expect(admin.status).toBe(413);
    expect(await admin.json()).toEqual(
      adminBody(413, 'Payload Too Large', 'Request body is too large', 'payload_too_large'),
    );
    // Without a Content-Length the limit applies while the body streams in.
    const chunked = await rawRequest(
      baseUrl,
      `POST /api/auth/tokens/credentials HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${(MIB + 16).toString(16)}\r\n${'{'.padEnd(MIB + 16, ' ')}\r\n0\r\n\r\n`,
    );
    expect(chunked.status).toBe(413);
    expect(chunked.body).toEqual(browserBody('Request body is too large', 'payload_too_large'));
    expect(await t.backdoor.settingsText()).toBe(settingsBefore);
  });

  it('reads a body just under 1 MiB (and answers it on its merits)', async () => {
    const res = await fetch(`${baseUrl}/api/auth/tokens/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'x'.repeat(MIB - 100) }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: expect.any(String) as unknown, code: 'invalid_request' });
  });

  it("answers a header block over Node's maxHeaderSize with 431 in the owning API's shape, and keeps serving", async () => {
    const big = 'h'.repeat(20 * 1024);
    const browser = await rawRequest(baseUrl, `GET /api/graph HTTP/1.1\r\nHost: x\r\nX-Padding: ${big}\r\n\r\n`);
    expect([browser.status, browser.body]).toEqual([
      431,
      browserBody('Request headers are too large', 'headers_too_large'),
    ]);
    const admin = await rawRequest(
      baseUrl,
      `GET /api/settings/ HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}; pad=${big}\r\n\r\n`,
    );
    expect([admin.status, admin.body]).toEqual([
      431,
      adminBody(431, 'Request Header Fields Too Large', 'Request headers are too large', 'headers_too_large'),
    ]);
    // A request line longer than the prefix the parser hands back still tells whose path it is.
    const longLine = await rawRequest(baseUrl, `GET /api/graph/${'g'.repeat(64 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect([longLine.status, longLine.body]).toEqual([
      431,
      browserBody('Request headers are too large', 'headers_too_large'),
    ]);
    // 8 KiB of headers is fine.
    const normal = await fetch(`${baseUrl}/api/settings/`, { headers: { cookie, 'x-padding': 'h'.repeat(8 * 1024) } });
    expect(normal.status).toBe(200);
    const malformed = await rawRequest(baseUrl, 'NOT HTTP AT ALL\r\n\r\n');
    expect([malformed.status, malformed.body]).toEqual([
      400,
      adminBody(400, 'Bad Request', 'Malformed HTTP request', 'malformed_request'),
    ]);
  });

  it('limits sign-in to 10 attempts a minute per client and e-mail under concurrent requests, answering 429 with Retry-After', async () => {
    const attempt = (email: string, password: string) =>
      fetch(`${baseUrl}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      });
    const burst = await Promise.all(
      Array.from({ length: 15 }, () => attempt('victim@corp.example', 'guessed-password')),
    );
    expect(burst.map((res) => res.status).sort()).toEqual([
      ...Array<number>(10).fill(401),
      ...Array<number>(5).fill(429),
    ]);
    const limited = burst.find((res) => res.status === 429)!;
    expect(await limited.json()).toEqual(
      adminBody(
        429,
        'Too Many Requests',
        expect.stringMatching(/^Too many sign-in attempts; try again in \d+ seconds$/) as unknown as string,
        'rate_limited',
      ),
    );
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another account from the same client is not locked out by the noise.
    expect((await attempt('bystander@corp.example', 'guessed-password')).status).toBe(401);
  });
});

describe(`REQUEST_TIMEOUT_MS=${REQUEST_TIMEOUT_MS}`, () => {
  let t: AdminTestApp;
  let baseUrl: string;
  let blackHole: Server;
  const heldSockets: net.Socket[] = [];
  let token: string;
  /** Long enough to outlast the timeout on two busy cores. */
  const SLOW_QUERY = 'UNWIND range(1, 20000000) AS x RETURN count(x) AS n';

  beforeAll(async () => {
    // An identity provider that accepts connections and never answers: OpenID discovery hangs.
    blackHole = net.createServer((socket) => heldSockets.push(socket));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(blackHole.address() as net.AddressInfo).port}`;
    t = await startAdminTestApp('embedded', {
      env: {
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        CREDENTIAL_CHECK_TIMEOUT_MS: '5000',
        ALPHA_CLIENT_ID: 'alpha-client',
        ALPHA_CLIENT_SECRET: 'alpha-secret',
        ALPHA_ISSUER: issuer,
      },
    });
    const cookie = await login(t.app, ADMIN.email, ADMIN.password);
    await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/',
      headers: { cookie },
      payload: { features: { oauth2_enabled: true } },
    });
    token = await createToken(t.app, credentials(t.falkordb, 'default', ''));
    // The slow queries read the graph `slow`, and a read never creates a graph.
    const created = await t.app.inject({ method: 'POST', url: '/api/graph/slow', headers: bearer(token) });
    expect(created.statusCode, created.body).toBe(200);
    baseUrl = await listen(t.app);
  });
  afterAll(async () => {
    await t.close();
    blackHole.close();
  });

  it('answers 408 to a client that does not send its whole request in time, in the shape of its path when known', async () => {
    const slowBody = (path: string) =>
      rawRequest(
        baseUrl,
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"user`,
      );
    const [browser, admin, slowHeaders] = await Promise.all([
      slowBody('/api/auth/tokens/credentials'),
      slowBody('/api/auth/login'),
      rawRequest(baseUrl, 'GET /api/graph HTTP/1.1\r\nHost: x\r\nX-Slow: '),
    ]);
    expect([browser.status, browser.body]).toEqual([
      408,
      browserBody('The request was not received in time', 'request_timeout'),
    ]);
    expect([admin.status, admin.body]).toEqual([
      408,
      adminBody(408, 'Request Timeout', 'The request was not received in time', 'request_timeout'),
    ]);
    // Before the request line is complete nothing says which API it is for: the admin shape, which has `message` too.
    expect([slowHeaders.status, slowHeaders.body]).toEqual([
      408,
      adminBody(408, 'Request Timeout', 'The request was not received in time', 'request_timeout'),
    ]);
    for (const answer of [browser, admin, slowHeaders]) {
      expect(answer.elapsedMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
      expect(answer.elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + 2500);
    }
  });

  it('answers 503 to a request it cannot answer in time and keeps serving', async () => {
    // Only this test's requests: the slow-body requests of the 408 test may still be winding down, and Fastify
    // warns when their abandoned body parsing finally ends (a 408 was sent already).
    const firstLine = t.logs.lines.length;
    const earlierRequests = new Set<unknown>(t.logs.lines.map((line) => line.reqId).filter((id) => id !== undefined));
    const started = Date.now();
    const signIn = await fetch(`${baseUrl}/api/auth/oauth/alpha`, { redirect: 'manual' }).then(async (res) => ({
      status: res.status,
      body: await res.json(),
    }));
    expect(signIn).toEqual({
      status: 503,
      body: adminBody(503, 'Service Unavailable', 'The request was not answered in time', 'deadline_exceeded'),
    });
    expect(Date.now() - started).toBeLessThan(REQUEST_TIMEOUT_MS + 3000);
    // The abandoned work ends later (the provider hangs up); its late outcome reaches nobody and breaks nothing.
    for (const socket of heldSockets) socket.destroy();
    // Nothing to wait for: the test proves the absence of a late error, so it gives one time to appear.
    await sleep(300);
    const linesOfThisTest = t.logs.lines.slice(firstLine).filter((line) => !earlierRequests.has(line.reqId));
    expect(JSON.stringify(linesOfThisTest)).not.toMatch(/ALREADY_SENT|already sent/i);
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
  });

  it('answers 503 in time to a request with a body whose handler hangs (a credential check against a silent server)', async () => {
    // The body is read at once, which used to stop Fastify's handler timer: this request waited for the 5 s check.
    const silentPort = (blackHole.address() as net.AddressInfo).port;
    const started = Date.now();
    const res = await fetch(`${baseUrl}/api/auth/tokens/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        username: 'default',
        password: 'x',
        host: '127.0.0.1',
        port: String(silentPort),
        tls: 'false',
      }),
    });
    const elapsed = Date.now() - started;
    expect([res.status, await res.json()]).toEqual([
      503,
      browserBody('The request was not answered in time', 'deadline_exceeded'),
    ]);
    expect(elapsed).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(elapsed).toBeLessThan(4000);
  });

  it('lets a JSON query run past the limit: its own timeout parameter bounds it', async () => {
    const outcome = await runQuery(
      `${baseUrl}/api/graph/slow?query=${encodeURIComponent(SLOW_QUERY)}&timeout=60000`,
      bearer(token),
    );
    expect(outcome.kind, outcome.detail ?? outcome.message).toBe('result');
    expect(outcome.endedAt - outcome.startedAt).toBeGreaterThan(REQUEST_TIMEOUT_MS);
  });

  it('lets an event stream run past the limit once it has started', async () => {
    const outcome = await runQuery(`${baseUrl}/api/graph/slow?query=${encodeURIComponent(SLOW_QUERY)}&timeout=60000`, {
      ...bearer(token),
      accept: 'text/event-stream',
    });
    expect(outcome.kind, outcome.detail ?? outcome.message).toBe('result');
    expect(outcome.endedAt - outcome.startedAt).toBeGreaterThan(REQUEST_TIMEOUT_MS);
  });
});
