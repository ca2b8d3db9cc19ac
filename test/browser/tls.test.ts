// Tokens for a FalkorDB that speaks TLS only: the server's certificate is checked against the `ca` given with the
// credentials (refused without it), by host name or IP address, and no Node warning is raised on the way (SNI is
// sent for host names only).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, useBrowserApp } from '../support/browser.js';
import { startTlsFalkorDB, type TlsFalkorDB } from '../support/tls-falkordb.js';

const t = useBrowserApp({ roles: [] });
let tls: TlsFalkorDB;
const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);
beforeAll(async () => {
  tls = await startTlsFalkorDB();
  process.on('warning', onWarning);
});
afterAll(async () => {
  process.off('warning', onWarning);
  await tls.stop();
});

const requestToken = (host: string, ca?: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/auth/tokens/credentials',
    payload: { username: 'default', password: '', host, port: String(tls.port), tls: 'true', ...(ca ? { ca } : {}) },
  });

describe('tokens for a TLS database', () => {
  it('connects by IP address and by host name with the given CA, and lists the graphs over TLS', async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const created = await requestToken(host, tls.caPem);
      expect(created.statusCode, created.body).toBe(200);
      const token = created.json<{ token: string }>().token;
      const graphs = await t.app.inject({ method: 'GET', url: '/api/graph', headers: bearer(token) });
      expect(graphs.statusCode, graphs.body).toBe(200);
    }
    // Let any warning emitted on the way reach the listener.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((w) => `${(w as { code?: string }).code ?? ''} ${w.message}`)).toEqual([]);
  });

  it('refuses the credentials when the certificate cannot be verified', async () => {
    const res = await requestToken('127.0.0.1');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ message: 'Invalid credentials or connection failed', code: 'unauthenticated' });
  });
});
