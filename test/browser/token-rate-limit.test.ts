// Token requests are limited per client address (TOKEN_CREATION_PER_MINUTE), failed ones included, since each
// one tries database credentials; the limit answers 429 in the browser API's shape and creates nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createDbUser, credentials, useBrowserApp } from '../support/browser.js';

// No role tokens: each would spend one of the three creations a minute this suite counts.
const t = useBrowserApp({ env: { TOKEN_CREATION_PER_MINUTE: '3' }, roles: [] });
beforeAll(() => createDbUser(t.falkordb, 'limited', 'limited-pw', 'Read-Only'));

const request = (password: string, remoteAddress = '192.0.2.10') =>
  t.app.inject({
    method: 'POST',
    url: '/api/auth/tokens/credentials',
    remoteAddress,
    payload: credentials(t.falkordb, 'limited', password),
  });

async function storedTokens(): Promise<number> {
  const client = await adminClient(t.falkordb);
  try {
    return (await client.keys('graphdb:token:*')).length;
  } finally {
    await client.close();
  }
}

describe('token creation rate limit', () => {
  it('counts failed attempts, then answers 429 with Retry-After and stores nothing; other addresses are unaffected', async () => {
    expect((await request('wrong-1')).statusCode).toBe(401);
    expect((await request('wrong-2')).statusCode).toBe(401);
    expect((await request('limited-pw')).statusCode).toBe(200);
    const before = await storedTokens();
    const limited = await request('limited-pw');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({
      message: expect.stringMatching(/^Too many token requests; try again in \d+ seconds$/) as unknown,
      code: 'rate_limited',
    });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(await storedTokens()).toBe(before);
    expect((await request('limited-pw', '192.0.2.11')).statusCode).toBe(200);
  });
});
