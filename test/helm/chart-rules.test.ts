// scripts/check-chart-rules.sh, which `npm test` runs on the chart's rendered alert rules: `promtool check rules` when
// promtool is at hand, else scripts/check-rules-structure.mjs (structure, and each expression read by Prometheus'
// PromQL grammar). Both must pass the chart's rules, refuse broken ones, and say which of them ran.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CACHED_PROMTOOL = path.join(os.homedir(), '.cache/graphdb-server/bin/promtool-v0.316.0');
const PROMTOOL = process.env.PROMTOOL_BIN ?? CACHED_PROMTOOL;

interface Outcome {
  code: number;
  out: string;
}

async function check(args: string[], env: Record<string, string>): Promise<Outcome> {
  return outcomeOf(
    promisify(execFile)('sh', ['scripts/check-chart-rules.sh', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    }),
  );
}

/** The structural checker alone, as the script runs it. */
async function structure(file: string): Promise<Outcome> {
  return outcomeOf(promisify(execFile)(process.execPath, ['scripts/check-rules-structure.mjs', file], { cwd: ROOT }));
}

async function outcomeOf(run: Promise<{ stdout: string; stderr: string }>): Promise<Outcome> {
  return run.then(
    ({ stdout, stderr }) => ({ code: 0, out: stdout + stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      out: error.stdout + error.stderr,
    }),
  );
}

async function rulesFile(rules: unknown[], groups: unknown[] = []): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gdb-rules-'));
  const file = path.join(dir, 'rules.yaml');
  // JSON is YAML.
  await writeFile(file, JSON.stringify({ groups: [{ name: 'g', rules }, ...groups] }));
  return file;
}

const good = { alert: 'Good', expr: 'sum(up{job="x"}) == 0', for: '5m', labels: { severity: 'warning' } };

describe("the chart's rules check", () => {
  it('without promtool: checks structure and PromQL syntax, says so, passes the chart and refuses broken rules', async () => {
    const fallback = { PROMTOOL_BIN: '/nonexistent/promtool' };
    const chart = await check([], fallback);
    expect(chart.out).toContain('promtool not at hand');
    expect(chart.out).toContain('the structural check refuses a broken expression');
    expect(chart.out).toMatch(/SUCCESS: 9 rules found \(structure and PromQL syntax\)/);
    expect(chart.code, chart.out).toBe(0);

    const broken: [unknown, string][] = [
      [{ ...good, expr: 'sum(rate(x[5m])' }, 'expr does not parse as PromQL'],
      [{ ...good, expr: 'up{job=}' }, 'expr does not parse as PromQL'],
      [{ ...good, for: '5 minutes' }, 'for "5 minutes" is not a duration'],
      [{ ...good, record: 'job:up:sum' }, 'needs exactly one of alert and record'],
      [{ ...good, severity: 'page' }, 'field severity is not allowed'],
      [{ ...good, labels: { 'bad-label': 'x' } }, 'labels name bad-label is not a label name'],
      [{ record: 'not a metric', expr: 'up' }, 'the record name is not a metric name'],
      [{ alert: 'NoExpr' }, 'needs an expr'],
    ];
    // Through the script once, then each kind of problem through the checker it runs (one process each).
    const refused = await check([await rulesFile([good, { ...good, expr: 'sum(rate(x[5m])' }])], fallback);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain('expr does not parse as PromQL');
    for (const [rule, problem] of broken) {
      const outcome = await structure(await rulesFile([good, rule]));
      expect(outcome.code, JSON.stringify(rule)).toBe(1);
      expect(outcome.out, JSON.stringify(rule)).toContain(problem);
    }
    const twice = await structure(await rulesFile([good], [{ name: 'g', rules: [good] }]));
    expect(twice.code).toBe(1);
    expect(twice.out).toContain('group g: the name is used by another group');
    expect((await structure(await rulesFile([good]))).code).toBe(0);
  }, 120_000);

  it('with promtool (cached on the CI machine): runs promtool check rules, says so, and promtool refuses broken rules', async () => {
    const chart = await check([], { PROMTOOL_BIN: PROMTOOL });
    expect(chart.code, chart.out).toBe(0);
    if (!existsSync(PROMTOOL)) {
      // Not built on this machine (`sh scripts/check-chart-rules.sh --build` builds it): the script must say that the
      // structural check ran instead, never pass silently.
      expect(chart.out).toContain('promtool not at hand');
      return;
    }
    expect(chart.out).toContain(`promtool check rules (${PROMTOOL})`);
    expect(chart.out).toMatch(/promtool refuses a broken expression: .*unclosed left parenthesis/);
    expect(chart.out).toContain('SUCCESS: 9 rules found');

    const syntax = await check([await rulesFile([good, { ...good, alert: 'Bad', expr: 'sum(rate(x[5m])' }])], {
      PROMTOOL_BIN: PROMTOOL,
    });
    expect(syntax.code).not.toBe(0);
    expect(syntax.out).toContain('could not parse expression');
    // What only promtool sees: rate() of an instant vector parses, but is the wrong type.
    const typed = await rulesFile([
      { ...good, alert: 'Typed', expr: 'rate(graphdb_http_requests_total{job="x"}) > 0' },
    ]);
    const refused = await check([typed], { PROMTOOL_BIN: PROMTOOL });
    expect(refused.code).not.toBe(0);
    expect(refused.out).toMatch(/expected type range vector/);
    expect((await structure(typed)).code).toBe(0);
  }, 120_000);
});
