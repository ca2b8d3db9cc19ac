// Service accounts and their tokens (bearer authentication on the admin API), over local files (embedded) and the
// Kubernetes API double (or the real kube-apiserver under vitest.kube.config.ts): a token works until it expires,
// is revoked or its account is disabled; its role limits it exactly as a user's; it is never answered again nor
// written to a log, an audit entry or a support package; guesses are throttled per address.
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ADAPTERS, login, useAdminApp } from '../support/admin.js';
import { eventually } from '../support/wait.js';
import { readZip } from '../support/zip-reader.js';

const DAY_MS = 86_400_000;

describe.each(ADAPTERS)('service accounts (%s)', (adapter) => {
  let clock = Date.now();
  const t = useAdminApp({ adapter, now: () => clock });
  const admin = t.as('admin');
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  const withToken = (key: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: bearer(key),
      ...(payload === undefined ? {} : { payload: payload as never }),
    });
  const planted: string[] = [];

  async function account(name: string, role: string, extra: Record<string, unknown> = {}) {
    const res = await admin.inject({ method: 'POST', url: '/api/serviceaccounts/', payload: { name, role, ...extra } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: string; name: string }>();
  }
  async function token(id: string, body: Record<string, unknown> = {}) {
    const res = await admin.inject({
      method: 'POST',
      url: `/api/serviceaccounts/${id}/tokens`,
      payload: { name: `t-${planted.length}`, expiresInDays: 30, ...body },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const created = res.json<{ key: string; token: { id: string } }>();
    expect(created.key).toMatch(/^gdbsa_[0-9A-Za-z]{38}$/);
    planted.push(created.key);
    return { key: created.key, id: created.token.id };
  }

  it('a viewer token is limited exactly as a viewer session, and never answered again', async () => {
    const ci = await account('ci-viewer', 'viewer', { description: 'reads' });
    const { key } = await token(ci.id);
    const probes = [
      ['GET', '/api/clusters/'],
      ['GET', '/api/system/namespaces'],
      ['GET', '/api/users/'],
      ['GET', '/api/settings/'],
      ['GET', '/api/serviceaccounts/'],
      ['POST', '/api/users/'],
      ['DELETE', '/api/clusters/nope'],
      ['GET', '/api/audit/'],
    ] as const;
    for (const [method, url] of probes) {
      const asSession = await t.as('viewer').inject({ method, url });
      const asToken = await withToken(key, method, url);
      expect(asToken.statusCode, `${method} ${url}: ${asToken.body}`).toBe(asSession.statusCode);
      if (asSession.statusCode === 403) expect(asToken.json()).toEqual(asSession.json());
    }
    const views = [
      await admin.inject({ method: 'GET', url: '/api/serviceaccounts/' }),
      await admin.inject({ method: 'GET', url: `/api/serviceaccounts/${ci.id}` }),
      await admin.inject({ method: 'GET', url: '/api/serviceaccounts/ci-viewer' }),
      await admin.inject({ method: 'GET', url: `/api/serviceaccounts/${ci.id}/tokens` }),
    ];
    for (const view of views) {
      expect(view.statusCode, view.body).toBe(200);
      expect(view.body).not.toContain(key);
      expect(view.body).not.toContain(key.slice(6, 30));
    }
    expect(views[0]!.json()).toEqual({
      serviceAccounts: [
        expect.objectContaining({ name: 'ci-viewer', role: 'viewer', disabled: false, createdBy: 'root@corp.example' }),
      ],
    });
  });

  it('a token with the admin role acts as the account, audited with its name and token id', async () => {
    const ci = await account('ci-admin', 'admin');
    const { key, id: tokenId } = await token(ci.id);
    const created = await withToken(key, 'POST', '/api/users/', {
      email: 'made-by-ci@corp.example',
      role: 'viewer',
      password: 'made-by-ci-password',
    });
    expect(created.statusCode, created.body).toBe(201);
    // The cookie rules do not apply to a bearer token (nothing a browser sends by itself).
    await eventually(async () => {
      const res = await admin.inject({ method: 'GET', url: '/api/audit/?userId=serviceaccount:ci-admin' });
      return res.json<{ logs: { action: string; tokenId?: string; resourceName?: string }[] }>().logs.length > 0;
    }, 5000);
    const audit = await admin.inject({ method: 'GET', url: '/api/audit/?userId=serviceaccount:ci-admin' });
    expect(audit.json<{ logs: unknown[] }>().logs).toEqual([
      expect.objectContaining({
        userId: 'serviceaccount:ci-admin',
        tokenId,
        action: 'user.create',
        resourceName: 'made-by-ci@corp.example',
        result: 'success',
      }),
    ]);
    // Last use is written (at most once a minute), with the caller's address.
    await eventually(async () => {
      const res = await admin.inject({ method: 'GET', url: `/api/serviceaccounts/${ci.id}/tokens` });
      return (
        res.json<{ tokens: { lastUsedAt?: string; lastUsedIp?: string }[] }>().tokens[0]?.lastUsedIp === '127.0.0.1'
      );
    }, 5000);
  });

  it('revocation and disabling stop a token at once; other tokens of the account go on (rotation)', async () => {
    const ci = await account('ci-rotate', 'operator');
    const first = await token(ci.id);
    const second = await token(ci.id);
    expect((await withToken(first.key, 'GET', '/api/clusters/')).statusCode).toBe(200);
    const revoked = await admin.inject({ method: 'DELETE', url: `/api/serviceaccounts/${ci.id}/tokens/${first.id}` });
    expect(revoked.statusCode, revoked.body).toBe(204);
    const refused = await withToken(first.key, 'GET', '/api/clusters/');
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      message: 'Invalid, expired or revoked token',
      code: 'unauthenticated',
    });
    expect((await withToken(second.key, 'GET', '/api/clusters/')).statusCode).toBe(200);

    const disabled = await admin.inject({
      method: 'PATCH',
      url: `/api/serviceaccounts/${ci.id}`,
      payload: { disabled: true },
    });
    expect(disabled.statusCode, disabled.body).toBe(200);
    expect((await withToken(second.key, 'GET', '/api/clusters/')).statusCode).toBe(401);
    await admin.inject({ method: 'PATCH', url: `/api/serviceaccounts/${ci.id}`, payload: { disabled: false } });
    expect((await withToken(second.key, 'GET', '/api/clusters/')).statusCode).toBe(200);

    const deleted = await admin.inject({ method: 'DELETE', url: `/api/serviceaccounts/${ci.id}` });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect((await withToken(second.key, 'GET', '/api/clusters/')).statusCode).toBe(401);
  });

  it('no caller grants more than it holds', async () => {
    const role = await admin.inject({
      method: 'POST',
      url: '/api/rbac/roles',
      payload: {
        name: 'sa-manager',
        rules: [
          { resource: 'serviceaccounts', actions: ['*'] },
          { resource: 'clusters', actions: ['list', 'get', 'read'] },
        ],
      },
    });
    expect(role.statusCode, role.body).toBe(201);
    const narrow = await admin.inject({
      method: 'POST',
      url: '/api/rbac/roles',
      payload: { name: 'cluster-reader', rules: [{ resource: 'clusters', actions: ['list', 'get'] }] },
    });
    expect(narrow.statusCode, narrow.body).toBe(201);
    const user = await admin.inject({
      method: 'POST',
      url: '/api/users/',
      payload: { email: 'sa-manager@corp.example', role: 'sa-manager', password: 'sa-manager-password' },
    });
    expect(user.statusCode, user.body).toBe(201);
    const manager = t.withCookie(await login(t.app, 'sa-manager@corp.example', 'sa-manager-password'));

    const tooMuch = await manager.inject({
      method: 'POST',
      url: '/api/serviceaccounts/',
      payload: { name: 'ci-escalate', role: 'viewer' },
    });
    expect(tooMuch.statusCode, tooMuch.body).toBe(403);
    expect(tooMuch.json<{ message: string }>().message).toBe(
      'Insufficient permissions for clusters.backups:list in every namespace: role viewer grants it, and only what ' +
        'the caller holds may be granted (or with rbac:escalate in namespace graphdb-system)',
    );
    // A `*` in one resource's actions holds what it grants there (never `escalate`), so it can be passed on whole.
    const peer = await admin.inject({
      method: 'POST',
      url: '/api/rbac/roles',
      payload: { name: 'sa-peer', rules: [{ resource: 'serviceaccounts', actions: ['*'] }] },
    });
    expect(peer.statusCode, peer.body).toBe(201);
    const same = await manager.inject({
      method: 'POST',
      url: '/api/serviceaccounts/',
      payload: { name: 'ci-peer', role: 'sa-peer' },
    });
    expect(same.statusCode, same.body).toBe(201);
    const within = await manager.inject({
      method: 'POST',
      url: '/api/serviceaccounts/',
      payload: { name: 'ci-narrow', role: 'cluster-reader' },
    });
    expect(within.statusCode, within.body).toBe(201);
    const id = within.json<{ id: string }>().id;
    const promote = await manager.inject({
      method: 'PATCH',
      url: `/api/serviceaccounts/${id}`,
      payload: { role: 'admin' },
    });
    expect(promote.statusCode, promote.body).toBe(403);
    // An account holding more than the caller is out of its reach: no token, no change, no deletion.
    const strong = await account('ci-strong', 'operator');
    for (const [method, url, payload] of [
      ['POST', `/api/serviceaccounts/${strong.id}/tokens`, { name: 'x', expiresInDays: 1 }],
      ['PATCH', `/api/serviceaccounts/${strong.id}`, { description: 'mine now' }],
      ['DELETE', `/api/serviceaccounts/${strong.id}`, undefined],
    ] as const) {
      const res = await manager.inject({ method, url, ...(payload ? { payload } : {}) });
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(403);
    }
    // A token of the narrow account, minted by the manager, cannot grant beyond cluster-reader either.
    const minted = await manager.inject({
      method: 'POST',
      url: `/api/serviceaccounts/${id}/tokens`,
      payload: { name: 'narrow', expiresInDays: 1 },
    });
    expect(minted.statusCode, minted.body).toBe(201);
    planted.push(minted.json<{ key: string }>().key);
    const asNarrow = await withToken(minted.json<{ key: string }>().key, 'POST', '/api/serviceaccounts/', {
      name: 'ci-child',
      role: 'cluster-reader',
    });
    expect(asNarrow.statusCode).toBe(403);
    expect(asNarrow.json<{ message: string }>().message).toBe(
      'Insufficient permissions for serviceaccounts:create in namespace graphdb-system',
    );
  });

  it('rbac:escalate lifts the rule as for users; an account never changes its own role', async () => {
    const binder = await admin.inject({
      method: 'POST',
      url: '/api/rbac/roles',
      payload: {
        name: 'sa-binder',
        rules: [
          { resource: 'serviceaccounts', actions: ['*'] },
          { resource: 'rbac', actions: ['escalate'] },
        ],
      },
    });
    expect(binder.statusCode, binder.body).toBe(201);
    const selfish = await account('ci-binder', 'sa-binder');
    const { key } = await token(selfish.id);
    // The binder holds no cluster right, yet may give (and act on) an account that does.
    const given = await withToken(key, 'POST', '/api/serviceaccounts/', { name: 'ci-bound', role: 'operator' });
    expect(given.statusCode, given.body).toBe(201);
    const own = await withToken(key, 'PATCH', `/api/serviceaccounts/${selfish.id}`, { role: 'admin' });
    expect(own.statusCode, own.body).toBe(403);
    expect(own.json<{ message: string }>().message).toBe(
      'A service account cannot change its own role: a user or another account with the right must do it',
    );
    const described = await withToken(key, 'PATCH', `/api/serviceaccounts/${selfish.id}`, { description: 'mine' });
    expect(described.statusCode, described.body).toBe(200);
    const after = await admin.inject({ method: 'GET', url: `/api/serviceaccounts/${selfish.id}` });
    expect(after.json<{ role: string }>().role).toBe('sa-binder');
  });

  it('bad input is a 400, never a partial write', async () => {
    const ci = await account('ci-input', 'viewer');
    for (const body of [
      { name: 'no-expiry' },
      { name: 'too-long', expiresInDays: 366 },
      { name: 'bad-cidr', expiresInDays: 1, allowedCidrs: ['10.0.0.0/33'] },
    ]) {
      const res = await admin.inject({ method: 'POST', url: `/api/serviceaccounts/${ci.id}/tokens`, payload: body });
      expect(res.statusCode, res.body).toBe(400);
    }
    const res = await admin.inject({
      method: 'POST',
      url: '/api/serviceaccounts/',
      payload: { name: 'Bad Name', role: 'viewer' },
    });
    expect(res.statusCode).toBe(400);
    const unknownRole = await admin.inject({
      method: 'POST',
      url: '/api/serviceaccounts/',
      payload: { name: 'x', role: 'nope' },
    });
    expect(unknownRole.statusCode).toBe(400);
    const tokens = await admin.inject({ method: 'GET', url: `/api/serviceaccounts/${ci.id}/tokens` });
    expect(tokens.json()).toEqual({ tokens: [] });
    const duplicate = await admin.inject({
      method: 'POST',
      url: '/api/serviceaccounts/',
      payload: { name: 'ci-input', role: 'viewer' },
    });
    expect(duplicate.statusCode).toBe(409);
  });

  it('the longest token lifetime is a setting: a new token beyond it is refused, naming the setting', async () => {
    const ci = await account('ci-lifetime', 'viewer');
    const setMax = (days: unknown) =>
      admin.inject({
        method: 'PATCH',
        url: '/api/settings/',
        payload: { service_accounts: { max_token_lifetime_days: days } },
      });
    for (const bad of [0, 3651, 7.5, '7']) expect((await setMax(bad)).statusCode, String(bad)).toBe(400);
    expect((await setMax(7)).statusCode).toBe(200);
    try {
      const tooLong = await admin.inject({
        method: 'POST',
        url: `/api/serviceaccounts/${ci.id}/tokens`,
        payload: { name: 'eight-days', expiresInDays: 8 },
      });
      expect(tooLong.statusCode, tooLong.body).toBe(400);
      expect(tooLong.json<{ message: string }>().message).toBe(
        'expiresInDays must be at most 7 (settings: service_accounts.max_token_lifetime_days)',
      );
      const listed = await admin.inject({ method: 'GET', url: `/api/serviceaccounts/${ci.id}/tokens` });
      expect(listed.json()).toEqual({ tokens: [] });
      await token(ci.id, { expiresInDays: 7 });
    } finally {
      expect((await setMax(365)).statusCode).toBe(200);
    }
  });

  it('a token used from outside its allowed addresses is refused', async () => {
    const ci = await account('ci-cidr', 'viewer');
    const { key } = await token(ci.id, { allowedCidrs: ['10.0.0.0/8', '2001:db8::/32'] });
    const from = (remoteAddress: string) =>
      t.app.inject({ method: 'GET', url: '/api/clusters/', headers: bearer(key), remoteAddress });
    expect((await from('10.1.2.3')).statusCode).toBe(200);
    expect((await from('2001:db8::7')).statusCode).toBe(200);
    expect((await from('192.0.2.1')).statusCode).toBe(401);
  });

  it('guessing tokens is throttled per address', async () => {
    const guess = (remoteAddress: string, key: string) =>
      t.app.inject({ method: 'GET', url: '/api/clusters/', headers: bearer(key), remoteAddress });
    const statuses: number[] = [];
    // Well-formed guesses (a valid checksum is cheap to compute) and malformed ones count alike.
    for (let i = 0; i < 14; i++) statuses.push((await guess('198.51.100.7', `gdbsa_${'x'.repeat(38)}${i}`)).statusCode);
    expect(statuses.slice(0, 12)).toEqual(Array(12).fill(401));
    expect(statuses.slice(12)).toEqual([429, 429]);
    // Another address is not affected; the throttled address is refused even with a good token.
    const ci = await account('ci-throttle', 'viewer');
    const { key } = await token(ci.id);
    expect((await guess('198.51.100.8', key)).statusCode).toBe(200);
    const throttled = await guess('198.51.100.7', key);
    expect(throttled.statusCode).toBe(429);
    expect(throttled.headers['retry-after']).toBeDefined();
  });

  it('sign-in policy does not block tokens; the service_accounts setting turns them off at once', async () => {
    const ci = await account('ci-policy', 'admin');
    const { key } = await token(ci.id);
    const oauthOnly = await admin.inject({
      method: 'PATCH',
      url: '/api/settings/',
      payload: {
        features: { oauth2_enabled: true, local_users_enabled: false },
        alpha_oauth: {
          client_id: 'alpha-client',
          redirect_uri: 'https://admin.corp.example/api/auth/oauth/alpha/callback',
          client_secret_secret_ref: 'graphdb-settings-alpha',
          client_secret: 'alpha-client-secret',
        },
      },
    });
    expect(oauthOnly.statusCode, oauthOnly.body).toBe(200);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email: 'root@corp.example', password: 'root-password-123' },
        })
      ).statusCode,
    ).not.toBe(200);
    expect((await withToken(key, 'GET', '/api/clusters/')).statusCode).toBe(200);
    const back = await withToken(key, 'PATCH', '/api/settings/', {
      features: { local_users_enabled: true },
      service_accounts: { enabled: false },
    });
    expect(back.statusCode, back.body).toBe(200);
    const off = await withToken(key, 'GET', '/api/clusters/');
    expect(off.statusCode).toBe(401);
    expect(off.json<{ message: string }>().message).toBe(
      'Service accounts are turned off (settings: service_accounts.enabled)',
    );
    const on = await admin.inject({
      method: 'PATCH',
      url: '/api/settings/',
      payload: { service_accounts: { enabled: true } },
    });
    expect(on.statusCode, on.body).toBe(200);
    expect((await withToken(key, 'GET', '/api/clusters/')).statusCode).toBe(200);
  });

  it('no token value reaches a log line, an audit entry or the support package', async () => {
    const ci = await account('ci-leak', 'admin');
    const { key } = await token(ci.id);
    planted.push(key);
    // Used for a success, a refusal and a failure, and logged by a careless line.
    expect((await withToken(key, 'GET', '/api/clusters/')).statusCode).toBe(200);
    expect((await withToken(key, 'DELETE', '/api/clusters/nope')).statusCode).toBe(404);
    expect(
      (await withToken(`${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`, 'GET', '/api/clusters/')).statusCode,
    ).toBe(401);
    t.app.log.info({ headers: { authorization: `Bearer ${key}` } }, 'planted bearer line');
    // Pasted where a name or a value goes: in a path (the access line, the error's reason, the audit entry's
    // resource and message), a query string and a logged field. The recognisable prefix is what finds it.
    expect((await admin.inject({ method: 'GET', url: `/api/serviceaccounts/${key}` })).statusCode).toBe(404);
    expect((await admin.inject({ method: 'DELETE', url: `/api/serviceaccounts/${key}` })).statusCode).toBe(404);
    expect((await withToken(key, 'GET', `/api/clusters/?namespace=${key}`)).statusCode).toBeLessThan(500);
    t.app.log.info({ detail: `pasted ${key} here` }, 'planted field line');
    const pkg = await withToken(key, 'POST', '/api/admin/diagnostics/support-package', {
      includeLogs: true,
      logTailLines: 2000,
      auditLimit: 100,
    });
    expect(pkg.statusCode, pkg.body).toBe(200);
    const files = (await readZip(pkg.rawPayload)).map((entry) => [entry.name, entry.data.toString('utf8')] as const);
    expect(files.find(([name]) => name === 'logs/server.log')?.[1]).toContain('planted bearer line');
    expect(t.logs.text).toContain('planted field line');
    const audit = (await admin.inject({ method: 'GET', url: '/api/audit/?limit=1000' })).body;
    expect(audit).toContain('serviceaccount:ci-leak');
    const stored = JSON.stringify(await t.backdoor.secret('graphdb-admin-serviceaccounts'));
    expect(planted.length).toBeGreaterThan(0);
    for (const secret of planted) {
      const body = secret.slice('gdbsa_'.length, -6);
      for (const [name, text] of [...files, ['log', t.logs.text], ['audit', audit], ['store', stored]] as const)
        expect(text.includes(body), `${name} holds a token`).toBe(false);
    }
  });

  it('a token stops when it expires', async () => {
    const ci = await account('ci-expiry', 'viewer');
    const { key } = await token(ci.id, { expiresInDays: 1 });
    expect((await withToken(key, 'GET', '/api/clusters/')).statusCode).toBe(200);
    clock += DAY_MS - 60_000;
    expect((await withToken(key, 'GET', '/api/clusters/')).statusCode).toBe(200);
    clock += 60_000;
    const expired: LightMyRequestResponse = await withToken(key, 'GET', '/api/clusters/');
    expect(expired.statusCode).toBe(401);
    const list = await withToken(key, 'GET', '/api/clusters/');
    expect(list.statusCode).toBe(401);
  });

  it('the token-expiry metric says when the first working token expires, leaving out disabled accounts', async () => {
    const expiry = async () => {
      const line = (await t.metricsText())
        .split('\n')
        .find((candidate) => candidate.startsWith('graphdb_service_account_token_next_expiry_timestamp_seconds '));
      return line === undefined ? undefined : Number(line.split(' ')[1]);
    };
    const soon = await account('metric-expiry', 'viewer');
    const res = await admin.inject({
      method: 'POST',
      url: `/api/serviceaccounts/${soon.id}/tokens`,
      payload: { name: 'soon', expiresInDays: 2 },
    });
    expect(res.statusCode, res.body).toBe(201);
    const expiresAt = Date.parse(res.json<{ token: { expiresAt: string } }>().token.expiresAt) / 1000;
    // Every other working token was made for 30 days: this one is the first to expire.
    let seen: number | undefined;
    await eventually(async () => (seen = await expiry()) === expiresAt, 10_000, { detail: () => String(seen) });
    const disabled = await admin.inject({
      method: 'PATCH',
      url: `/api/serviceaccounts/${soon.id}`,
      payload: { disabled: true },
    });
    expect(disabled.statusCode, disabled.body).toBe(200);
    await eventually(
      async () => {
        seen = await expiry();
        return seen !== undefined && seen > expiresAt;
      },
      10_000,
      { detail: () => String(seen) },
    );
  });
});
