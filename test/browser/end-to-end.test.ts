import { decodeJwt } from 'jose';
import { beforeAll, expect, it } from 'vitest';
import {
  adminClient,
  bearer,
  createDbUser,
  createToken,
  credentials,
  graphQuery,
  parseEvents,
  useBrowserApp,
} from '../support/browser.js';

// The walk signs in as its own user, the way a user would.
const t = useBrowserApp({ roles: [] });
beforeAll(() => createDbUser(t.falkordb, 'e2e-admin', 'e2e-admin-pw', 'Admin'));

it('drives the whole browser flow the way a user would', async () => {
  const send = (
    token: string,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
    accept?: string,
  ) =>
    t.app.inject({
      method,
      url,
      headers: { ...bearer(token), ...(accept ? { accept } : {}) },
      ...(payload === undefined ? {} : { payload: payload as never }),
    });

  // An Admin signs in with database credentials.
  const adminToken = await createToken(
    t.app,
    credentials(t.falkordb, 'e2e-admin', 'e2e-admin-pw', { name: 'laptop', ttlSeconds: 3600 }),
  );
  expect((await send(adminToken, 'GET', '/api/status')).json()).toEqual({ status: 'online', topology: 'single' });

  // The Admin creates a user of each role; each signs in and gets that role.
  const roleTokens: Record<string, string> = {};
  for (const role of ['Admin', 'Read-Write', 'Read-Only']) {
    const username = `member-${role.toLowerCase()}`;
    const created = await send(adminToken, 'POST', '/api/user', { username, password: `${username}-pw`, role });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ message: `User ${username} created` });
    roleTokens[role] = await createToken(t.app, credentials(t.falkordb, username, `${username}-pw`));
    expect(decodeJwt(roleTokens[role]).role).toBe(role);
  }
  const users = (await send(adminToken, 'GET', '/api/user')).json<{ result: { username: string; role: string }[] }>()
    .result;
  expect(users).toEqual(
    expect.arrayContaining([{ username: 'member-read-only', role: 'Read-Only', keys: ['*'], selected: false }]),
  );

  // The Read-Write user creates a graph and fills it through the query stream.
  const writer = roleTokens['Read-Write']!;
  expect((await send(writer, 'POST', '/api/graph/movies')).json()).toEqual({ message: 'Graph movies created' });
  const create = await send(
    writer,
    'GET',
    `/api/graph/movies?query=${encodeURIComponent("CREATE (:Movie {title: 'Alien'})<-[:ACTED_IN {role: 'Ripley'}]-(:Actor {name: 'Sigourney'}) RETURN 1 AS ok")}&timeout=5000`,
    undefined,
    'text/event-stream',
  );
  const [created] = parseEvents(create.body);
  expect(created).toMatchObject({ event: 'result', data: { data: [{ ok: 1 }] } });
  expect((created!.data as { metadata: string[] }).metadata).toEqual(
    expect.arrayContaining(['Nodes created: 2', 'Relationships created: 1']),
  );

  // The Read-Only user streams a read query.
  const reader = roleTokens['Read-Only']!;
  const read = await send(
    reader,
    'GET',
    `/api/graph/movies?query=${encodeURIComponent('MATCH (a:Actor)-[r]->(m:Movie) RETURN a.name AS actor, r.role AS role, m.title AS title')}&timeout=5000`,
    undefined,
    'text/event-stream',
  );
  expect(parseEvents(read.body)).toEqual([
    {
      event: 'result',
      data: expect.objectContaining({ data: [{ actor: 'Sigourney', role: 'Ripley', title: 'Alien' }] }) as unknown,
    },
  ]);

  // Nodes: read, add a label, set and remove properties.
  const movie = (await send(reader, 'GET', '/api/graph/movies/0')).json<{
    result: { data: { node: { labels: string[] }; relationships: unknown[] }[] };
  }>().result.data[0]!;
  expect(movie.node).toEqual({ id: 0, labels: ['Movie'], properties: { title: 'Alien' } });
  expect(movie.relationships).toEqual([
    { id: 0, relationshipType: 'ACTED_IN', sourceId: 1, destinationId: 0, properties: { role: 'Ripley' } },
  ]);
  expect((await send(writer, 'POST', '/api/graph/movies/0/label', { label: 'Classic' })).json()).toEqual({
    message: 'Label added',
  });
  expect((await send(writer, 'POST', '/api/graph/movies/0/year', { value: 1979, type: true })).json()).toEqual({
    message: 'Property set',
  });
  expect((await send(writer, 'DELETE', '/api/graph/movies/0/role', { type: false })).json()).toEqual({
    message: 'Property removed',
  });
  expect(await graphQuery(t.falkordb, 'movies', 'MATCH (m:Classic)<-[r]-() RETURN m.year, r.role')).toEqual([
    [1979, null],
  ]);

  // Duplicate, rename, export.
  expect((await send(writer, 'PATCH', '/api/graph/movies-copy/duplicate?sourceName=movies')).json()).toEqual({
    result: { status: 'OK' },
  });
  expect((await send(writer, 'PATCH', '/api/graph/films', { sourceName: 'movies-copy' })).json()).toEqual({
    data: { result: 'OK' },
  });
  const graphs = (await send(reader, 'GET', '/api/graph')).json<{ opts: string[] }>().opts.sort();
  expect(graphs).toEqual(['films', 'movies']);
  const exported = await send(reader, 'GET', '/api/graph/films/export');
  expect(exported.headers['content-disposition']).toContain('films.dump');
  expect(exported.rawPayload.length).toBeGreaterThan(0);
  expect((await send(reader, 'GET', '/api/graph/films/count')).json()).toEqual({ result: { nodes: 2, edges: 1 } });

  // The Admin changes a configuration value; the Read-Only user may not.
  expect((await send(adminToken, 'POST', '/api/graph/config/MAX_INFO_QUERIES?value=321')).json()).toEqual({
    config: 'OK',
  });
  expect((await send(adminToken, 'GET', '/api/graph/config/MAX_INFO_QUERIES')).json()).toEqual({ config: 321 });
  expect((await send(reader, 'GET', '/api/graph/config')).statusCode).toBe(403);

  // Tokens: the Admin sees everyone's, revokes the reader's; the reader is locked out at once.
  const listed = (await send(adminToken, 'GET', '/api/auth/tokens')).json<{
    tokens: { token_id: string; name: string; permissions: string[] }[];
    count: number;
  }>();
  expect(listed.count).toBe(4);
  expect(listed.tokens.find((x) => x.token_id === decodeJwt(adminToken).jti)).toMatchObject({
    name: 'laptop',
    permissions: ['Admin'],
  });
  const readerId = decodeJwt(reader).jti!;
  expect((await send(adminToken, 'DELETE', `/api/auth/tokens/${readerId}`)).json()).toEqual({
    message: 'Token revoked successfully',
    tokenId: readerId,
  });
  expect((await send(reader, 'GET', '/api/graph')).statusCode).toBe(401);
  expect((await send(adminToken, 'GET', '/api/auth/tokens')).json<{ count: number }>().count).toBe(3);

  // Clean-up through the API: the graphs and users go away.
  expect((await send(writer, 'DELETE', '/api/graph/films')).json()).toEqual({ message: 'Graph films deleted' });
  expect((await send(adminToken, 'DELETE', '/api/user', { users: [{ username: 'member-read-only' }] })).json()).toEqual(
    { message: 'Users deleted' },
  );
  const client = await adminClient(t.falkordb);
  try {
    expect(await client.sendCommand<string[]>(['GRAPH.LIST'])).toEqual(['movies']);
    expect(await client.sendCommand(['ACL', 'GETUSER', 'member-read-only'])).toBeNull();
  } finally {
    await client.close();
  }
});
