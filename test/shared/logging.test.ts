import { describe, expect, it } from 'vitest';
import { censorSecrets, loggableUrl, queryHash } from '../../src/logging/logging.js';
import { useBrowserApp } from '../support/browser.js';

const t = useBrowserApp({ roles: [] });

describe('request logging', () => {
  it('writes one access line per request, with the request id, which it echoes to the client', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/nowhere',
      headers: { 'x-request-id': 'trace-abc.123' },
    });
    expect(res.headers['x-request-id']).toBe('trace-abc.123');
    const lines = t.logs.lines.filter((line) => line.reqId === 'trace-abc.123');
    expect(lines.filter((line) => line.msg === 'request completed')).toEqual([
      expect.objectContaining({
        level: 30,
        req: { method: 'GET', url: '/api/nowhere', remoteAddress: '127.0.0.1' },
        res: { statusCode: 404 },
        responseTime: expect.any(Number) as unknown,
      }),
    ]);
    expect(lines.map((line) => line.msg)).not.toContain('incoming request');
  });

  it('replaces a request id that could forge log content', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'bad id {"level":60}' },
    });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('redacts authorization headers and cookies', () => {
    t.app.log.info(
      { req: { headers: { authorization: 'Bearer eyJhbGciOi.secret.jwt', cookie: 'token=session-jwt-value' } } },
      'probe',
    );
    t.app.log.info(
      { body: { password: 'hunter2-password', client_secret: 'cs-value', token: 'tok-value' } },
      'probe body',
    );
    const text = t.logs.text;
    for (const secret of ['eyJhbGciOi.secret.jwt', 'session-jwt-value', 'hunter2-password', 'cs-value', 'tok-value'])
      expect(text).not.toContain(secret);
    expect(text).toContain('[Redacted]');
  });

  it('censors secrets nested in objects and arrays, and copies nothing when there is none', () => {
    t.app.log.info(
      {
        settings: { alpha: { oauth: [{ client_secret: 'nested-cs' }] } },
        call: { headers: { Authorization: 'x', authorization: 'Bearer nested-jwt' } },
      },
      'probe nested',
    );
    expect(t.logs.text).not.toContain('nested-cs');
    expect(t.logs.text).not.toContain('nested-jwt');
    const plain = { req: { method: 'GET', url: '/' }, res: { statusCode: 200 }, list: [1, { a: 2 }] };
    expect(censorSecrets(plain)).toBe(plain);
    const withSecret = { user: { name: 'n', password: 'p' } };
    expect(censorSecrets(withSecret)).toEqual({ user: { name: 'n', password: '[Redacted]' } });
    expect(withSecret.user.password).toBe('p');
  });

  it('never logs the query string of OAuth paths', async () => {
    await t.app.inject({
      method: 'GET',
      url: '/api/auth/oauth/alpha/callback?code=oauth-code-xyz&state=state-value-xyz',
    });
    const text = t.logs.text;
    expect(text).toContain('/api/auth/oauth/alpha/callback');
    expect(text).not.toContain('oauth-code-xyz');
    expect(text).not.toContain('state-value-xyz');
  });

  it('logs no query string at all: the Cypher text of a query route becomes a hash', async () => {
    await t.app.inject({ method: 'GET', url: '/api/graph/some-graph?query=MATCH%20(secretLabel)%20RETURN%201' });
    const text = t.logs.text;
    expect(text).not.toContain('secretLabel');
    expect(text).not.toContain('query=');
    const hash = queryHash('/api/graph/some-graph?query=MATCH%20(secretLabel)%20RETURN%201');
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    expect(text).toContain(`"queryHash":"${hash!}"`);
    expect(text).toContain('"route":"/api/graph/:graph"');
  });

  it('strips every query string and hashes it', () => {
    expect(loggableUrl('/api/graph/g?query=MATCH')).toBe('/api/graph/g');
    expect(loggableUrl('/api/auth/oauth?code=1')).toBe('/api/auth/oauth');
    expect(loggableUrl('/healthz')).toBe('/healthz');
    expect(queryHash('/healthz')).toBeUndefined();
    expect(queryHash('/a?x=1')).not.toBe(queryHash('/a?x=2'));
  });
});
