import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { adminClient, createToken, credentials, databaseSnapshot, useBrowserApp } from '../support/browser.js';

const t = useBrowserApp({ prefix: 'cfg' });
const admin = t.as('Admin');

async function configValue(name: string): Promise<unknown> {
  const client = await adminClient(t.falkordb);
  try {
    return (await client.sendCommand<unknown[]>(['GRAPH.CONFIG', 'GET', name]))[1];
  } finally {
    await client.close();
  }
}

async function aclCommands(username: string): Promise<string | null> {
  const client = await adminClient(t.falkordb);
  try {
    const reply = await client.sendCommand<unknown[] | null>(['ACL', 'GETUSER', username]);
    return reply ? String(reply[reply.indexOf('commands') + 1]) : null;
  } finally {
    await client.close();
  }
}

describe('configuration', () => {
  it('lists values as numbers, CMD_INFO as a string', async () => {
    const res = await admin.inject({ method: 'GET', url: '/api/graph/config' });
    expect(res.statusCode).toBe(200);
    const configs = res.json<{ configs: Record<string, unknown> }>().configs;
    expect(typeof configs.TIMEOUT).toBe('number');
    expect(typeof configs.MAX_INFO_QUERIES).toBe('number');
    expect(configs.CMD_INFO).toMatch(/^(yes|no)$/);
  });

  it('reads and sets one value, parsing integers strictly', async () => {
    const set = await admin.inject({ method: 'POST', url: '/api/graph/config/MAX_INFO_QUERIES?value=500' });
    expect(set.json()).toEqual({ config: 'OK' });
    expect(await configValue('MAX_INFO_QUERIES')).toBe(500);
    expect((await admin.inject({ method: 'GET', url: '/api/graph/config/MAX_INFO_QUERIES' })).json()).toEqual({
      config: 500,
    });
    const viaBody = await admin.inject({
      method: 'POST',
      url: '/api/graph/config/MAX_INFO_QUERIES',
      payload: { value: 600 },
    });
    expect(viaBody.statusCode).toBe(200);
    expect(await configValue('MAX_INFO_QUERIES')).toBe(600);

    for (const [url, message] of [
      ['/api/graph/config/MAX_INFO_QUERIES?value=12abc', 'Invalid value for MAX_INFO_QUERIES: must be an integer'],
      ['/api/graph/config/MAX_INFO_QUERIES?value=1.5', 'Invalid value for MAX_INFO_QUERIES: must be an integer'],
      ['/api/graph/config/MAX_INFO_QUERIES', 'Missing parameter value'],
      ['/api/graph/config/MAX_INFO_QUERIES?value=', 'Missing parameter value'],
    ]) {
      const res = await admin.inject({ method: 'POST', url: url! });
      expect(res.statusCode, url).toBe(400);
      expect(res.json()).toEqual({ message, code: 'invalid_request' });
    }
    expect(await configValue('MAX_INFO_QUERIES')).toBe(600);
  });

  it('checks the role before the request: a Read-Only token with a bad body gets 403, not 400', async () => {
    const res = await t.as('Read-Only').inject({
      method: 'POST',
      url: '/api/graph/config/MAX_INFO_QUERIES',
      headers: { 'content-type': 'application/json' },
      payload: '{"value": {"not": "a value"}}',
    });
    expect(res.statusCode).toBe(403);
    expect(await configValue('MAX_INFO_QUERIES')).toBe(600);
  });

  it('sets CMD_INFO from its yes/no string', async () => {
    expect((await admin.inject({ method: 'POST', url: '/api/graph/config/CMD_INFO?value=no' })).json()).toEqual({
      config: 'OK',
    });
    expect(await configValue('CMD_INFO')).toBe(0);
    expect((await admin.inject({ method: 'GET', url: '/api/graph/config/CMD_INFO' })).json()).toEqual({ config: 'no' });
    await admin.inject({ method: 'POST', url: '/api/graph/config/CMD_INFO?value=yes' });
    expect(await configValue('CMD_INFO')).toBe(1);
  });

  it("answers FalkorDB's refusals with 400 and its text", async () => {
    const unknown = await admin.inject({ method: 'GET', url: '/api/graph/config/NO_SUCH_PARAMETER' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json<{ message: string }>().message).toMatch(/Unknown configuration field/i);
    const static_ = await admin.inject({ method: 'POST', url: '/api/graph/config/THREAD_COUNT?value=4' });
    expect(static_.statusCode).toBe(400);
    expect(static_.json<{ message: string }>().message).toMatch(/cannot be set at run-time/i);
  });
});

describe('database users', () => {
  it.each([
    ['POST', '/api/user', { username: 'bad name', password: '', role: 'Boss' }],
    ['PATCH', '/api/user/cfg-read-only?role=Boss', undefined],
    ['DELETE', '/api/user', { users: 'everyone' }],
    ['GET', '/api/user/bad%20name', undefined],
  ] as const)(
    'checks the role before the request: a Read-Write token sending %s %s with bad input gets 403, not 400',
    async (method, url, payload) => {
      const before = await databaseSnapshot(t.falkordb);
      const res = await t.as('Read-Write').inject({
        method,
        url,
        ...(payload === undefined ? {} : { payload }),
      });
      expect(res.statusCode, res.body).toBe(403);
      expect(await databaseSnapshot(t.falkordb)).toEqual(before);
    },
  );

  it('lists users with their roles read from one ACL LIST, the same roles ACL GETUSER gives one by one', async () => {
    const res = await admin.inject({ method: 'GET', url: '/api/user' });
    expect(res.statusCode).toBe(200);
    const listed = res.json<{ result: { username: string; role: string }[] }>().result;
    expect(listed).toEqual(
      expect.arrayContaining([
        { username: 'cfg-admin', role: 'Admin', keys: ['*'], selected: false },
        { username: 'cfg-read-write', role: 'Read-Write', keys: ['*'], selected: false },
        { username: 'cfg-read-only', role: 'Read-Only', keys: ['*'], selected: false },
        { username: 'default', role: 'Admin', keys: ['*'], selected: false },
      ]),
    );
    for (const user of listed) {
      const one = await admin.inject({ method: 'GET', url: `/api/user/${encodeURIComponent(user.username)}` });
      expect([user.username, one.json<{ role: string }>().role]).toEqual([user.username, user.role]);
    }
  });

  it('creates a user (201 with location) who can then sign in with the detected role', async () => {
    const res = await admin.inject({
      method: 'POST',
      url: '/api/user',
      payload: {
        username: 'carol',
        password: 'pass word > ~* +@all',
        role: 'Read-Write',
      },
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers.location).toBe('/api/user/carol');
    expect(res.json()).toEqual({ message: 'User carol created' });
    // The location names a resource that exists: one user, in the shape of a list item.
    const located = await admin.inject({ method: 'GET', url: res.headers.location as string });
    expect(located.statusCode).toBe(200);
    expect(located.json()).toEqual({ username: 'carol', role: 'Read-Write', keys: ['*'], selected: false });
    const missing = await admin.inject({ method: 'GET', url: '/api/user/nobody-here' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ message: 'User nobody-here not found', code: 'not_found' });
    const asReader = await t.as('Read-Only').inject({
      method: 'GET',
      url: '/api/user/carol',
    });
    expect(asReader.statusCode).toBe(403);
    // The odd password is one password, not extra ACL rules.
    expect(await aclCommands('carol')).toContain('+graph.query');
    expect(await aclCommands('carol')).not.toContain('+@all');
    const token = await createToken(t.app, credentials(t.falkordb, 'carol', 'pass word > ~* +@all'));
    expect(decodeJwt(token).role).toBe('Read-Write');

    const again = await admin.inject({
      method: 'POST',
      url: '/api/user',
      payload: { username: 'carol', password: 'x', role: 'Admin' },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ message: 'User carol already exists', code: 'conflict' });
    expect(await aclCommands('carol')).not.toContain('+@all');
  });

  it('refuses usernames that would read as ACL rules, and missing parameters, writing nothing', async () => {
    const before = await databaseSnapshot(t.falkordb);
    for (const body of [
      { username: 'eve on >pw +@all', password: 'x', role: 'Admin' },
      { username: '>eve', password: 'x', role: 'Admin' },
      { username: '~eve', password: 'x', role: 'Admin' },
      { username: '+@all', password: 'x', role: 'Admin' },
      { username: 'eve', password: 'x', role: 'Superuser' },
      { username: 'eve', role: 'Admin' },
      { password: 'x', role: 'Admin' },
      { username: 'eve', password: '', role: 'Admin' },
    ]) {
      const res = await admin.inject({ method: 'POST', url: '/api/user', payload: body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json<{ code: string }>()).toEqual({ message: expect.any(String) as unknown, code: 'invalid_request' });
    }
    expect(await databaseSnapshot(t.falkordb)).toEqual(before);
  });

  it('changes a role through the query or the body, keeping the password, and 404s a missing user', async () => {
    await admin.inject({
      method: 'POST',
      url: '/api/user',
      payload: { username: 'dave', password: 'dave-pw', role: 'Read-Only' },
    });
    const res = await admin.inject({ method: 'PATCH', url: '/api/user/dave?role=Admin' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'User dave updated' });
    expect(await aclCommands('dave')).toBe('+@all');
    expect(decodeJwt(await createToken(t.app, credentials(t.falkordb, 'dave', 'dave-pw'))).role).toBe('Admin');
    await admin.inject({ method: 'PATCH', url: '/api/user/dave', payload: { role: 'Read-Only' } });
    expect(await aclCommands('dave')).toContain('+graph.ro_query');
    expect(await aclCommands('dave')).not.toContain('+graph.query ');

    const missing = await admin.inject({ method: 'PATCH', url: '/api/user/nobody-here?role=Admin' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ message: 'User nobody-here not found', code: 'not_found' });
    expect(await aclCommands('nobody-here')).toBeNull();
    const noRole = await admin.inject({ method: 'PATCH', url: '/api/user/dave' });
    expect(noRole.statusCode).toBe(400);
    expect(noRole.json()).toEqual({ message: 'Missing parameter role', code: 'invalid_request' });
  });

  it('deletes users all together, and never the default user', async () => {
    await admin.inject({
      method: 'POST',
      url: '/api/user',
      payload: { username: 'gone1', password: 'pw', role: 'Read-Only' },
    });
    await admin.inject({
      method: 'POST',
      url: '/api/user',
      payload: { username: 'gone2', password: 'pw', role: 'Read-Only' },
    });
    const withDefault = await admin.inject({
      method: 'DELETE',
      url: '/api/user',
      payload: { users: [{ username: 'gone1' }, { username: 'default' }] },
    });
    expect(withDefault.statusCode).toBe(400);
    expect(withDefault.json()).toEqual({ message: 'The default user cannot be deleted', code: 'invalid_request' });
    expect(await aclCommands('gone1')).not.toBeNull();
    const res = await admin.inject({
      method: 'DELETE',
      url: '/api/user',
      payload: { users: [{ username: 'gone1' }, { username: 'gone2' }] },
    });
    expect(res.json()).toEqual({ message: 'Users deleted' });
    expect(await aclCommands('gone1')).toBeNull();
    expect(await aclCommands('gone2')).toBeNull();
    const empty = await admin.inject({ method: 'DELETE', url: '/api/user', payload: { users: [] } });
    expect(empty.statusCode).toBe(400);
  });
});
