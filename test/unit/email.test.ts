import { describe, expect, it } from 'vitest';
import { assertDomainAllowed, SignInRefused } from '../../src/admin/oauth/sign-in-policy.js';
import { DEFAULT_SETTINGS, type Settings } from '../../src/admin/settings/schemas.js';
import { emailDomain, normalizeDomain } from '../../src/lib/email.js';

const allowing = (...domains: string[]): Settings => ({
  ...DEFAULT_SETTINGS,
  oauth: { ...DEFAULT_SETTINGS.oauth, allowed_domains: domains },
});

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

describe('assertDomainAllowed', () => {
  const refusal = (email: string, settings: Settings) => {
    try {
      assertDomainAllowed(email, settings);
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(SignInRefused);
      return error as SignInRefused;
    }
  };

  it('compares the one domain exactly, case and IDNA aside', () => {
    expect(refusal('eve@corp.example', allowing('corp.example'))).toBeUndefined();
    expect(refusal('eve@CORP.EXAMPLE', allowing('Corp.Example'))).toBeUndefined();
    expect(refusal('jörg@bücher.example', allowing('xn--bcher-kva.example'))).toBeUndefined();
    expect(refusal('eve@sub.corp.example', allowing('corp.example'))).toMatchObject({
      status: 403,
      code: 'domain_not_allowed',
      message: 'Email domain sub.corp.example is not allowed',
    });
    expect(refusal('eve@corp.example.evil.example', allowing('corp.example'))?.code).toBe('domain_not_allowed');
  });

  it('refuses an address with more than one @ (the review passed eve@corp.example@evil.example)', () => {
    expect(refusal('eve@corp.example@evil.example', allowing('corp.example'))).toMatchObject({
      status: 403,
      code: 'domain_not_allowed',
    });
    expect(refusal('eve@evil.example@corp.example', allowing('corp.example'))?.code).toBe('domain_not_allowed');
    expect(refusal('eve@corp.example/x', allowing('corp.example'))?.code).toBe('domain_not_allowed');
  });

  it('checks nothing when allowed_domains is empty', () => {
    expect(refusal('eve@corp.example@evil.example', allowing())).toBeUndefined();
  });
});
