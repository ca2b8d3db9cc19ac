// Local sign-in bounded per client address (over all e-mails), per account (over all addresses, with a
// doubling wait after repeated failures), and by password checks in flight; TRUST_PROXY decides which address is
// the client's. Against the real server, with real scrypt.
import { describe, expect, it } from 'vitest';
import { ADMIN, useAdminApp, type AdminTestApp } from '../support/admin.js';
import { sleep } from '../support/wait.js';

const attempt = (
  t: Pick<AdminTestApp, 'app'>,
  email: string,
  password: string,
  remoteAddress: string,
  headers: Record<string, string> = {},
) => t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password }, remoteAddress, headers });
const messageOf = (res: { json: <T>() => T }) => res.json<{ message: string }>().message;

describe('sign-in bounds', () => {
  // No sign-in at start: every attempt counted is the test's own.
  const t = useAdminApp({
    env: { LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: '12', LOGIN_FAILURES_BEFORE_BACKOFF: '3', LOGIN_CHECKS_MAX: '2' },
    roles: [],
  });

  it('limits one address over all e-mails, leaving other addresses alone', async () => {
    for (let i = 0; i < 12; i++)
      expect((await attempt(t, `guess-${i}@corp.example`, 'wrong-password', '10.20.0.1')).statusCode).toBe(401);
    const limited = await attempt(t, 'guess-12@corp.example', 'wrong-password', '10.20.0.1');
    expect(limited.statusCode).toBe(429);
    expect(messageOf(limited)).toMatch(/^Too many sign-in attempts from this address; try again in \d+ seconds$/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // The real admin, from elsewhere, is not affected.
    expect((await attempt(t, ADMIN.email, ADMIN.password, '10.20.0.2')).statusCode).toBe(200);
  });

  it('makes an account wait, doubling, after repeated failures from any addresses, and forgets them after a success', async () => {
    const email = 'target@corp.example';
    for (let i = 0; i < 3; i++)
      expect((await attempt(t, email, 'wrong-password', `10.21.0.${i + 1}`)).statusCode).toBe(401);
    const waiting = await attempt(t, email, 'wrong-password', '10.21.0.9');
    expect(waiting.statusCode).toBe(429);
    expect(messageOf(waiting)).toBe('Too many failed sign-ins for this account; try again in 1 seconds');
    // The account's one-second wait has to pass.
    await sleep(1100);
    expect((await attempt(t, email, 'wrong-password', '10.21.0.10')).statusCode).toBe(401);
    const longer = await attempt(t, email, 'wrong-password', '10.21.0.11');
    expect(messageOf(longer)).toBe('Too many failed sign-ins for this account; try again in 2 seconds');

    // The admin's account: a success ends its streak, so earlier failures do not count towards the next wait.
    for (let i = 0; i < 2; i++)
      expect((await attempt(t, ADMIN.email, 'wrong-password', '10.22.0.1')).statusCode).toBe(401);
    expect((await attempt(t, ADMIN.email, ADMIN.password, '10.22.0.2')).statusCode).toBe(200);
    for (let i = 0; i < 2; i++)
      expect((await attempt(t, ADMIN.email, 'wrong-password', '10.22.0.3')).statusCode).toBe(401);
    expect((await attempt(t, ADMIN.email, ADMIN.password, '10.22.0.4')).statusCode).toBe(200);
  });

  it('runs at most LOGIN_CHECKS_MAX password checks at once and refuses the rest at once', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => attempt(t, `flood-${i}@corp.example`, 'wrong-password', `10.23.0.${i + 1}`)),
    );
    const statuses = outcomes.map((res) => res.statusCode).sort();
    expect(statuses).toEqual([401, 401, 429, 429, 429, 429, 429, 429, 429, 429]);
    const refused = outcomes.find((res) => res.statusCode === 429)!;
    expect(messageOf(refused)).toBe('Too many sign-ins in progress; try again in 1 seconds');
    // Once they are done, sign-in works again.
    expect((await attempt(t, ADMIN.email, ADMIN.password, '10.23.1.1')).statusCode).toBe(200);
  });
});

describe('TRUST_PROXY', () => {
  const behindProxy = useAdminApp({
    env: { TRUST_PROXY: '127.0.0.1/32', LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: '3' },
    roles: [],
  });
  const direct = useAdminApp({ env: { LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: '3' }, roles: [] });

  it('counts each forwarded client apart when the proxy is trusted', async () => {
    // Every request comes from the proxy (127.0.0.1); the clients behind it differ.
    for (let i = 0; i < 3; i++)
      expect(
        (
          await attempt(behindProxy, `p${i}@corp.example`, 'wrong-password', '127.0.0.1', {
            'x-forwarded-for': '198.51.100.7',
          })
        ).statusCode,
      ).toBe(401);
    expect(
      (
        await attempt(behindProxy, 'p3@corp.example', 'wrong-password', '127.0.0.1', {
          'x-forwarded-for': '198.51.100.7',
        })
      ).statusCode,
    ).toBe(429);
    expect(
      (
        await attempt(behindProxy, 'p4@corp.example', 'wrong-password', '127.0.0.1', {
          'x-forwarded-for': '198.51.100.8',
        })
      ).statusCode,
    ).toBe(401);
  });

  it('ignores X-Forwarded-For from an untrusted peer, so a client cannot spoof its way past the limit', async () => {
    for (let i = 0; i < 3; i++)
      expect(
        (
          await attempt(direct, `d${i}@corp.example`, 'wrong-password', '10.30.0.1', {
            'x-forwarded-for': `198.51.100.${i}`,
          })
        ).statusCode,
      ).toBe(401);
    expect(
      (await attempt(direct, 'd3@corp.example', 'wrong-password', '10.30.0.1', { 'x-forwarded-for': '198.51.100.99' }))
        .statusCode,
    ).toBe(429);
    // Nor from a peer the trusted list does not name.
    for (let i = 0; i < 3; i++)
      await attempt(behindProxy, `q${i}@corp.example`, 'wrong-password', '10.31.0.1', {
        'x-forwarded-for': `203.0.113.${i}`,
      });
    expect(
      (
        await attempt(behindProxy, 'q3@corp.example', 'wrong-password', '10.31.0.1', {
          'x-forwarded-for': '203.0.113.99',
        })
      ).statusCode,
    ).toBe(429);
  });
});
