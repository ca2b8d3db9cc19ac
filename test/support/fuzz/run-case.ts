// Runs one fuzz case against the live app and checks every invariant; keeps the counts the summary line reports.
import type { Api } from './operations.js';
import { guard, KEPT_GRAPH, KUBE_RESOURCES, type FuzzFixture } from './fixture.js';
import { KNOWN_ISSUES } from './known-issues.js';
import { repairAdmin, repairDatabase, type Baseline } from './repair.js';
import { describeRequest, toHttpRequest, violation, type FuzzRequest } from './requests.js';
import { checkResponse } from './response-checks.js';
import { adminState, databaseState, firstDifference } from './state-snapshot.js';

export interface FuzzStats {
  cases: Record<Api, number>;
  rejected: number;
  accepted: number;
  /** Cases whose request violates the declared schemas or security (the server must refuse them). */
  violating: number;
  variants: Record<string, number>;
  statuses: Record<string, number>;
  /** Cases that hit a known, reported issue (see known-issues.ts), by issue id. */
  known: Record<string, number>;
  /** Operations whose property failed, with fast-check's report. */
  failures: { operation: string; report: string }[];
}

export function emptyStats(): FuzzStats {
  return {
    cases: { browser: 0, admin: 0, ops: 0 },
    rejected: 0,
    accepted: 0,
    violating: 0,
    variants: {},
    statuses: {},
    known: {},
    failures: [],
  };
}

export interface CaseRunner {
  run(request: FuzzRequest): Promise<void>;
  stats: FuzzStats;
}

const READS_THAT_WRITE = new Set(['runQuery', 'profileQuery']);

async function snapshot(fixture: FuzzFixture): Promise<Record<string, unknown>> {
  return {
    database: await databaseState(fixture.redis, KEPT_GRAPH),
    admin: adminState(fixture.t.kube!, KUBE_RESOURCES),
  };
}

export async function createCaseRunner(fixture: FuzzFixture, baseline: Baseline): Promise<CaseRunner> {
  const stats = emptyStats();
  let before = await snapshot(fixture);
  let logIndex = fixture.t.logs.lines.length;
  const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).length;

  async function run(fuzzed: FuzzRequest): Promise<void> {
    const request = guard(fixture, fuzzed);
    const http = toHttpRequest(request, fixture.credentials);
    const res = await fixture.http.send(http);
    const verdict = checkResponse(request, http.url, res);
    const problems = [...verdict.problems];

    stats.cases[request.op.api] += 1;
    stats.variants[request.variant] = (stats.variants[request.variant] ?? 0) + 1;
    stats.statuses[String(res.status)] = (stats.statuses[String(res.status)] ?? 0) + 1;
    if (violation(request)) stats.violating += 1;
    if (verdict.rejected) stats.rejected += 1;
    else stats.accepted += 1;

    let after = await snapshot(fixture);
    const changed = firstDifference(before, after);
    const mayWrite = request.op.method !== 'GET' || READS_THAT_WRITE.has(request.op.id);
    if (changed && verdict.rejected) problems.push(`rejected (${res.status}) but changed stored state: ${changed}`);
    else if (changed && !mayWrite) problems.push(`a read (${res.status}) changed stored state: ${changed}`);
    if (changed) {
      if (request.op.api === 'browser') await repairDatabase(fixture, baseline);
      else if (request.op.api === 'admin') await repairAdmin(fixture, baseline);
      after = await snapshot(fixture);
    }
    before = after;

    const errors = fixture.t.logs.lines
      .slice(logIndex)
      .filter((line) => typeof line.level === 'number' && line.level >= 50);
    logIndex = fixture.t.logs.lines.length;
    for (const line of errors) problems.push(`server logged an error: ${JSON.stringify(line).slice(0, 400)}`);
    if (
      ({} as Record<string, unknown>).polluted !== undefined ||
      Object.getOwnPropertyNames(Object.prototype).length !== prototypeKeys
    )
      problems.push('Object.prototype was polluted');

    const unknown = problems.filter((problem) => {
      const issue = KNOWN_ISSUES.find((known) => known.matches(request, res.status, problem));
      if (issue) stats.known[issue.id] = (stats.known[issue.id] ?? 0) + 1;
      return !issue;
    });
    if (unknown.length > 0)
      throw new Error(
        `${describeRequest(request)}\n  -> ${res.status} ${res.body.slice(0, 300)}\n  ${unknown.join('\n  ')}`,
      );
  }

  return { run, stats };
}

export function summaryLine(operations: number, stats: FuzzStats): string {
  const total = stats.cases.browser + stats.cases.admin + stats.cases.ops;
  const known = Object.entries(stats.known).map(([id, count]) => `${id} x${count}`);
  return `fuzz: ${operations} operations, ${total} cases (browser ${stats.cases.browser}, admin ${stats.cases.admin}, ops ${stats.cases.ops}; ${stats.violating} schema-violating; ${stats.rejected} rejected, ${stats.accepted} accepted), ${stats.failures.length} failures${known.length > 0 ? `, known issues: ${known.join(', ')}` : ''}`;
}
