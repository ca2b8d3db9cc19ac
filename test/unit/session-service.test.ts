// The session check (admin/sessions/session-service.ts) over a real user store in files: answered from memory once
// a cookie is known and the user list is fresh, and still every change of the user is seen at once.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSessionService, type AuthenticatedUser } from '../../src/admin/sessions/session-service.js';
import { createUserService } from '../../src/admin/users/user-service.js';
import { createUserStore, USERS_SECRET, type StoredUser } from '../../src/admin/users/user-store.js';
import { createFileSecrets } from '../../src/platform/stores/file-stores.js';
import { UnauthorizedError } from '../../src/http/http-errors.js';

const REFRESH_MS = 5_000;
const quiet = { warn: () => undefined };

function storedUser(index: number, overrides: Partial<StoredUser> = {}): StoredUser {
  return {
    id: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    email: `user${index}@corp.example`,
    name: `User ${index}`,
    role: 'viewer',
    provider: 'local',
    createdAt: '2026-11-25T00:00:00.000Z',
    disabled: false,
    ...overrides,
  };
}

describe('session check', () => {
  let dir: string;
  let now: number;
  let secrets: ReturnType<typeof createFileSecrets>;
  let users: ReturnType<typeof createUserService>;
  let sessions: ReturnType<typeof createSessionService>;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'session-service-'));
    now = Date.now();
    secrets = createFileSecrets(dir);
    const many = Array.from({ length: 10_000 }, (_, index) => storedUser(index));
    await secrets.write(USERS_SECRET, { 'users.json': JSON.stringify(many) }, undefined);
    const store = createUserStore(secrets, { refreshMs: REFRESH_MS, now: () => now, logger: quiet });
    users = createUserService(store, () => now);
    sessions = createSessionService(
      {
        secret: 'a session secret of thirty-two bytes!',
        ttlSeconds: 3600,
        publicOrigin: 'http://localhost',
        now: () => now,
      },
      users,
    );
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const credentialsFor = async (user: StoredUser) => {
    const [cookie] = await sessions.start(user);
    return { cookies: { [cookie!.name]: cookie!.value }, secFetchSite: undefined };
  };

  it('reads the store for a new cookie, then answers from memory with one object per stored user', async () => {
    const user = (await users.findById(storedUser(9_876).id))!;
    expect(user.email).toBe('user9876@corp.example');
    const credentials = await credentialsFor(user);

    const first = sessions.authenticate(credentials);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toEqual({
      id: user.id,
      email: 'user9876@corp.example',
      name: 'User 9876',
      role: 'viewer',
      provider: 'local',
      mustChangePassword: false,
    });
    const second = sessions.authenticate(credentials) as AuthenticatedUser;
    expect(second).not.toBeInstanceOf(Promise);
    expect(second).toEqual(await first);
    expect(sessions.authenticate(credentials)).toBe(second);
    expect(Object.isFrozen(second)).toBe(true);
  });

  it('sees a change of the user at once, from memory: a new name, then a role change that ends the session', async () => {
    const credentials = await credentialsFor(storedUser(42));
    await sessions.authenticate(credentials);

    await users.update('user42@corp.example', { name: 'Renamed' });
    const renamed = sessions.authenticate(credentials) as AuthenticatedUser;
    expect(renamed).not.toBeInstanceOf(Promise);
    expect(renamed.name).toBe('Renamed');

    await users.update('user42@corp.example', { role: 'admin' });
    expect(() => sessions.authenticate(credentials)).toThrow(UnauthorizedError);
  });

  it('refuses, from memory, the session of a user who was disabled or deleted, or whose sessions were ended', async () => {
    const [disabled, deleted, ended] = await Promise.all([
      credentialsFor(storedUser(1)),
      credentialsFor(storedUser(2)),
      credentialsFor(storedUser(3)),
    ]);
    for (const credentials of [disabled, deleted, ended]) await sessions.authenticate(credentials);
    await users.update('user1@corp.example', { status: 'disabled' });
    await users.remove('user2@corp.example');
    await users.endSessions(storedUser(3).id);
    for (const credentials of [disabled, deleted, ended])
      expect(() => sessions.authenticate(credentials)).toThrow('Session expired or invalid');
  });

  it('reads the store again once its copy is older than the refresh interval, and sees what another writer wrote', async () => {
    const credentials = await credentialsFor(storedUser(7));
    await sessions.authenticate(credentials);
    // Another replica disables the user in the shared store; this one has not been told.
    const stored = (await secrets.read(USERS_SECRET))!;
    const list = JSON.parse(stored.value['users.json']!) as StoredUser[];
    list[7] = { ...list[7]!, disabled: true };
    await secrets.write(USERS_SECRET, { 'users.json': JSON.stringify(list) }, stored.version);
    expect(sessions.authenticate(credentials)).not.toBeInstanceOf(Promise); // its copy is still fresh

    now += REFRESH_MS;
    const reread = sessions.authenticate(credentials);
    expect(reread).toBeInstanceOf(Promise);
    await expect(reread).rejects.toThrow('Session expired or invalid');
  });

  it('refuses a request without a session cookie at once, and a cookie that is not a session', async () => {
    expect(() => sessions.authenticate({ cookies: {}, secFetchSite: undefined })).toThrow('Authentication required');
    await expect(sessions.authenticate({ cookies: { token: 'not.a.jwt' }, secFetchSite: undefined })).rejects.toThrow(
      'Session expired or invalid',
    );
  });

  it('finds a user by id among many, the first of two with one id as a search from the start would', async () => {
    const stored = (await secrets.read(USERS_SECRET))!;
    const list = JSON.parse(stored.value['users.json']!) as StoredUser[];
    list.push(storedUser(5, { email: 'twin@corp.example' }));
    await secrets.write(USERS_SECRET, { 'users.json': JSON.stringify(list) }, stored.version);
    expect((await users.findById(storedUser(9_999).id))?.email).toBe('user9999@corp.example');
    expect((await users.findById(storedUser(5).id))?.email).toBe('user5@corp.example');
    expect(await users.findById('no such id')).toBeUndefined();
  });
});
