import { describe, expect, it } from 'vitest';
import { mayLinkByEmail } from '../../src/admin/oauth/sign-in-policy.js';

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
