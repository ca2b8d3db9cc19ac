import { describe, expect, it } from 'vitest';
import { startAdminTestApp } from '../support/admin.js';
import { startTestApp } from '../support/app.js';
import { useBrowserApp } from '../support/browser.js';

const t = useBrowserApp({ roles: [] });

describe('probes', () => {
  it('/healthz answers while the process is up', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('/readyz is ready while the token store answers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ready', checks: { tokenStore: { ok: true }, settings: { ok: true } } });
  });

  it('/readyz includes extra checks and turns 503 when one fails, without revealing why', async () => {
    const withKube = await startTestApp({
      falkordb: t.falkordb,
      deps: {
        readinessChecks: [
          { name: 'kubernetes', check: () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.1:443')) },
        ],
      },
    });
    try {
      const res = await withKube.app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        status: 'not ready',
        checks: { tokenStore: { ok: true }, settings: { ok: true }, kubernetes: { ok: false } },
      });
      expect(res.body).not.toContain('10.0.0.1');
      expect(withKube.logs.text).toContain('10.0.0.1');
    } finally {
      await withKube.close();
    }
  });

  it('/readyz turns 503 when the token store stops answering', async () => {
    await t.falkordb.stop();
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 'not ready', checks: { tokenStore: { ok: false } } });
    const live = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(live.statusCode).toBe(200);
  });
});

describe('readiness and settings', () => {
  it('stays not ready until the settings store has answered once', async () => {
    const t2 = await startAdminTestApp('kubernetes');
    try {
      t2.kube!.failRequests(
        { method: 'GET', pathIncludes: '/configmaps/graphdb-admin-settings' },
        500,
        'InternalError',
        'etcd is down',
      );
      const res = await t2.app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(503);
      expect(res.json<{ checks: Record<string, { ok: boolean }> }>().checks.settings).toEqual({ ok: false });
    } finally {
      await t2.close();
    }
  });
});
