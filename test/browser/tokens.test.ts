import { randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_SECRETS } from '../support/app.js';
import {
  adminClient,
  bearer,
  bodyOf,
  createDbUser,
  createToken,
  credentials,
  useBrowserApp,
} from '../support/browser.js';
import { sleep } from '../support/wait.js';

// No role tokens: the suite lists and counts the tokens of the users it makes.
const t = useBrowserApp({ roles: [] });
beforeAll(async () => {
  await createDbUser(t.falkordb, 'tok-admin', 'admin-pw', 'Admin');
  await createDbUser(t.falkordb, 'tok-rw', 'rw-pw', 'Read-Write');
  await createDbUser(t.falkordb, 'tok-ro', 'ro-pw', 'Read-Only');
  await createDbUser(t.falkordb, 'tok-ro2', 'ro2-pw', 'Read-Only');
});

const create = (body: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/api/auth/tokens/credentials', payload: body as never, headers });

describe('POST /api/auth/tokens/credentials', () => {
  it('detects each role from the credentials and signs an HS256 JWT with the documented claims', async () => {
    for (const [username, password, role] of [
      ['tok-admin', 'admin-pw', 'Admin'],
      ['tok-rw', 'rw-pw', 'Read-Write'],
      ['tok-ro', 'ro-pw', 'Read-Only'],
    ] as const) {
      const res = await create(credentials(t.falkordb, username, password));
      expect(res.statusCode).toBe(200);
      const body = res.json<{ message: string; token: string }>();
      expect(body.message).toBe('Token created successfully');
      expect(decodeProtectedHeader(body.token).alg).toBe('HS256');
      const claims = decodeJwt(body.token);
      expect(claims).toMatchObject({ username, role, host: t.falkordb.host, port: t.falkordb.port, tls: false });
      expect(claims.jti).toMatch(/^\d{13}-[0-9a-f-]{36}$/);
      expect(claims.sub).toMatch(/^[0-9a-f-]{36}$/);
      expect(typeof claims.iat).toBe('number');
      // Without expiresAt or ttlSeconds a token lives TOKEN_DEFAULT_TTL_SECONDS (90 days by default).
      expect(claims.exp! - claims.iat!).toBeGreaterThanOrEqual(90 * 86_400 - 1);
      expect(claims.exp! - claims.iat!).toBeLessThanOrEqual(90 * 86_400 + 1);
    }
  });

  it('stores the password encrypted with AES-256-GCM and the token only as a hash, in plain keys', async () => {
    const token = await createToken(t.app, credentials(t.falkordb, 'tok-rw', 'rw-pw', { name: 'stored' }));
    const tokenId = decodeJwt(token).jti!;
    const client = await adminClient(t.falkordb);
    try {
      const key = `graphdb:token:${tokenId}`;
      expect(await client.type(key)).toBe('hash');
      const fields = await client.hGetAll(key);
      expect(fields.password_enc).toMatch(/^[0-9a-f]{24}:[0-9a-f]{32}:[0-9a-f]+$/);
      expect(JSON.stringify(fields)).not.toContain('rw-pw');
      expect(JSON.stringify(fields)).not.toContain(token);
      expect(fields.token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(await client.get(`graphdb:token-hash:${fields.token_hash}`)).toBe(tokenId);
      expect(await client.sendCommand<string[]>(['GRAPH.LIST'])).not.toContain(key);
    } finally {
      await client.close();
    }
  });

  it('sets exp from ttlSeconds or expiresAt', async () => {
    const before = Math.floor(Date.now() / 1000);
    const withTtl = decodeJwt(
      await createToken(t.app, credentials(t.falkordb, 'tok-ro', 'ro-pw', { ttlSeconds: 3600 })),
    );
    expect(withTtl.exp).toBeGreaterThanOrEqual(before + 3600);
    expect(withTtl.exp).toBeLessThanOrEqual(before + 3602);
    const at = new Date(Date.now() + 86_400_000);
    const withDate = decodeJwt(
      await createToken(t.app, credentials(t.falkordb, 'tok-ro', 'ro-pw', { expiresAt: at.toISOString() })),
    );
    expect(withDate.exp).toBe(Math.floor(at.getTime() / 1000));
    const withNull = decodeJwt(
      await createToken(t.app, credentials(t.falkordb, 'tok-ro', 'ro-pw', { expiresAt: null })),
    );
    expect(withNull.exp! - withNull.iat!).toBeGreaterThanOrEqual(90 * 86_400 - 1);
  });

  it('refuses an expiry beyond the longest TTL (366 days), as ttlSeconds does', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/tokens/credentials',
      payload: credentials(t.falkordb, 'tok-ro', 'ro-pw', { expiresAt: '9999-12-31T00:00:00Z' }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      message: 'Expiration date must be within 31622400 seconds (366 days) from now',
      code: 'invalid_request',
    });
    const justInside = new Date(Date.now() + 365 * 86_400_000).toISOString();
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/auth/tokens/credentials',
          payload: credentials(t.falkordb, 'tok-ro', 'ro-pw', { expiresAt: justInside }),
        })
      ).statusCode,
    ).toBe(200);
  });

  it.each([
    [{ expiresAt: '2001-01-01T00:00:00Z' }, 'Expiration date must be in the future'],
    [{ ttlSeconds: 0 }, 'Invalid TTL value (must be between 1 and 31622400 seconds)'],
    [{ ttlSeconds: 31_622_401 }, 'Invalid TTL value (must be between 1 and 31622400 seconds)'],
    [{ ttlSeconds: 1.5 }, 'Invalid TTL value (must be between 1 and 31622400 seconds)'],
    [{ ttlSeconds: -5 }, 'Invalid TTL value (must be between 1 and 31622400 seconds)'],
    [{ expiresAt: 'tomorrow' }, 'expiresAt must be an ISO 8601 date-time'],
  ])('answers 400 for %j before connecting', async (extra, message) => {
    // The host is unreachable: a 400 proves the check ran before any connection attempt.
    const res = await create({ ...credentials(t.falkordb, 'tok-ro', 'ro-pw', extra), port: '1' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ message, code: 'invalid_request' });
  });

  it('takes port and tls as the strings the browser API defines, or as a JSON integer and boolean', async () => {
    for (const [port, tls] of [
      [String(t.falkordb.port), 'false'],
      [t.falkordb.port, false],
      [String(t.falkordb.port), false],
      [t.falkordb.port, 'false'],
    ] as const) {
      const res = await create({ ...credentials(t.falkordb, 'tok-ro', 'ro-pw'), port, tls });
      expect(res.statusCode, `${JSON.stringify({ port, tls })}: ${res.body}`).toBe(200);
      const claims = decodeJwt(res.json<{ token: string }>().token);
      expect(claims).toMatchObject({ port: t.falkordb.port, tls: false });
    }
    for (const [field, value] of [
      ['port', 0],
      ['port', 65_536],
      ['port', '65536'],
      ['port', 80.5],
      ['port', ' 80'],
      ['tls', 'yes'],
      ['tls', 0],
      ['tls', null],
    ] as const) {
      const res = await create({ ...credentials(t.falkordb, 'tok-ro', 'ro-pw'), [field]: value });
      expect(res.statusCode, `${field}=${JSON.stringify(value)}`).toBe(400);
      expect(res.json<{ message: string }>().message).toContain(field);
    }
  });

  it('accepts ttlSeconds at the maximum', async () => {
    expect((await create(credentials(t.falkordb, 'tok-ro', 'ro-pw', { ttlSeconds: 31_622_400 }))).statusCode).toBe(200);
  });

  it('answers 400 for invalid JSON, a non-object body and schema errors, naming the field', async () => {
    const badJson = await create('{"username": "x",', { 'content-type': 'application/json' });
    expect(badJson.statusCode).toBe(400);
    expect(bodyOf(badJson)).toEqual({ message: 'Invalid JSON in request body', code: 'invalid_json' });
    const array = await create([1, 2]);
    expect(array.statusCode).toBe(400);
    for (const [field, body] of [
      ['username', { ...credentials(t.falkordb, 'x', 'y'), username: 42 }],
      ['host', { ...credentials(t.falkordb, 'x', 'y'), host: undefined }],
      ['port', { ...credentials(t.falkordb, 'x', 'y'), port: true }],
      ['port', { ...credentials(t.falkordb, 'x', 'y'), port: '70000' }],
      ['tls', { ...credentials(t.falkordb, 'x', 'y'), tls: 'yes' }],
    ] as const) {
      const res = await create(body);
      expect(res.statusCode, field).toBe(400);
      expect(res.json<{ message: string }>().message).toContain(`body.${field}`);
    }
  });

  it('requires a password except for the default user on localhost', async () => {
    const missing = await create({ ...credentials(t.falkordb, 'tok-ro', ''), port: '1' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json<{ message: string }>().message).toContain('password is required');
    const defaultUser = await create({
      username: 'default',
      host: 'localhost',
      port: String(t.falkordb.port),
      tls: 'false',
    });
    expect(defaultUser.statusCode).toBe(200);
    expect(decodeJwt(defaultUser.json<{ token: string }>().token).role).toBe('Admin');
  });

  it('answers 401 for wrong credentials and for an unreachable database', async () => {
    for (const body of [
      credentials(t.falkordb, 'tok-ro', 'wrong-password'),
      credentials(t.falkordb, 'nobody', 'pw'),
      { ...credentials(t.falkordb, 'tok-ro', 'ro-pw'), port: '1' },
    ]) {
      const res = await create(body);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ message: 'Invalid credentials or connection failed', code: 'unauthenticated' });
    }
  });

  it('answers 500 when AUTH_SECRET or ENCRYPTION_KEY is missing, before looking at the body', async () => {
    const noAuth = await startTestApp({ falkordb: t.falkordb, env: { AUTH_SECRET: '' } });
    const noKey = await startTestApp({ falkordb: t.falkordb, env: { ENCRYPTION_KEY: '' } });
    try {
      const a = await noAuth.app.inject({
        method: 'POST',
        url: '/api/auth/tokens/credentials',
        headers: { 'content-type': 'application/json' },
        payload: '{not json',
      });
      expect(a.statusCode).toBe(500);
      expect(a.json()).toEqual({
        message: 'Server configuration error: AUTH_SECRET not set',
        code: 'server_misconfigured',
      });
      const k = await noKey.app.inject({
        method: 'POST',
        url: '/api/auth/tokens/credentials',
        payload: credentials(t.falkordb, 'tok-ro', 'ro-pw'),
      });
      expect(k.statusCode).toBe(500);
      expect(k.json()).toEqual({
        message: 'Server configuration error: ENCRYPTION_KEY not set',
        code: 'server_misconfigured',
      });
    } finally {
      await noAuth.close();
      await noKey.close();
    }
  });
});

describe('Bearer authentication', () => {
  const status = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/api/status', headers });

  it('answers 401 {message} for missing, malformed, forged, wrong-algorithm, expired and unknown tokens', async () => {
    const real = await createToken(t.app, credentials(t.falkordb, 'tok-ro', 'ro-pw'));
    const claims = decodeJwt(real);
    const key = new TextEncoder().encode(TEST_SECRETS.AUTH_SECRET);
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('another-secret-another-secret-another'));
    const hs512 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS512' }).sign(key);
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${real.split('.')[1]}.`;
    const expired = await new SignJWT({ ...claims, exp: Math.floor(Date.now() / 1000) - 10 })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(key);
    const unknown = await new SignJWT({ ...claims, jti: `${Date.now()}-${randomUUID()}` })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(key);
    // Same id, valid signature, but not the token that was issued: the stored hash does not match.
    const reissued = await new SignJWT({ ...claims, extra: 1 }).setProtectedHeader({ alg: 'HS256' }).sign(key);

    expect((await status(bearer(real))).statusCode).toBe(200);
    for (const headers of [
      {},
      { authorization: real },
      { authorization: 'Bearer' },
      { authorization: 'Bearer not-a-jwt' },
      { authorization: `Basic ${real}` },
      bearer(none),
    ]) {
      const res = await status(headers);
      expect(res.statusCode).toBe(401);
      expect(res.json<object>()).toEqual({ message: expect.any(String) as unknown, code: 'unauthenticated' });
    }
    for (const token of [forged, hs512, expired, unknown, reissued]) {
      const res = await status(bearer(token));
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ message: 'Invalid or expired token', code: 'unauthenticated' });
    }
  });

  it('hides and refuses a token once its TTL has passed', async () => {
    const token = await createToken(t.app, credentials(t.falkordb, 'tok-ro2', 'ro2-pw', { ttlSeconds: 1 }));
    const other = await createToken(t.app, credentials(t.falkordb, 'tok-ro2', 'ro2-pw'));
    const list = async () =>
      (await t.app.inject({ method: 'GET', url: '/api/auth/tokens', headers: bearer(other) })).json<{
        tokens: { token_id: string }[];
      }>();
    expect((await list()).tokens.map((x) => x.token_id)).toContain(decodeJwt(token).jti);
    // The token's one-second TTL has to pass.
    await sleep(1100);
    expect((await status(bearer(token))).statusCode).toBe(401);
    expect((await list()).tokens.map((x) => x.token_id)).not.toContain(decodeJwt(token).jti);
  });
});

describe('token visibility and revocation', () => {
  it('lets an Admin see and revoke every token of its database, and others only their own', async () => {
    const admin = await createToken(t.app, credentials(t.falkordb, 'tok-admin', 'admin-pw'));
    const mine = await createToken(t.app, credentials(t.falkordb, 'tok-ro2', 'ro2-pw', { name: 'mine' }));
    const theirs = await createToken(t.app, credentials(t.falkordb, 'tok-rw', 'rw-pw', { name: 'theirs' }));
    const theirsId = decodeJwt(theirs).jti!;
    const mineId = decodeJwt(mine).jti!;

    const adminList = (await t.app.inject({ method: 'GET', url: '/api/auth/tokens', headers: bearer(admin) })).json<{
      tokens: { token_id: string; username: string }[];
      count: number;
    }>();
    expect(adminList.count).toBe(adminList.tokens.length);
    expect(adminList.tokens.map((x) => x.token_id)).toEqual(expect.arrayContaining([theirsId, mineId]));

    // One database, several spellings: a token made with `localhost` is one of this database's tokens too.
    for (const host of ['localhost', 'LocalHost']) {
      const spelled = decodeJwt(
        await createToken(t.app, credentials(t.falkordb, 'tok-ro2', 'ro2-pw', { host, name: `via ${host}` })),
      ).jti!;
      const seen = (await t.app.inject({ method: 'GET', url: '/api/auth/tokens', headers: bearer(admin) })).json<{
        tokens: { token_id: string }[];
      }>();
      expect(
        seen.tokens.map((x) => x.token_id),
        host,
      ).toContain(spelled);
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/auth/tokens', headers: bearer(mine) }))
          .json<{ tokens: { token_id: string }[] }>()
          .tokens.map((x) => x.token_id),
      ).toContain(spelled);
      expect(
        (await t.app.inject({ method: 'DELETE', url: `/api/auth/tokens/${spelled}`, headers: bearer(mine) }))
          .statusCode,
      ).toBe(200);
    }

    const roList = (await t.app.inject({ method: 'GET', url: '/api/auth/tokens', headers: bearer(mine) })).json<{
      tokens: { username: string }[];
    }>();
    expect(new Set(roList.tokens.map((x) => x.username))).toEqual(new Set(['tok-ro2']));

    const own = await t.app.inject({ method: 'GET', url: `/api/auth/tokens/${mineId}`, headers: bearer(mine) });
    expect(own.statusCode).toBe(200);
    expect(own.json<{ token: Record<string, unknown> }>().token).toMatchObject({
      token_id: mineId,
      name: 'mine',
      username: 'tok-ro2',
      permissions: ['Read-Only'],
      expires_at: expect.stringMatching(/^\d{4}-/) as unknown,
    });
    expect(Object.keys(own.json<{ token: object }>().token)).not.toEqual(
      expect.arrayContaining(['token_hash', 'password_enc']),
    );

    const foreign = await t.app.inject({ method: 'GET', url: `/api/auth/tokens/${theirsId}`, headers: bearer(mine) });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toEqual({ message: 'Forbidden: You can only view your own tokens', code: 'forbidden' });
    const revokeForeign = await t.app.inject({
      method: 'DELETE',
      url: `/api/auth/tokens/${theirsId}`,
      headers: bearer(mine),
    });
    expect(revokeForeign.statusCode).toBe(403);
    expect(revokeForeign.json()).toEqual({
      message: 'Forbidden: You can only revoke your own tokens',
      code: 'forbidden',
    });

    // An id of the right form that names no token, and ids of any other form (the browser API specification: 404 `Token not found`).
    for (const missing of [`${Date.now()}-${randomUUID()}`, 'not-a-token-id', '1..2', 'x'.repeat(200)]) {
      for (const method of ['GET', 'DELETE'] as const) {
        const res = await t.app.inject({ method, url: `/api/auth/tokens/${missing}`, headers: bearer(admin) });
        expect([res.statusCode, res.json()], `${method} ${missing}`).toEqual([
          404,
          { message: 'Token not found', code: 'not_found' },
        ]);
      }
    }

    expect((await t.app.inject({ method: 'GET', url: '/api/status', headers: bearer(theirs) })).statusCode).toBe(200);
    const revoked = await t.app.inject({
      method: 'DELETE',
      url: `/api/auth/tokens/${theirsId}`,
      headers: bearer(admin),
    });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toEqual({ message: 'Token revoked successfully', tokenId: theirsId });
    const again = await t.app.inject({ method: 'DELETE', url: `/api/auth/tokens/${theirsId}`, headers: bearer(admin) });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ message: 'Token is already revoked', code: 'invalid_request' });
    // The browser API specification's revoked-token table: a second revocation answers 400 under any condition, a non-owner's included.
    const againByStranger = await t.app.inject({
      method: 'DELETE',
      url: `/api/auth/tokens/${theirsId}`,
      headers: bearer(mine),
    });
    expect([againByStranger.statusCode, againByStranger.json()]).toEqual([
      400,
      { message: 'Token is already revoked', code: 'invalid_request' },
    ]);
    const after = await t.app.inject({ method: 'GET', url: '/api/status', headers: bearer(theirs) });
    expect(after.statusCode).toBe(401);
  });

  it('records last_used at most once a minute per token', async () => {
    let clock = Date.now();
    const timed = await startTestApp({ falkordb: t.falkordb, deps: { now: () => clock } });
    try {
      const token = await createToken(timed.app, credentials(t.falkordb, 'tok-ro', 'ro-pw'));
      const id = decodeJwt(token).jti!;
      const lastUsed = async () => {
        // last_used is written after the answer, unawaited: let the previous request's write land first.
        await sleep(50);
        return (await timed.app.inject({ method: 'GET', url: `/api/auth/tokens/${id}`, headers: bearer(token) })).json<{
          token: { last_used: string | null };
        }>().token.last_used;
      };
      const first = await lastUsed();
      expect(first).toBe(new Date(clock).toISOString());
      clock += 30_000;
      expect(await lastUsed()).toBe(first);
      clock += 31_000;
      expect(await lastUsed()).toBe(new Date(clock).toISOString());
    } finally {
      await timed.close();
    }
  });
});

describe('the token store', () => {
  it('is shared by two server instances: tokens and revocations are seen by both, and survive a restart', async () => {
    const a = await startTestApp({ falkordb: t.falkordb });
    const b = await startTestApp({ falkordb: t.falkordb });
    try {
      const token = await createToken(a.app, credentials(t.falkordb, 'tok-rw', 'rw-pw'));
      expect((await b.app.inject({ method: 'GET', url: '/api/status', headers: bearer(token) })).statusCode).toBe(200);
      await a.close();
      const restarted = await startTestApp({ falkordb: t.falkordb });
      try {
        expect(
          (await restarted.app.inject({ method: 'GET', url: '/api/status', headers: bearer(token) })).statusCode,
        ).toBe(200);
        const id = decodeJwt(token).jti!;
        expect(
          (await b.app.inject({ method: 'DELETE', url: `/api/auth/tokens/${id}`, headers: bearer(token) })).statusCode,
        ).toBe(200);
        expect(
          (await restarted.app.inject({ method: 'GET', url: '/api/status', headers: bearer(token) })).statusCode,
        ).toBe(401);
      } finally {
        await restarted.close();
      }
    } finally {
      await b.close();
    }
  });
});
