// The session cookies as plain values: what starts and ends a session, and which cookie a request is judged by.
import { describe, expect, it } from 'vitest';
import { clearedCookie } from '../../src/admin/cookies.js';
import {
  clearedSessionCookies,
  HOST_ONLY_SESSION_COOKIE,
  SESSION_COOKIE,
  sessionCookieAttributes,
  sessionCookieOf,
  sessionCookies,
} from '../../src/admin/sessions/session-cookies.js';

const HTTPS = 'https://graphdb.corp.example';
const HTTP = 'http://localhost:3000';

describe('clearedCookie', () => {
  it('empties the cookie and expires it at once, keeping the attributes that name it', () => {
    expect(clearedCookie('name', { httpOnly: true, sameSite: 'lax', secure: false, path: '/p' })).toEqual({
      name: 'name',
      value: '',
      options: { httpOnly: true, sameSite: 'lax', secure: false, path: '/p', maxAge: 0, expires: new Date(0) },
    });
  });
});

describe('sessionCookieAttributes', () => {
  it('is HttpOnly, SameSite=Lax for the whole site, and Secure unless the public origin is plain http', () => {
    expect(sessionCookieAttributes(HTTPS, 60)).toEqual({
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secure: true,
      maxAge: 60,
    });
    expect(sessionCookieAttributes(HTTP, 60).secure).toBe(false);
  });
});

describe('sessionCookies', () => {
  it('sets the JWT as token and, over https, as __Host-token too', () => {
    const cookies = sessionCookies('jwt', HTTPS, 3600);
    expect(cookies.map(({ name, value }) => [name, value])).toEqual([
      [SESSION_COOKIE, 'jwt'],
      [HOST_ONLY_SESSION_COOKIE, 'jwt'],
    ]);
    for (const cookie of cookies) expect(cookie.options).toEqual(sessionCookieAttributes(HTTPS, 3600));
  });

  it('sets token alone over plain http, where browsers refuse a __Host- cookie', () => {
    expect(sessionCookies('jwt', HTTP, 3600)).toEqual([
      { name: SESSION_COOKIE, value: 'jwt', options: sessionCookieAttributes(HTTP, 3600) },
    ]);
  });
});

describe('clearedSessionCookies', () => {
  it('clears the same names with the same attributes as the cookies that started the session', () => {
    for (const origin of [HTTPS, HTTP]) {
      const started = sessionCookies('jwt', origin, 3600);
      const cleared = clearedSessionCookies(origin);
      expect(cleared.map((cookie) => cookie.name)).toEqual(started.map((cookie) => cookie.name));
      for (const cookie of cleared) {
        expect(cookie.value).toBe('');
        expect(cookie.options).toEqual({ ...sessionCookieAttributes(origin, 0), expires: new Date(0) });
      }
    }
  });
});

describe('sessionCookieOf', () => {
  const both = { [SESSION_COOKIE]: 'plain', [HOST_ONLY_SESSION_COOKIE]: 'host-only' };

  it.each<[string, string, Record<string, string>, string | undefined, string | undefined]>([
    ['http: token, whatever a browser says', HTTP, both, 'same-origin', 'plain'],
    ['http: no __Host- cookie is read', HTTP, { [HOST_ONLY_SESSION_COOKIE]: 'host-only' }, undefined, undefined],
    ['https, a browser: __Host-token', HTTPS, both, 'same-origin', 'host-only'],
    ['https, a browser: a planted token alone is ignored', HTTPS, { [SESSION_COOKIE]: 'plain' }, 'none', undefined],
    ['https, another client: __Host-token first', HTTPS, both, undefined, 'host-only'],
    ['https, another client: token', HTTPS, { [SESSION_COOKIE]: 'plain' }, undefined, 'plain'],
    ['no cookie', HTTPS, {}, undefined, undefined],
  ])('%s', (_case, origin, cookies, secFetchSite, expected) => {
    expect(sessionCookieOf({ cookies, secFetchSite }, origin)).toBe(expected);
  });
});
