// CSRF. A state-changing admin request that a browser sends from another site is refused (403) and changes
// nothing, even with a valid session cookie; the console's own requests and non-browser clients pass.
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, login, useAdminApp } from '../support/admin.js';
import { decodeJwt } from 'jose';

const REFUSED = {
  statusCode: 403,
  error: 'Forbidden',
  message: 'Cross-site request refused: send it from the admin console of this server',
  code: 'forbidden',
};

describe('cross-site requests to the admin API', () => {
  // No per-role sessions: the suite signs in itself, for both cookies a browser keeps.
  const t = useAdminApp({ env: { PUBLIC_ORIGIN: 'https://graphdb.corp.example' }, roles: [] });
  let cookie: string;
  beforeAll(async () => {
    // Both cookies a browser keeps: `token` and, over HTTPS, `__Host-token`.
    const signedIn = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: ADMIN.email, password: ADMIN.password },
    });
    cookie = signedIn.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  });

  const patchSettings = (headers: Record<string, string>, value: boolean) =>
    t.app.inject({
      method: 'PATCH',
      url: '/api/settings/',
      headers: { cookie, ...headers },
      payload: { features: { api_docs_enabled: value } },
    });

  it('refuses a settings change from another site and leaves the stored settings as they were', async () => {
    const before = await t.backdoor.settingsText();
    const forged: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'null' },
    ];
    for (const headers of forged) {
      const res = await patchSettings(headers, false);
      expect([res.statusCode, res.json()]).toEqual([403, REFUSED]);
    }
    expect(await t.backdoor.settingsText()).toBe(before);
  });

  it('refuses a forged sign-in (login CSRF) without setting a cookie', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { origin: 'https://evil.example' },
      payload: { email: ADMIN.email, password: ADMIN.password },
    });
    expect([res.statusCode, res.json()]).toEqual([403, REFUSED]);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it("accepts the console's own requests and clients that are not browsers", async () => {
    expect(
      (await patchSettings({ origin: 'https://graphdb.corp.example', 'sec-fetch-site': 'same-origin' }, false))
        .statusCode,
    ).toBe(200);
    expect((await patchSettings({ origin: 'http://localhost:3000', host: 'localhost:3000' }, true)).statusCode).toBe(
      200,
    );
    expect((await patchSettings({}, false)).statusCode).toBe(200);
    expect(JSON.parse((await t.backdoor.settingsText()) ?? '{}')).toMatchObject({
      features: { api_docs_enabled: false },
    });
    // Reading stays open to any page that holds the cookie's SameSite rules: GET changes nothing.
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: '/api/settings/',
          headers: { cookie, origin: 'https://evil.example' },
        })
      ).statusCode,
    ).toBe(200);
  });

  it('sets the session under __Host-token too over HTTPS, and takes a browser session from it alone', async () => {
    const signedIn = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: ADMIN.email, password: ADMIN.password },
    });
    const byName = Object.fromEntries(signedIn.cookies.map((c) => [c.name, c]));
    expect(Object.keys(byName).sort()).toEqual(['__Host-token', 'token']);
    expect(byName['__Host-token']).toMatchObject({ path: '/', secure: true, httpOnly: true, sameSite: 'Lax' });
    expect(byName['__Host-token']!.domain).toBeUndefined();
    expect(decodeJwt(byName['__Host-token']!.value).sub).toBe(decodeJwt(byName.token!.value).sub);
    const validate = (headers: Record<string, string>) =>
      t.app.inject({ method: 'GET', url: '/api/auth/validate', headers });
    // A browser carrying only a `token` (planted from a sibling subdomain, say) is not signed in by it.
    expect(
      (await validate({ cookie: `token=${byName.token!.value}`, 'sec-fetch-site': 'same-origin' })).statusCode,
    ).toBe(401);
    expect(
      (await validate({ cookie: `__Host-token=${byName['__Host-token']!.value}`, 'sec-fetch-site': 'same-origin' }))
        .statusCode,
    ).toBe(200);
    // The CLI and other non-browser clients keep the admin API's `token`.
    expect((await validate({ cookie: await login(t.app, ADMIN.email, ADMIN.password) })).statusCode).toBe(200);
    // Logout clears both.
    const out = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie } });
    expect(out.cookies.map((c) => [c.name, c.value, c.maxAge]).sort()).toEqual([
      ['__Host-token', '', 0],
      ['token', '', 0],
    ]);
  });
});
