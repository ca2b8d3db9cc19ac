// The OAuth state cookie as plain values: set by the start of a sign-in, read and cleared by its callback.
import { describe, expect, it } from 'vitest';
import {
  clearedStateCookie,
  readStateCookie,
  STATE_COOKIE,
  stateCookie,
  type OAuthState,
} from '../../src/admin/oauth/state-cookie.js';

const SECRET = 'a-session-secret-of-at-least-32-characters';
const STATE: OAuthState = { state: 's', nonce: 'n', verifier: 'v', provider: 'alpha', returnTo: '/clusters' };

describe('stateCookie', () => {
  it('is HttpOnly, SameSite=Lax, 10 minutes, scoped to the provider and Secure as asked', async () => {
    const cookie = await stateCookie(SECRET, STATE, true, Date.now());
    expect(cookie.name).toBe(STATE_COOKIE);
    expect(cookie.options).toEqual({
      httpOnly: true,
      sameSite: 'lax',
      secure: true,
      path: '/api/auth/oauth/alpha',
      maxAge: 600,
    });
    expect((await stateCookie(SECRET, STATE, false, Date.now())).options.secure).toBe(false);
  });

  it('is read back by the callback of its provider only, with its secret only, and not once expired', async () => {
    const { value } = await stateCookie(SECRET, STATE, true, Date.now());
    expect(await readStateCookie(value, SECRET, 'alpha')).toEqual(STATE);
    expect(await readStateCookie(value, SECRET, 'beta')).toBeUndefined();
    expect(await readStateCookie(value, `${SECRET}-other`, 'alpha')).toBeUndefined();
    expect(await readStateCookie(undefined, SECRET, 'alpha')).toBeUndefined();
    expect(await readStateCookie('not.a.jwt', SECRET, 'alpha')).toBeUndefined();
    const old = await stateCookie(SECRET, STATE, true, Date.now() - 601_000);
    expect(await readStateCookie(old.value, SECRET, 'alpha')).toBeUndefined();
  });
});

describe('clearedStateCookie', () => {
  it('clears the cookie at the path and with the attributes it was set with', async () => {
    const set = await stateCookie(SECRET, { ...STATE, provider: 'beta' }, true, Date.now());
    const cleared = clearedStateCookie('beta', true);
    expect(cleared).toEqual({
      name: STATE_COOKIE,
      value: '',
      options: { ...set.options, maxAge: 0, expires: new Date(0) },
    });
  });
});
