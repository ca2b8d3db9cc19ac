// The chart's Grafana dashboard and alert rules (helm/graphdb-admin-server) ask only for metrics a running server
// exports: every metric each panel's query and each alert's expression selects is on the /metrics page of a real
// server process (histograms through their _bucket/_sum/_count series). `up` is Prometheus's own per target.
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/platform/net.js';
import { GrafanaDashboard, selectedMetrics } from '../support/grafana-dashboard.js';
import { runServerProcess } from '../support/server-process.js';
import { eventually } from '../support/wait.js';

const CHART = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../helm/graphdb-admin-server');
const PROMETHEUS_OWN = new Set(['up']);

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

describe("the chart's dashboard and alerts", () => {
  it('select only metrics a running server exports', async () => {
    const dashboard = GrafanaDashboard.parse(
      JSON.parse(await readFile(path.join(CHART, 'dashboards/graphdb-server.json'), 'utf8')),
    );
    const rules = await ruleExpressions();
    expect(rules.length).toBe(7);

    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-chart-metrics-'));
    const port = await findFreePort();
    await mkdir(path.join(dataDir, 'admin'), { recursive: true });
    await writeFile(
      path.join(dataDir, 'admin', 'settings.json'),
      JSON.stringify({ features: { metrics_collection: true }, metrics: { exporter_port: port } }),
    );
    const server = await runServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    try {
      let page = '';
      const scraped = await eventually(
        async () => {
          const res = await fetch(`http://127.0.0.1:${port}/metrics`).catch(() => undefined);
          page = res?.ok ? await res.text() : '';
          return page.includes('graphdb_http_requests_total');
        },
        30_000,
        200,
      );
      expect(scraped).toBe(true);
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
      // The check can fail: a name the server does not export is caught.
      expect(exported.has('graphdb_backup_failures_total')).toBe(false);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 60_000);
});
