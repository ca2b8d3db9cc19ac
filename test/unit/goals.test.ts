// The performance goals judged from a bench run (bench/lib/goals.ts): which checks a row meets, and what is printed.
import { describe, expect, it } from 'vitest';
import { describeVerdict, judgeGoal } from '../../bench/lib/goals.js';
import type { InterleavedShares } from '../../bench/lib/stats.js';

const shares = (median: number, p99Ratio?: number, errors = 0): InterleavedShares => ({
  rounds: 5,
  errors,
  limit: p99Ratio === undefined ? 'floor' : 'composed',
  share: { median, min: median - 0.05, max: median + 0.05 },
  ...(p99Ratio === undefined ? {} : { p99Ratio: { median: p99Ratio, min: p99Ratio, max: p99Ratio } }),
});

describe('the performance goals', () => {
  it('meets a query goal only when both the share and the p99 are within it', () => {
    const goal = { limit: 'composed', minShare: 0.8, maxP99Ratio: 3 } as const;
    expect(judgeGoal('query', goal, shares(0.82, 2.7), 9000).met).toBe(true);
    const slowTail = judgeGoal('query', goal, shares(0.82, 3.2), 9000);
    expect(slowTail.met).toBe(false);
    expect(slowTail.checks.map((check) => check.met)).toEqual([true, false]);
    expect(describeVerdict(slowTail)).toBe(
      "query: NOT MET — ≥ 80% of the composed limit: 82% (77%–87%); p99 ≤ 3x the raw client's: 3.20x (not met)",
    );
    expect(judgeGoal('query', goal, shares(0.79, 2), 9000).met).toBe(false);
  });

  it('judges an admin read by its rate and its share of the floor', () => {
    const goal = { limit: 'floor', minShare: 0.9, minRequestsPerSecond: 10_000 } as const;
    const verdict = judgeGoal('settings', goal, shares(0.64), 18_000);
    expect(verdict.met).toBe(false);
    expect(describeVerdict(verdict)).toBe(
      'settings: NOT MET — ≥ 10,000 req/s: 18000 req/s; ≥ 90% of the HTTP floor: 64% (59%–69%) (not met)',
    );
    expect(judgeGoal('settings', goal, shares(0.91), 18_000).met).toBe(true);
    expect(judgeGoal('settings', goal, shares(0.91), 9_000).met).toBe(false);
  });

  it('does not judge a goal met from rounds whose requests failed', () => {
    const verdict = judgeGoal('status', { limit: 'composed', minShare: 0.9 }, shares(0.95, 1, 12), 20_000);
    expect(verdict.met).toBe(false);
    expect(describeVerdict(verdict)).toBe(
      'status: NOT MET — no failed requests: 12 failed (not met); ≥ 90% of the composed limit: 95% (90%–100%)',
    );
  });

  it('says a share was not judged when the run measured no interleaved rounds', () => {
    const verdict = judgeGoal('status', { limit: 'composed', minShare: 0.9 }, undefined, 20_000);
    expect(verdict.met).toBeUndefined();
    expect(describeVerdict(verdict)).toBe('status: not judged (GOAL_ROUNDS=0)');
  });
});
