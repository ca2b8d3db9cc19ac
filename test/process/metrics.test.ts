import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/platform/net.js';
import { runServerProcess } from '../support/server-process.js';
import { eventually, sleep } from '../support/wait.js';

async function scrape(port: number): Promise<string | undefined> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    return res.ok ? await res.text() : undefined;
  } catch {
    return undefined;
  }
}

/** Probes until `accept` takes the value or `timeoutMs` passes; returns the last value probed. */
async function probeUntil<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  let value!: T;
  await eventually(async () => accept((value = await probe())), timeoutMs, 100);
  return value;
}

describe('the Prometheus exporter', () => {
  it('serves metrics on metrics.exporter_port while metrics_collection is on, following settings changes', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-metrics-'));
    const firstPort = await findFreePort();
    await mkdir(path.join(dataDir, 'admin'), { recursive: true });
    await writeFile(
      path.join(dataDir, 'admin', 'settings.json'),
      JSON.stringify({ features: { metrics_collection: true }, metrics: { exporter_port: firstPort } }),
    );
    const server = await runServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'info', SETTINGS_REFRESH_MS: '200' });
    try {
      await server.waitForLine((l) => typeof l.msg === 'string' && l.msg.startsWith('Server listening at'));
      await fetch(`${server.baseUrl}/healthz`);
      await fetch(`${server.baseUrl}/api/graph/x/y/z/w`);
      const text = await probeUntil(
        () => scrape(firstPort),
        (t) => t !== undefined && t.includes('route="/healthz"'),
      );
      expect(text).toMatch(/^graphdb_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+$/m);
      expect(text).toMatch(/^graphdb_http_requests_total\{method="GET",route="unmatched",status="404"\} 1$/m);
      expect(text).toMatch(
        /^graphdb_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/healthz",status="200"\} \d+$/m,
      );
      expect(text).toContain('graphdb_falkordb_pool_connections');
      expect(text).toContain('graphdb_token_store_duration_seconds');
      expect(text).toContain('process_cpu_user_seconds_total');

      // A settings change moves the exporter; turning metrics_collection off stops it.
      const password = (await readFile(path.join(dataDir, 'initial-admin-password'), 'utf8')).trim();
      const login = await fetch(`${server.baseUrl}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@localhost', password }),
      });
      const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
      const secondPort = await findFreePort();
      const patch = (body: unknown) =>
        fetch(`${server.baseUrl}/api/settings/`, {
          method: 'PATCH',
          headers: { cookie, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await patch({ metrics: { exporter_port: secondPort } })).status).toBe(200);
      expect(
        await probeUntil(
          () => scrape(secondPort),
          (t) => t !== undefined,
        ),
      ).toContain('graphdb_http_requests_total');
      expect(
        await probeUntil(
          () => scrape(firstPort),
          (t) => t === undefined,
        ),
      ).toBeUndefined();
      expect((await patch({ features: { metrics_collection: false } })).status).toBe(200);
      expect(
        await probeUntil(
          () => scrape(secondPort),
          (t) => t === undefined,
        ),
      ).toBeUndefined();
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('listens on HOST only, and asks for METRICS_USERNAME/METRICS_PASSWORD with Basic authentication when they are set', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-metrics-auth-'));
    const port = await findFreePort();
    await mkdir(path.join(dataDir, 'admin'), { recursive: true });
    await writeFile(
      path.join(dataDir, 'admin', 'settings.json'),
      JSON.stringify({ features: { metrics_collection: true }, metrics: { exporter_port: port } }),
    );
    const server = await runServerProcess({
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      METRICS_USERNAME: 'prometheus',
      METRICS_PASSWORD: 'scrape-password-1',
    });
    const basic = (credentials: string) => ({ authorization: `Basic ${Buffer.from(credentials).toString('base64')}` });
    const status = async (host: string, headers: Record<string, string> = {}) => {
      try {
        const res = await fetch(`http://${host}:${port}/metrics`, { headers });
        return { status: res.status, challenge: res.headers.get('www-authenticate'), text: await res.text() };
      } catch {
        return { status: 'unreachable' as const, challenge: null, text: '' };
      }
    };
    try {
      const listening = await server.waitForLine(
        (l) => typeof l.msg === 'string' && l.msg.startsWith('metrics exporter listening on'),
      );
      // HOST is 127.0.0.1: another local address (standing in for the pod's network address) reaches nothing.
      expect((await status('127.0.0.8', basic('prometheus:scrape-password-1'))).status).toBe('unreachable');
      expect(listening.msg).toBe(`metrics exporter listening on 127.0.0.1:${port} (basic authentication)`);

      for (const headers of [
        {},
        basic('prometheus:wrong-password'),
        basic('someone:scrape-password-1'),
        basic('prometheus'),
        { authorization: 'Bearer scrape-password-1' },
      ]) {
        const refused = await status('127.0.0.1', headers);
        expect(refused.status, JSON.stringify(headers)).toBe(401);
        expect(refused.challenge).toBe('Basic realm="metrics", charset="UTF-8"');
        expect(refused.text).not.toContain('graphdb_');
      }
      const scraped = await status('127.0.0.1', basic('prometheus:scrape-password-1'));
      expect(scraped.status).toBe(200);
      expect(scraped.text).toContain('graphdb_http_requests_total');
      expect(JSON.stringify(server.lines) + server.stderr()).not.toContain('scrape-password-1');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
  it('on a port another instance holds, says so once in a plain line and exports on a free port instead', async () => {
    const port = await findFreePort();
    const start = async (prefix: string) => {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), prefix));
      await mkdir(path.join(dataDir, 'admin'), { recursive: true });
      await writeFile(
        path.join(dataDir, 'admin', 'settings.json'),
        JSON.stringify({ features: { metrics_collection: true }, metrics: { exporter_port: port } }),
      );
      return runServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'info', SETTINGS_REFRESH_MS: '200' });
    };
    const first = await start('gdb-metrics-first-');
    let second: Awaited<ReturnType<typeof start>> | undefined;
    try {
      await first.waitForLine((l) => l.msg === `metrics exporter listening on 127.0.0.1:${port}`);
      second = await start('gdb-metrics-second-');
      const moved = await second.waitForLine((l) => typeof l.msg === 'string' && l.msg.startsWith('metrics exporter:'));
      const fallbackPort = moved.fallbackPort as number;
      expect(moved.msg).toBe(
        `metrics exporter: 127.0.0.1:${port} is in use by another program (another local instance?), so this server's metrics are on 127.0.0.1:${fallbackPort} instead`,
      );
      expect(moved.level).toBe(40);
      expect(moved.err).toBeUndefined();
      expect(await scrape(fallbackPort)).toContain('graphdb_http_requests_total');
      // Settings refreshes (every 200 ms here) do not repeat it, and nothing is logged as an error.
      await second.waitForLine((l) => typeof l.msg === 'string' && l.msg.startsWith('Server listening at'));
      await sleep(1000); // several refreshes: the point is that time passes
      expect(second.lines.filter((l) => String(l.msg).startsWith('metrics exporter')).length).toBe(2);
      expect(second.lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
    } finally {
      for (const server of [first, second]) {
        server?.child.kill('SIGTERM');
        await server?.exited;
      }
    }
  }, 90_000);
});
