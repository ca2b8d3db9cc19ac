// The chart's Grafana dashboard and alert rules (helm/graphdb-admin-server) ask only for metrics a running server
// exports: every metric each panel's query and each alert's expression selects is on the /metrics page of a real
// server process (histograms through their _bucket/_sum/_count series). `up` is Prometheus's own per target. The
// `helm test` pod's script runs against the same server, with the metrics credentials and with a wrong password.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/platform/net.js';
import { GrafanaDashboard, selectedMetrics } from '../support/grafana-dashboard.js';
import { runServerProcess } from '../support/server-process.js';
import { eventually } from '../support/wait.js';

const CHART = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../helm/graphdb-admin-server');
const PROMETHEUS_OWN = new Set(['up']);
const METRICS_AUTH = { METRICS_USERNAME: 'prometheus', METRICS_PASSWORD: 'scrape-password-1' };
const basic = `Basic ${Buffer.from(`${METRICS_AUTH.METRICS_USERNAME}:${METRICS_AUTH.METRICS_PASSWORD}`).toString('base64')}`;

/** The script of the chart's `helm test` pod (its `node -e` block holds no template directive). */
async function helmTestScript(): Promise<string> {
  const template = await readFile(path.join(CHART, 'templates/tests/test-connection.yaml'), 'utf8');
  const block = /- -e\n\s*- \|\n((?: {10}.*\n?)+)/.exec(template)?.[1];
  if (!block) throw new Error('no script in templates/tests/test-connection.yaml');
  expect(block).not.toContain('{{');
  return block.replace(/^ {10}/gm, '');
}

/** Every series name the page can hold: each family, and a histogram's or summary's derived series. */
function exportedNames(page: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of page.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name!}${suffix}`);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(`${name!}${suffix}`);
  }
  return names;
}

/** The alert expressions of the PrometheusRule template: the text between each `expr:` and its `for:`. */
async function ruleExpressions(): Promise<string[]> {
  const template = await readFile(path.join(CHART, 'templates/prometheusrule.yaml'), 'utf8');
  return [...template.matchAll(/expr:([\s\S]*?)\n\s*for:/g)].map((match) => match[1]!);
}

describe("the chart's dashboard, alerts and helm test", () => {
  it('select only metrics a running server exports; the helm test script passes against it', async () => {
    const dashboard = GrafanaDashboard.parse(
      JSON.parse(await readFile(path.join(CHART, 'dashboards/graphdb-server.json'), 'utf8')),
    );
    const rules = await ruleExpressions();
    expect(rules.length).toBe(9);

    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-chart-metrics-'));
    const port = await findFreePort();
    await mkdir(path.join(dataDir, 'admin'), { recursive: true });
    await writeFile(
      path.join(dataDir, 'admin', 'settings.json'),
      JSON.stringify({ features: { metrics_collection: true }, metrics: { exporter_port: port } }),
    );
    const server = await runServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...METRICS_AUTH });
    try {
      let page = '';
      await eventually(
        async () => {
          const res = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: basic } }).catch(
            () => undefined,
          );
          page = res?.ok ? await res.text() : '';
          return page.includes('graphdb_http_requests_total');
        },
        30_000,
        200,
      );
      const exported = exportedNames(page);
      expect(exported.has('graphdb_http_request_duration_seconds_bucket')).toBe(true);

      for (const panel of dashboard.panels)
        for (const target of panel.targets) {
          const metrics = selectedMetrics(target.expr);
          expect(metrics.length, `${panel.title}: ${target.expr}`).toBeGreaterThan(0);
          for (const metric of metrics)
            expect(PROMETHEUS_OWN.has(metric) || exported.has(metric), `${panel.title}: ${metric}`).toBe(true);
        }
      for (const expr of rules) {
        const metrics = selectedMetrics(expr);
        expect(metrics.length, expr).toBeGreaterThan(0);
        for (const metric of metrics) expect(PROMETHEUS_OWN.has(metric) || exported.has(metric), metric).toBe(true);
      }
      // The backup and expiry alerts and panels read the server's own gauges.
      for (const name of [
        'graphdb_backups',
        'graphdb_backup_last_failure_timestamp_seconds',
        'graphdb_service_account_token_next_expiry_timestamp_seconds',
      ]) {
        expect(exported.has(name), name).toBe(true);
        expect(rules.some((expr) => selectedMetrics(expr).includes(name)) || name === 'graphdb_backups', name).toBe(
          true,
        );
        expect(
          dashboard.panels.some((panel) => panel.targets.some((target) => selectedMetrics(target.expr).includes(name))),
          name,
        ).toBe(true);
      }
      // The check can fail: a name the server does not export is caught.
      expect(exported.has('graphdb_backup_failures_total')).toBe(false);

      // The `helm test` pod's script, run against this server as the pod would run it against the Service.
      const script = await helmTestScript();
      const podEnv = {
        PATH: process.env.PATH ?? '',
        API: server.baseUrl,
        METRICS: `http://127.0.0.1:${port}/metrics`,
      };
      const passed = await promisify(execFile)(process.execPath, ['-e', script], {
        env: { ...podEnv, ...METRICS_AUTH },
      });
      expect(passed.stdout).toContain('metrics: authenticated scrape ok, anonymous refused');
      const refused = await promisify(execFile)(process.execPath, ['-e', script], {
        env: { ...podEnv, ...METRICS_AUTH, METRICS_PASSWORD: 'not-the-password' },
      }).then(
        () => 'passed',
        (error: { stderr: string }) => error.stderr,
      );
      expect(refused).toContain('FAILED: an authenticated scrape answered 401');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 60_000);
});
