import { describe, expect, it } from 'vitest';
import { emailDomain, normalizeDomain } from '../../src/lib/email.js';

describe('emailDomain', () => {
  it.each([
    ['eve@corp.example', 'corp.example'],
    ['Eve@CORP.Example', 'corp.example'],
    ['jörg@bücher.example', 'xn--bcher-kva.example'],
    ['a@xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['a@ｃｏｒｐ.example', 'corp.example'],
  ])('%s has the domain %s', (address, domain) => {
    expect(emailDomain(address)).toBe(domain);
  });

  it.each([
    'eve@corp.example@evil.example',
    'corp.example',
    '@corp.example',
    'eve@',
    'eve@corp.example/evil',
    'eve@corp.example\\evil',
    'eve@corp.example?x',
    'eve@corp.example#x',
    'eve@corp.example:80',
    'eve@corp example',
    'eve@corp.example.',
    'eve@localhost',
    'eve@-corp.example',
  ])('%s has no domain', (address) => {
    expect(emailDomain(address)).toBeUndefined();
  });

  it('normalizes allowed domains the same way', () => {
    expect(normalizeDomain('Bücher.Example')).toBe('xn--bcher-kva.example');
    expect(normalizeDomain('corp.example/x')).toBeUndefined();
  });
});
