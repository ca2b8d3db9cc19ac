import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, settingsView, type Settings } from '../../src/admin/settings/schemas.js';
import { NO_WAY_TO_SIGN_IN } from '../../src/admin/oauth/providers.js';
import { ADAPTERS, ADMIN, sessionsForEveryRole, startAdminTestApp, useAdminApp } from '../support/admin.js';

describe.each(ADAPTERS)('settings (%s stores)', (adapter) => {
  const t = useAdminApp(adapter);

  const get = (cookie = t.sessions.admin) =>
    t.app.inject({ method: 'GET', url: '/api/settings/', headers: { cookie } });
  const patch = (payload: unknown, cookie = t.sessions.admin) =>
    t.app.inject({ method: 'PATCH', url: '/api/settings/', headers: { cookie }, payload: payload as never });
  const stored = async () => {
    const text = await t.backdoor.settingsText();
    return text === undefined ? undefined : (JSON.parse(text) as Record<string, Record<string, unknown>>);
  };

  it('checks permissions before the body: a viewer sending a bad settings body gets 403, not 400, and nothing is stored', async () => {
    const before = await t.backdoor.settingsText();
    for (const payload of [{ features: { api_docs_enabled: 'maybe' } }, { ui: 'x'.repeat(10) }, []]) {
      const res = await t.app.inject({
        method: 'PATCH',
        url: '/api/settings/',
        headers: { cookie: t.sessions.viewer },
        payload: payload as never,
      });
      expect(res.statusCode, res.body).toBe(403);
    }
    const user = await t.app.inject({
      method: 'POST',
      url: '/api/users',
      headers: { cookie: t.sessions.viewer },
      payload: { email: 'not an email' },
    });
    expect(user.statusCode).toBe(403);
    expect(await t.backdoor.settingsText()).toBe(before);
  });

  it('starts from the documented defaults, leaving out e-mail fields that are unset', async () => {
    const res = await get();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(settingsView(DEFAULT_SETTINGS));
    // "" would fail the documented format: email of alpha_workspace.admin_email.
    expect(res.json<Settings>().alpha_workspace).toEqual({ domain: '', private_key_secret_ref: '' });
  });

  it('shows alpha_workspace e-mails once set, and leaves them out again once cleared', async () => {
    const set = await patch({ alpha_workspace: { admin_email: 'directory-admin@corp.example' } });
    expect(set.json<Settings>().alpha_workspace.admin_email).toBe('directory-admin@corp.example');
    expect((await get()).json<Settings>().alpha_workspace.admin_email).toBe('directory-admin@corp.example');
    const cleared = await patch({ alpha_workspace: { admin_email: '' } });
    expect(cleared.json<Settings>().alpha_workspace).not.toHaveProperty('admin_email');
    expect((await stored())!.alpha_workspace!.admin_email).toBe('');
  });

  it('refuses (400, nothing stored) settings that would leave nobody a way to sign in', async () => {
    const before = await t.backdoor.settingsText();
    const refused = (res: { statusCode: number; json: () => unknown }) => {
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        message: NO_WAY_TO_SIGN_IN,
        code: 'invalid_request',
      });
    };
    refused(await patch({ features: { local_users_enabled: false } }));
    // A provider that is configured but switched off, or switched on but incomplete, is no way in either.
    refused(
      await patch({
        features: { local_users_enabled: false, oauth2_enabled: false },
        alpha_oauth: { client_id: 'alpha-client', client_secret_secret_ref: 'alpha-oauth' },
      }),
    );
    refused(await patch({ features: { local_users_enabled: false }, alpha_oauth: { client_id: 'alpha-client' } }));
    // The Secret a refused save names is not written either.
    refused(
      await patch({
        features: { local_users_enabled: false },
        beta_oauth: { client_id: 'beta-client', client_secret_secret_ref: 'beta-oauth', client_secret: 'x-secret' },
      }),
    );
    expect(await t.backdoor.secret('beta-oauth')).toBeUndefined();
    expect(await t.backdoor.settingsText()).toBe(before);
    // With a provider configured and OAuth on, local sign-in may go; the provider may not follow it then.
    const off = await patch({
      features: { local_users_enabled: false },
      alpha_oauth: { client_id: 'alpha-client', client_secret_secret_ref: 'alpha-oauth' },
    });
    expect(off.statusCode, off.body).toBe(200);
    refused(await patch({ features: { oauth2_enabled: false } }));
    refused(await patch({ alpha_oauth: { client_id: '' } }));
    const restored = await patch({ features: { local_users_enabled: true }, alpha_oauth: { client_id: '' } });
    expect(restored.statusCode, restored.body).toBe(200);
  });

  it('treats features.self_service_onboarding and oauth.auto_onboard_users as one switch', async () => {
    const onboarding = (document: Settings) => [
      document.features.self_service_onboarding,
      document.oauth.auto_onboard_users,
    ];
    expect(onboarding((await patch({ features: { self_service_onboarding: true } })).json())).toEqual([true, true]);
    expect(onboarding((await get()).json())).toEqual([true, true]);
    expect(onboarding((await stored()) as unknown as Settings)).toEqual([true, true]);
    expect(onboarding((await patch({ oauth: { auto_onboard_users: false } })).json())).toEqual([false, false]);
    expect(onboarding((await stored()) as unknown as Settings)).toEqual([false, false]);
    const both = await patch({ features: { self_service_onboarding: true }, oauth: { auto_onboard_users: true } });
    expect(onboarding(both.json())).toEqual([true, true]);
    const before = await t.backdoor.settingsText();
    const conflicting = await patch({
      features: { self_service_onboarding: false },
      oauth: { auto_onboard_users: true },
    });
    expect(conflicting.statusCode).toBe(400);
    expect(await t.backdoor.settingsText()).toBe(before);
    // A document written before the two were joined (only the older name acted) keeps auto-onboarding on.
    const current = JSON.parse(before!) as Record<string, Record<string, unknown>>;
    await t.backdoor.editSettings(
      JSON.stringify({
        ...current,
        features: { ...current.features, self_service_onboarding: false },
        oauth: { ...current.oauth, auto_onboard_users: true },
      }),
    );
    expect(onboarding((await get()).json())).toEqual([true, true]);
    expect(onboarding((await patch({ features: { self_service_onboarding: false } })).json())).toEqual([false, false]);
  });

  it('asks for a session first (401), then for the permission (403 with the specified message)', async () => {
    for (const [method, payload] of [
      ['GET', undefined],
      ['PATCH', { nonsense: true }],
    ] as const) {
      const res = await t.app.inject({ method, url: '/api/settings/', ...(payload ? { payload } : {}) });
      expect(res.statusCode).toBe(401);
      expect(res.json<{ error: string }>().error).toBe('Unauthorized');
    }
    const viewerPatch = await patch({ features: { metrics_collection: false } }, t.sessions.viewer);
    expect(viewerPatch.statusCode).toBe(403);
    expect(viewerPatch.json()).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      message: 'Insufficient permissions for settings:update in namespace graphdb-system',
      code: 'forbidden',
    });
    const viewerRead = await get(t.sessions.viewer);
    expect(viewerRead.json()).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      message: 'Insufficient permissions for settings:read in namespace graphdb-system',
      code: 'forbidden',
    });
    expect((await get(t.sessions.operator)).statusCode).toBe(200);
    expect((await patch({ features: { metrics_collection: false } }, t.sessions.operator)).statusCode).toBe(403);
    expect((await stored())?.features?.metrics_collection).not.toBe(false);
  });

  it('patches only the fields given and answers the whole document', async () => {
    const res = await patch({
      features: { multi_cluster_mode: true },
      retention: { metrics_retention_days: 14 },
      ui: { theme: 'dark' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const document = res.json<typeof DEFAULT_SETTINGS>();
    expect(document.features).toEqual({ ...DEFAULT_SETTINGS.features, multi_cluster_mode: true });
    expect(document.retention).toEqual({ audit_log_retention_days: 90, metrics_retention_days: 14 });
    expect(document.ui).toEqual({ theme: 'dark' });
    expect(settingsView((await stored()) as unknown as Settings)).toEqual(document);
    expect(await (await get()).json()).toEqual(document);
  });

  it('keeps write-only values in Secrets: stored, never shown, kept on a blank save, rotated on a new value', async () => {
    const first = await patch({
      alpha_oauth: { client_id: 'alpha-client', client_secret_secret_ref: 'alpha-oauth', client_secret: 's3cret-one' },
    });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.body).not.toContain('s3cret-one');
    expect(await t.backdoor.secret('alpha-oauth')).toEqual({ client_secret: 's3cret-one' });
    expect((await get()).body).not.toContain('s3cret-one');
    expect(JSON.stringify(await stored())).not.toContain('s3cret-one');
    expect(t.logs.text).not.toContain('s3cret-one');
    if (t.kube)
      expect(t.kube.get('secrets', 'graphdb-system', 'alpha-oauth')?.metadata.labels).toEqual({
        'app.kubernetes.io/managed-by': 'graphdb-admin-server',
        'app.kubernetes.io/component': 'settings-secret',
      });

    expect((await patch({ alpha_oauth: { client_secret: '' } })).statusCode).toBe(200);
    expect((await patch({ alpha_oauth: { client_secret: '   ' } })).statusCode).toBe(200);
    expect(await t.backdoor.secret('alpha-oauth')).toEqual({ client_secret: 's3cret-one' });

    expect((await patch({ alpha_oauth: { client_secret: 's3cret-two' } })).statusCode).toBe(200);
    expect(await t.backdoor.secret('alpha-oauth')).toEqual({ client_secret: 's3cret-two' });

    const renamed = await patch({
      alpha_oauth: { client_secret_secret_ref: 'alpha-oauth-v2', client_secret: 's3cret-three' },
    });
    expect(renamed.json<typeof DEFAULT_SETTINGS>().alpha_oauth.client_secret_secret_ref).toBe('alpha-oauth-v2');
    expect(await t.backdoor.secret('alpha-oauth-v2')).toEqual({ client_secret: 's3cret-three' });
    expect(await t.backdoor.secret('alpha-oauth')).toEqual({ client_secret: 's3cret-two' });

    expect(
      (
        await patch({
          alpha_workspace: {
            private_key_secret_ref: 'workspace-key',
            private_key: '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----',
          },
        })
      ).statusCode,
    ).toBe(200);
    expect((await t.backdoor.secret('workspace-key'))?.private_key).toContain('BEGIN PRIVATE KEY');
  });

  it('adds a write-only value to an existing Secret without touching its other keys', async () => {
    await patch({ beta_oauth: { client_secret_secret_ref: 'shared-secret', client_secret: 'beta-one' } });
    await patch({ alpha_workspace: { private_key_secret_ref: 'shared-secret', private_key: 'pem-text' } });
    expect(await t.backdoor.secret('shared-secret')).toEqual({ client_secret: 'beta-one', private_key: 'pem-text' });
  });

  it('refuses a write-only value with no Secret reference, writing nothing', async () => {
    const before = await t.backdoor.settingsText();
    const res = await patch({
      beta_oauth: { client_id: 'b', client_secret_secret_ref: '', client_secret: 'orphan-value' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'beta_oauth.client_secret_secret_ref is required to store beta_oauth.client_secret',
      code: 'invalid_request',
    });
    expect(await t.backdoor.settingsText()).toBe(before);
  });

  it('never writes the user store through a write-only setting (the review overwrote it), nor names it at all', async () => {
    const users = await t.backdoor.secret('graphdb-admin-users');
    const before = await t.backdoor.settingsText();
    const res = await patch({ alpha_oauth: { client_secret_secret_ref: 'graphdb-admin-users', client_secret: '[]' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(res.json<{ message: string }>().message).toContain('graphdb-admin-users');
    expect((await patch({ beta_oauth: { client_secret_secret_ref: 'graphdb-admin-users' } })).statusCode).toBe(400);
    expect(await t.backdoor.secret('graphdb-admin-users')).toEqual(users);
    expect(await t.backdoor.settingsText()).toBe(before);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email: ADMIN.email, password: ADMIN.password },
        })
      ).statusCode,
    ).toBe(200);
  });

  it('refuses to write an existing Secret it did not create for settings (400, nothing written), unless its name has the prefix', async () => {
    await t.backdoor.createForeignSecret('someone-elses', { token: 'keep-me' });
    const before = await t.backdoor.settingsText();
    // The first target is new (allowed), the second is not ours: neither Secret nor the document may change.
    const res = await patch({
      alpha_oauth: { client_secret_secret_ref: 'fresh-alpha-secret', client_secret: 'alpha-value' },
      beta_oauth: { client_secret_secret_ref: 'someone-elses', client_secret: 'overwritten' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message:
        'beta_oauth.client_secret cannot be stored in Secret someone-elses: it exists and was not created by this server for settings; name a new Secret, or a name starting with graphdb-settings-',
      code: 'invalid_request',
    });
    expect(await t.backdoor.secret('someone-elses')).toEqual({ token: 'keep-me' });
    expect(await t.backdoor.secret('fresh-alpha-secret')).toBeUndefined();
    expect(await t.backdoor.settingsText()).toBe(before);

    // An operator's Secret named with SETTINGS_SECRET_PREFIX may be written; its other keys stay.
    await t.backdoor.createForeignSecret('graphdb-settings-beta', { other: 'kept' });
    expect(
      (await patch({ beta_oauth: { client_secret_secret_ref: 'graphdb-settings-beta', client_secret: 'beta-value' } }))
        .statusCode,
    ).toBe(200);
    expect(await t.backdoor.secret('graphdb-settings-beta')).toEqual({ other: 'kept', client_secret: 'beta-value' });
  });

  it.each([
    [{ features: { oauth2_enabled: 'yes' } }, 'features.oauth2_enabled'],
    [{ features: { unknown_flag: true } }, 'unknown_flag'],
    [{ nonsense: {} }, 'nonsense'],
    [{ oauth: { allowed_domains: ['not a domain'] } }, 'allowed_domains'],
    [{ oauth: { allowed_domains: 'corp.example' } }, 'allowed_domains'],
    [{ oauth: { role_attribute_path: "contains(groups, 'x' &&" } }, 'role_attribute_path'],
    [{ alpha_oauth: { redirect_uri: 'not-a-uri' } }, 'redirect_uri'],
    [{ alpha_oauth: { redirect_uri: 'javascript:alert(1)' } }, 'redirect_uri'],
    [{ alpha_oauth: { client_secret_secret_ref: 'Bad_Name' } }, 'client_secret_secret_ref'],
    [{ alpha_workspace: { admin_email: 'not-an-email' } }, 'admin_email'],
    [{ metrics: { exporter_port: 70000 } }, 'exporter_port'],
    [{ metrics: { exporter_port: 0 } }, 'exporter_port'],
    [{ retention: { audit_log_retention_days: 1.5 } }, 'audit_log_retention_days'],
    [{ beta_oauth: { tenant_id: 'has spaces' } }, 'tenant_id'],
    [{ ui: 'dark' }, 'ui'],
    [[], 'body'],
  ])('refuses %j with 400 naming the field, writing nothing', async (body, field) => {
    const before = await t.backdoor.settingsText();
    const res = await patch(body);
    expect(res.statusCode).toBe(400);
    expect(res.json<{ message: string; error: string }>()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(res.json<{ message: string }>().message).toContain(field);
    expect(await t.backdoor.settingsText()).toBe(before);
  });

  it('bounds ui: 16 levels deep and 64 KiB serialized, counting what is already stored (400, nothing written)', async () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 4000; i++) deep = { d: deep };
    const before = await t.backdoor.settingsText();
    const tooDeep = await patch({ ui: { deep } });
    expect(tooDeep.statusCode).toBe(400);
    expect(tooDeep.json()).toMatchObject({
      statusCode: 400,
      error: 'Bad Request',
      message: expect.stringContaining('ui: must be at most 16 levels deep') as unknown,
      code: 'invalid_request',
    });
    expect(await t.backdoor.settingsText()).toBe(before);
    // The review's 4,000-level object made every later PATCH answer 500.
    expect((await patch({ ui: { theme: 'light' } })).statusCode).toBe(200);

    // ui itself is the first level.
    let fifteen: Record<string, unknown> = { leaf: true };
    for (let i = 1; i < 15; i++) fifteen = { d: fifteen };
    expect((await patch({ ui: { fifteen } })).statusCode).toBe(200);
    let sixteen: unknown = [1];
    for (let i = 1; i < 16; i++) sixteen = [sixteen];
    expect((await patch({ ui: { sixteen } })).statusCode).toBe(400);

    const huge = await patch({ ui: { huge: 'x'.repeat(70_000) } });
    expect(huge.statusCode).toBe(400);
    expect(huge.json<{ message: string }>().message).toContain('ui: must be at most 65536 bytes as JSON');
    const stored = await t.backdoor.settingsText();
    expect((await patch({ ui: { half: 'x'.repeat(40_000) } })).statusCode).toBe(200);
    const second = await patch({ ui: { otherHalf: 'y'.repeat(40_000) } });
    expect(second.statusCode).toBe(400);
    expect(second.json<{ message: string }>().message).toContain('ui: must be at most 65536 bytes as JSON');
    expect(await t.backdoor.settingsText()).not.toContain('yyyy');
    expect(stored).not.toContain('xxxx');
    expect((await patch({ ui: { half: null } })).statusCode).toBe(200);
  });

  it('refuses prototype pollution through the body', async () => {
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/',
      headers: { cookie: t.sessions.admin, 'content-type': 'application/json' },
      payload: '{"ui": {"__proto__": {"polluted": true}}}',
    });
    expect(res.statusCode).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps every one of 20 concurrent PATCHes of different fields', async () => {
    if (t.kube) t.kube.injectConflicts('configmaps', 3);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => patch({ ui: { [`concurrent_${i}`]: i } })));
    expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    const ui = (await stored())!.ui!;
    for (let i = 0; i < 20; i++) expect(ui[`concurrent_${i}`]).toBe(i);
  });

  it('picks up a hand-edited document without a restart, and ignores a broken one', async () => {
    const current = (await get()).json<typeof DEFAULT_SETTINGS>();
    await t.backdoor.editSettings(JSON.stringify({ ...current, metrics: { exporter_port: 9191 } }));
    expect((await get()).json<typeof DEFAULT_SETTINGS>().metrics.exporter_port).toBe(9191);
    await t.backdoor.editSettings('{"metrics": {"exporter_port": "not a port"}');
    const afterBroken = await get();
    expect(afterBroken.statusCode).toBe(200);
    expect(afterBroken.json<typeof DEFAULT_SETTINGS>().metrics.exporter_port).toBe(9191);
    expect(t.logs.text).toContain('ignoring invalid settings document');
    await t.backdoor.editSettings(JSON.stringify({ ...current, metrics: { exporter_port: 70000 } }));
    expect((await get()).json<typeof DEFAULT_SETTINGS>().metrics.exporter_port).toBe(9191);
    // A PATCH over a broken document starts from the last good settings.
    expect(
      (await patch({ metrics: { exporter_port: 9292 } })).json<typeof DEFAULT_SETTINGS>().metrics.exporter_port,
    ).toBe(9292);
    expect((await stored())!.metrics!.exporter_port).toBe(9292);
  });

  it('hides /api-docs while features.api_docs_enabled is false; /api-spec.json stays', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api-docs/' })).statusCode).toBe(200);
    await patch({ features: { api_docs_enabled: false } });
    expect((await t.app.inject({ method: 'GET', url: '/api-docs/' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/api-spec.json' })).statusCode).toBe(200);
    await patch({ features: { api_docs_enabled: true } });
    expect((await t.app.inject({ method: 'GET', url: '/api-docs/' })).statusCode).toBe(200);
  });
});

describe('settings against Kubernetes failures', () => {
  const t = useAdminApp('kubernetes');
  const patch = (payload: unknown) => t.as('admin').inject({ method: 'PATCH', url: '/api/settings/', payload });

  it('writes the Secret before the ConfigMap: when the Secret write is refused, the settings do not change', async () => {
    const before = await t.backdoor.settingsText();
    t.kube!.failRequests(
      { method: 'POST', pathIncludes: '/secrets' },
      403,
      'Forbidden',
      'secrets is forbidden: User "system:serviceaccount:graphdb-system:graphdb-admin-server" cannot create resource "secrets"',
    );
    const res = await patch({
      beta_oauth: { client_id: 'b', tenant_id: 't', client_secret_secret_ref: 'beta-new', client_secret: 'value' },
    });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      statusCode: 500,
      error: 'Internal Server Error',
      message:
        "The server's service account may not create secrets in namespace graphdb-system; grant it in the chart's Role",
      code: 'server_misconfigured',
    });
    expect(await t.backdoor.settingsText()).toBe(before);
  });

  it('answers 503 naming the API server when it cannot be reached', async () => {
    // Its own app: the test closes its API server.
    const unreachable = await startAdminTestApp('kubernetes');
    try {
      const cookie = (await sessionsForEveryRole(unreachable.app)).admin;
      await unreachable.kube!.close();
      const res = await unreachable.app.inject({
        method: 'PATCH',
        url: '/api/settings/',
        headers: { cookie },
        payload: { ui: { x: 1 } },
      });
      expect(res.statusCode).toBe(503);
      expect(res.json<{ message: string }>().message).toMatch(/^The Kubernetes API server cannot be reached/);
    } finally {
      await unreachable.close().catch(() => undefined);
    }
  });

  it('surfaces a 422 from the API server as 422', async () => {
    t.kube!.failRequests(
      { method: 'PUT', pathIncludes: '/configmaps/' },
      422,
      'Invalid',
      'ConfigMap "graphdb-admin-settings" is invalid: data: Too long',
    );
    await patch({ ui: { first: 1 } }).catch(() => undefined);
    const res = await patch({ ui: { second: 2 } });
    expect(res.statusCode).toBe(422);
    expect(res.json<{ message: string }>().message).toContain('is invalid');
  });
});
