// The CSRF rule of the admin API, as a table of what browsers and other clients send.
import { describe, expect, it } from 'vitest';
import { isCrossSite, type RequestOrigin } from '../../src/admin/sessions/cross-site-guard.js';

const PUBLIC_ORIGIN = 'https://graphdb.corp.example';
const request = (changes: Partial<RequestOrigin>): RequestOrigin => ({
  method: 'POST',
  origin: undefined,
  secFetchSite: undefined,
  host: 'graphdb.corp.example',
  ...changes,
});

describe('isCrossSite', () => {
  it.each<[string, Partial<RequestOrigin>, boolean]>([
    ['the console at PUBLIC_ORIGIN', { origin: 'https://graphdb.corp.example', secFetchSite: 'same-origin' }, false],
    [
      'the console through a port-forward',
      { origin: 'http://localhost:3000', host: 'localhost:3000', secFetchSite: 'same-origin' },
      false,
    ],
    ['another site', { origin: 'https://evil.example', secFetchSite: 'cross-site' }, true],
    ['a sibling subdomain', { origin: 'https://wiki.corp.example', secFetchSite: 'same-site' }, true],
    ['another port of the same host', { origin: 'https://graphdb.corp.example:8443' }, true],
    ['a sandboxed frame', { origin: 'null' }, true],
    ['a browser that sends only Sec-Fetch-Site: cross-site', { secFetchSite: 'cross-site' }, true],
    ['a browser that sends only Sec-Fetch-Site: same-origin', { secFetchSite: 'same-origin' }, false],
    ['the CLI or curl (neither header)', {}, false],
    [
      'a cross-site GET (safe method)',
      { method: 'GET', origin: 'https://evil.example', secFetchSite: 'cross-site' },
      false,
    ],
    ['a cross-site DELETE', { method: 'DELETE', origin: 'https://evil.example' }, true],
  ])('%s → refused: %s', (_name, changes, refused) => {
    expect(isCrossSite(request(changes), PUBLIC_ORIGIN)).toBe(refused);
  });
});
