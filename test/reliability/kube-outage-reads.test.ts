// The Kubernetes API server fails every read: the admin API keeps answering reads from the last good copies of
// the settings document and the user list (sessions keep working), while a write is refused with 503.
import { beforeAll, describe, expect, it } from 'vitest';
import { useAdminApp } from '../support/admin.js';

const t = useAdminApp({ adapter: 'kubernetes', roles: ['admin'] });
let cookie: string;
beforeAll(async () => {
  cookie = t.sessions.admin;
  const saved = await t.app.inject({
    method: 'PATCH',
    url: '/api/settings/',
    headers: { cookie },
    payload: { oauth: { allowed_domains: ['corp.example'] } },
  });
  expect(saved.statusCode, saved.body).toBe(200);
});

describe('Kubernetes API down', () => {
  it('serves settings and sessions from the last good copies and refuses writes with 503', async () => {
    for (const path of ['/configmaps/', '/secrets/'])
      t.kube!.failRequests({ pathIncludes: path }, 503, 'ServiceUnavailable', 'etcdserver: request timed out');
    const reads = t.kube!.requests.length;

    const settings = await t.app.inject({ method: 'GET', url: '/api/settings/', headers: { cookie } });
    expect(settings.statusCode, settings.body).toBe(200);
    expect(settings.json<{ oauth: { allowed_domains: string[] } }>().oauth.allowed_domains).toEqual(['corp.example']);
    const session = await t.app.inject({ method: 'GET', url: '/api/auth/validate', headers: { cookie } });
    expect(session.statusCode, session.body).toBe(200);
    // The copies are the fallback, not a way around the store: it was asked first (SETTINGS_REFRESH_MS is 0 here).
    expect(t.kube!.requests.length).toBeGreaterThan(reads);

    const write = await t.app.inject({
      method: 'PATCH',
      url: '/api/settings/',
      headers: { cookie },
      payload: { oauth: { allowed_domains: ['other.example'] } },
    });
    expect(write.statusCode).toBe(503);
    expect(write.json<{ statusCode: number; error: string; message: string }>()).toMatchObject({
      statusCode: 503,
      error: 'Service Unavailable',
      code: 'unavailable',
    });
    expect(write.json<{ message: string }>().message.length).toBeGreaterThan(10);
    // An outage the message explains is a warning, not an error with a stack trace.
    expect(t.logs.lines.filter((line) => Number(line.level) >= 50).map((line) => line.msg)).toEqual([]);
    expect(t.logs.lines.find((line) => line.msg === 'request failed: a dependency is unavailable')).toMatchObject({
      level: 40,
      statusCode: 503,
    });
    expect(await t.backdoor.settingsText()).toContain('corp.example');
    expect(await t.backdoor.settingsText()).not.toContain('other.example');
  });
});
