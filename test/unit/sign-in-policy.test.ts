import { describe, expect, it } from 'vitest';
import { assertDomainAllowed, mayLinkByEmail, SignInRefused } from '../../src/admin/oauth/sign-in-policy.js';
import { DEFAULT_SETTINGS, type Settings } from '../../src/admin/settings/schemas.js';

describe('mayLinkByEmail', () => {
  it.each([
    [
      'a local account with a password (the local admin)',
      { provider: 'local', passwordHash: 'scrypt$…' },
      'alpha',
      false,
    ],
    ['an invitation (local, no password, never claimed)', { provider: 'local' }, 'alpha', true],
    ['an invitation another provider claimed', { provider: 'local', identities: { beta: 't:o' } }, 'alpha', false],
    ['an account the same provider created', { provider: 'alpha' }, 'alpha', true],
    [
      'an account the same provider created for another subject',
      { provider: 'alpha', identities: { alpha: 'other-sub' } },
      'alpha',
      false,
    ],
    ['an account another provider created', { provider: 'beta', identities: { beta: 't:o' } }, 'alpha', false],
  ] as const)('%s: %s', (_what, account, provider, expected) => {
    expect(mayLinkByEmail(account, provider)).toBe(expected);
  });
});

const allowing = (...domains: string[]): Settings => ({
  ...DEFAULT_SETTINGS,
  oauth: { ...DEFAULT_SETTINGS.oauth, allowed_domains: domains },
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
