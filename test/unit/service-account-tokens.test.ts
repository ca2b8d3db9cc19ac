import { describe, expect, it } from 'vitest';
import { firstUncovered } from '../../src/admin/permissions/permissions.js';
import { serviceAccountBearerOf } from '../../src/admin/service-accounts/bearer.js';
import { censorSecrets, loggableUrl, redactTokenTexts } from '../../src/logging/logging.js';
import {
  addressAllowed,
  createTokenHashes,
  newTokenText,
  parseCidr,
  sameHash,
  tokenHashOf,
  tokenHash,
  wellFormedToken,
} from '../../src/lib/service-account-tokens.js';

describe('service account tokens', () => {
  it('are prefixed, random and carry a checksum that catches a changed character', () => {
    const tokens = new Set(Array.from({ length: 200 }, () => newTokenText()));
    expect(tokens.size).toBe(200);
    for (const token of tokens) {
      expect(token).toMatch(/^gdbsa_[0-9A-Za-z]{38}$/);
      expect(wellFormedToken(token)).toBe(true);
      const i = 10;
      const changed = `${token.slice(0, i)}${token[i] === 'a' ? 'b' : 'a'}${token.slice(i + 1)}`;
      expect(wellFormedToken(changed)).toBe(false);
    }
    expect(wellFormedToken('gdbsa_short')).toBe(false);
    expect(wellFormedToken(`gdbsb_${newTokenText().slice(6)}`)).toBe(false);
  });

  it('are stored as a SHA-256 and compared whole', () => {
    const token = newTokenText();
    expect(tokenHash(token)).toMatch(/^[0-9a-f]{64}$/);
    const hashOf = (text: string) => tokenHashOf(tokenHash(text));
    expect(sameHash(hashOf(token), hashOf(token))).toBe(true);
    expect(sameHash(hashOf(token), hashOf(newTokenText()))).toBe(false);
    expect(sameHash(hashOf(token), tokenHashOf('abcd'))).toBe(false);
  });

  it("a checked text's hash is kept, for well-formed texts only and at most the limit's number, oldest out first", () => {
    const hashes = createTokenHashes(3);
    const [a, b, c, d] = Array.from({ length: 4 }, () => newTokenText());
    expect(hashes.hashOf(a!)?.hex).toBe(tokenHash(a!));
    expect(hashes.hashOf(a!)?.hex).toBe(tokenHash(a!));
    expect(hashes.size).toBe(1);
    const changed = `${a!.slice(0, -1)}${a!.endsWith('0') ? '1' : '0'}`;
    expect(hashes.hashOf(changed)).toBeUndefined();
    expect(hashes.hashOf('gdbsa_short')).toBeUndefined();
    expect(hashes.size).toBe(1);
    for (const text of [b!, c!, d!]) expect(hashes.hashOf(text)?.hex).toBe(tokenHash(text));
    expect(hashes.size).toBe(3);
    // `a` went first; asked again, it is hashed again (and the oldest left, `b`, goes).
    expect(hashes.hashOf(a!)?.hex).toBe(tokenHash(a!));
    expect(hashes.size).toBe(3);
  });

  it('pasted anywhere in a log field, a path or a message, are redacted by their prefix', () => {
    const token = newTokenText();
    expect(redactTokenTexts(`account ${token} not found`)).toBe('account [Redacted token] not found');
    expect(redactTokenTexts(`cut ${token.slice(0, 20)}`)).toBe('cut [Redacted token]');
    expect(redactTokenTexts('nothing here')).toBe('nothing here');
    expect(loggableUrl(`/api/serviceaccounts/${token}?x=1`)).toBe('/api/serviceaccounts/[Redacted token]');
    expect(censorSecrets({ reason: `Service account ${token} not found`, nested: { list: [token] } })).toEqual({
      reason: 'Service account [Redacted token] not found',
      nested: { list: ['[Redacted token]'] },
    });
  });

  it('are told apart from a session bearer by their prefix', () => {
    expect(serviceAccountBearerOf('Bearer gdbsa_abc')).toBe('gdbsa_abc');
    expect(serviceAccountBearerOf('bearer gdbsa_abc ')).toBe('gdbsa_abc');
    expect(serviceAccountBearerOf('Bearer eyJhbGciOiJIUzI1NiJ9.x.y')).toBeUndefined();
    expect(serviceAccountBearerOf(undefined)).toBeUndefined();
    expect(serviceAccountBearerOf('Basic gdbsa_abc')).toBeUndefined();
  });

  it('allowed addresses: CIDR blocks of both families, IPv4-mapped addresses, none meaning any', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ address: '10.0.0.0', prefix: 8, family: 'ipv4' });
    expect(parseCidr('2001:db8::1')).toEqual({ address: '2001:db8::1', prefix: 128, family: 'ipv6' });
    for (const bad of ['10.0.0.0/33', '10.0.0/8', 'host', '10.0.0.0/8/1', '::/129', '1.2.3.4/x'])
      expect(parseCidr(bad)).toBeUndefined();
    expect(addressAllowed([], '192.0.2.1')).toBe(true);
    expect(addressAllowed(['10.0.0.0/8'], '10.9.9.9')).toBe(true);
    expect(addressAllowed(['10.0.0.0/8'], '::ffff:10.9.9.9')).toBe(true);
    expect(addressAllowed(['10.0.0.0/8'], '11.0.0.1')).toBe(false);
    expect(addressAllowed(['2001:db8::/32'], '2001:db8:1::5')).toBe(true);
    expect(addressAllowed(['2001:db8::/32'], 'not-an-address')).toBe(false);
  });

  it('the escalation rule: every permission a role grants must be held, wildcards spelled out', () => {
    const viewer = [{ resource: 'clusters' as const, actions: ['list' as const, 'get' as const] }];
    expect(firstUncovered([{ resource: '*', actions: ['*'] }], viewer)).toBeUndefined();
    expect(firstUncovered(viewer, viewer)).toBeUndefined();
    expect(firstUncovered(viewer, [{ resource: 'clusters', actions: ['*'] }])).toEqual({
      resource: 'clusters',
      action: 'read',
      namespace: '*',
    });
    // Held in one namespace does not cover every namespace, but covers that one.
    const teamA = [{ resource: 'clusters' as const, actions: ['list' as const], namespace: 'team-a' }];
    expect(firstUncovered(teamA, [{ resource: 'clusters', actions: ['list'] }])).toBeDefined();
    expect(firstUncovered(teamA, teamA)).toBeUndefined();
    // `*` in one resource's actions grants no `escalate`, on either side.
    const accounts = [{ resource: 'serviceaccounts' as const, actions: ['*' as const] }];
    expect(firstUncovered(accounts, accounts)).toBeUndefined();
    expect(firstUncovered(accounts, [{ resource: 'serviceaccounts', actions: ['escalate'] }])).toBeDefined();
  });
});
