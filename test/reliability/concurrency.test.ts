// Concurrency over real HTTP: tokens created and revoked at the same time leave a list that matches what each
// token can do, a token revoked by many callers at once is revoked once, and users created under one name at the
// same time give exactly one 201 (database users and admin users, one replica or two).
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actorFor, type HttpAnswer } from '../support/actor.js';
import { ADMIN, login, useAdminApp } from '../support/admin.js';
import { listen, type TestApp } from '../support/app.js';
import { adminClient, createDbUser, credentials, useBrowserApp } from '../support/browser.js';
import { startKubeApiDouble, type KubeApiDouble } from '../support/kube/kube-api-double.js';
import { startKubeReplica } from '../support/kube-app.js';

const statuses = (answers: HttpAnswer[]) => answers.map((a) => a.status).sort((a, b) => a - b);

describe('tokens and database users under concurrent requests', () => {
  const t = useBrowserApp({ prefix: 'conc', listen: true });
  const admin = t.as('Admin');
  beforeAll(() => createDbUser(t.falkordb, 'conc-user', 'conc-user-pw', 'Read-Only'));

  const createTokens = (count: number, prefix: string) =>
    Promise.all(
      Array.from({ length: count }, (_, i) =>
        t.anonymous.fetch({
          method: 'POST',
          url: '/api/auth/tokens/credentials',
          payload: credentials(t.falkordb, 'conc-user', 'conc-user-pw', { name: `${prefix}-${i}` }),
        }),
      ),
    );
  const idOf = (answer: HttpAnswer) => decodeJwt(String(answer.body.token)).jti!;
  const listed = async () => {
    const list = await admin.fetch({ method: 'GET', url: '/api/auth/tokens' });
    const tokens = list.body.tokens as { token_id: string; username: string }[];
    expect(list.body.count).toBe(tokens.length);
    return tokens
      .filter((token) => token.username === 'conc-user')
      .map((token) => token.token_id)
      .sort();
  };

  it('creates and revokes tokens at the same time, leaving a list that matches what each token can do', async () => {
    const first = await createTokens(16, 'first');
    expect(statuses(first)).toEqual(Array<number>(16).fill(200));
    const firstIds = first.map(idOf);
    expect(new Set(firstIds).size).toBe(16);
    const [revoked, kept] = [firstIds.slice(0, 8), firstIds.slice(8)];

    // Revocations, new tokens and listings all at once.
    const [revocations, second] = await Promise.all([
      Promise.all(revoked.map((id) => admin.fetch({ method: 'DELETE', url: `/api/auth/tokens/${id}` }))),
      createTokens(8, 'second'),
      Promise.all([1, 2, 3].map(() => listed())),
    ]);
    expect(statuses(revocations)).toEqual(Array<number>(8).fill(200));
    expect(statuses(second)).toEqual(Array<number>(8).fill(200));

    expect(await listed()).toEqual([...kept, ...second.map(idOf)].sort());
    const tokenOf = new Map([...first, ...second].map((answer) => [idOf(answer), String(answer.body.token)]));
    const uses = await Promise.all(
      [...tokenOf].map(async ([id, token]) => ({
        id,
        answer: await t.withToken(token).fetch({ method: 'GET', url: '/api/graph' }),
      })),
    );
    for (const { id, answer } of uses) {
      if (revoked.includes(id))
        expect(answer, id).toEqual({
          status: 401,
          body: { message: 'Token has been revoked', code: 'unauthenticated' },
        });
      else expect(answer.status, id).toBe(200);
    }
  });

  it('revokes a token once when ten callers revoke it at the same time', async () => {
    const [created] = await createTokens(1, 'contested');
    const id = idOf(created!);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => admin.fetch({ method: 'DELETE', url: `/api/auth/tokens/${id}` })),
    );
    expect(statuses(answers)).toEqual([200, ...Array<number>(9).fill(400)]);
    for (const answer of answers.filter((a) => a.status === 400))
      expect(answer.body).toEqual({ message: 'Token is already revoked', code: 'invalid_request' });
    expect(await listed()).not.toContain(id);
  });

  it('creates a database user once when ten requests name it at the same time; only that password works', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        admin.fetch({
          method: 'POST',
          url: '/api/user',
          payload: { username: 'contested', password: `contested-pw-${i}`, role: 'Read-Only' },
        }),
      ),
    );
    expect(statuses(answers)).toEqual([201, ...Array<number>(9).fill(409)]);
    for (const answer of answers.filter((a) => a.status === 409))
      expect(answer.body).toEqual({ message: 'User contested already exists', code: 'conflict' });
    const winner = answers.findIndex((a) => a.status === 201);
    const client = await adminClient(t.falkordb);
    try {
      expect(await client.sendCommand(['ACL', 'USERS'])).toContain('contested');
      for (let i = 0; i < 10; i++) {
        const auth = await client.sendCommand(['AUTH', 'contested', `contested-pw-${i}`]).then(
          () => 'ok',
          (error: unknown) => String(error),
        );
        expect(auth, `password ${i}`).toEqual(i === winner ? 'ok' : expect.stringMatching(/WRONGPASS/));
      }
    } finally {
      await client.close();
    }
  });

  it('never brings a deleted user back: a role change racing its deletion leaves no password-less user', async () => {
    const client = await adminClient(t.falkordb);
    try {
      for (let round = 0; round < 20; round++) {
        const name = `racer-${round}`;
        expect(
          (
            await admin.fetch({
              method: 'POST',
              url: '/api/user',
              payload: { username: name, password: 'racer-pw', role: 'Read-Only' },
            })
          ).status,
        ).toBe(201);
        const [changed, deleted] = await Promise.all([
          admin.fetch({ method: 'PATCH', url: `/api/user/${name}?role=Read-Write` }),
          admin.fetch({ method: 'DELETE', url: '/api/user', payload: { users: [{ username: name }] } }),
        ]);
        expect(deleted.status).toBe(200);
        expect([200, 404]).toContain(changed.status);
        // Whatever the order, the deletion wins: the change either ran before it or found no user.
        expect(await client.sendCommand(['ACL', 'GETUSER', name]), `round ${round}: ${changed.status}`).toBeNull();
      }
    } finally {
      await client.close();
    }
  });
});

describe.each(['embedded', 'kubernetes'] as const)(
  'admin users created under one e-mail at the same time (%s store)',
  (adapter) => {
    const t = useAdminApp({ adapter, listen: true });

    it('answers one 201 and 409 to the rest, storing one user', async () => {
      const emails = ['twin@corp.example', 'TWIN@corp.example', 'Twin@Corp.Example'];
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          t.as('admin').fetch({
            method: 'POST',
            url: '/api/users',
            payload: { email: emails[i % 3], name: `Twin ${i}`, role: 'viewer' },
          }),
        ),
      );
      expect(statuses(answers)).toEqual([201, ...Array<number>(9).fill(409)]);
      for (const answer of answers.filter((a) => a.status === 409))
        expect(answer.body).toMatchObject({
          statusCode: 409,
          error: 'Conflict',
          message: expect.stringMatching(/^User twin@corp\.example already exists$/i) as unknown,
          code: 'conflict',
        });
      const stored = JSON.parse((await t.backdoor.secret('graphdb-admin-users'))!['users.json']!) as {
        email: string;
      }[];
      expect(stored.filter((user) => user.email.toLowerCase() === 'twin@corp.example')).toHaveLength(1);
    });
  },
);

describe('admin users created under one e-mail at the same time through two replicas', () => {
  let kube: KubeApiDouble;
  let replicas: TestApp[];
  beforeAll(async () => {
    kube = await startKubeApiDouble();
    const first = await startKubeReplica(kube);
    replicas = [first, await startKubeReplica(kube, { falkordb: first.falkordb })];
  });
  afterAll(async () => {
    await replicas[1]!.close();
    await replicas[0]!.close();
    await kube.close();
  });

  it('answers one 201 across both replicas and stores one user', async () => {
    const admins = await Promise.all(
      replicas.map(async (replica) => {
        const baseUrl = await listen(replica.app);
        const cookie = await login(replica.app, ADMIN.email, ADMIN.password);
        return actorFor({ app: () => replica.app, identity: () => ({ cookie }), baseUrl: () => baseUrl });
      }),
    );
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        admins[i % 2]!.fetch({
          method: 'POST',
          url: '/api/users',
          payload: { email: 'pair@corp.example', name: `Pair ${i}`, role: 'viewer' },
        }),
      ),
    );
    expect(statuses(answers)).toEqual([201, ...Array<number>(9).fill(409)]);
    const data = kube.get('secrets', 'graphdb-system', 'graphdb-admin-users')?.data as Record<string, string>;
    const stored = JSON.parse(Buffer.from(data['users.json']!, 'base64').toString('utf8')) as { email: string }[];
    expect(stored.filter((user) => user.email === 'pair@corp.example')).toHaveLength(1);
  });
});
