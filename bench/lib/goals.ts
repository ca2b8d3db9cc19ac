// The performance goals, judged from a run: each goal row's interleaved share (stats.ts), its p99 against the raw
// client's and its rate, each check printed with what was measured, so a run says by itself which goals it met.
import { describeShareSpread, type InterleavedShares } from './stats.js';

export interface Goal {
  /** What the share is of: the composed limit (floor with the raw client) or the HTTP floor alone. */
  limit: 'composed' | 'floor';
  minShare: number;
  /** The route's p99 at most this many times the raw client's (composed limits only). */
  maxP99Ratio?: number;
  minRequestsPerSecond?: number;
}

export interface GoalCheck {
  what: string;
  measured: string;
  met: boolean;
}

export interface GoalVerdict {
  name: string;
  /** Undefined when the run measured no interleaved rounds (GOAL_ROUNDS=0): nothing to judge the share by. */
  met: boolean | undefined;
  checks: GoalCheck[];
}

const percent = (value: number) => `${(value * 100).toFixed(0)}%`;

export function judgeGoal(
  name: string,
  goal: Goal,
  interleaved: InterleavedShares | undefined,
  requestsPerSecond: number,
): GoalVerdict {
  const checks: GoalCheck[] = [];
  if (goal.minRequestsPerSecond !== undefined)
    checks.push({
      what: `≥ ${goal.minRequestsPerSecond.toLocaleString('en')} req/s`,
      measured: `${requestsPerSecond.toFixed(0)} req/s`,
      met: requestsPerSecond >= goal.minRequestsPerSecond,
    });
  if (!interleaved) return { name, met: undefined, checks };
  if (interleaved.errors > 0)
    checks.push({ what: 'no failed requests', measured: `${interleaved.errors} failed`, met: false });
  checks.push({
    what: `≥ ${percent(goal.minShare)} of the ${goal.limit === 'composed' ? 'composed limit' : 'HTTP floor'}`,
    measured: describeShareSpread(interleaved.share),
    met: interleaved.share.median >= goal.minShare,
  });
  if (goal.maxP99Ratio !== undefined) {
    const ratio = interleaved.p99Ratio;
    checks.push({
      what: `p99 ≤ ${goal.maxP99Ratio}x the raw client's`,
      measured: ratio ? `${ratio.median.toFixed(2)}x` : 'not measured',
      met: ratio !== undefined && ratio.median <= goal.maxP99Ratio,
    });
  }
  return { name, met: checks.every((check) => check.met), checks };
}

export function describeVerdict(verdict: GoalVerdict): string {
  const status = verdict.met === undefined ? 'not judged (GOAL_ROUNDS=0)' : verdict.met ? 'met' : 'NOT MET';
  const checks = verdict.checks
    .map((check) => `${check.what}: ${check.measured}${check.met ? '' : ' (not met)'}`)
    .join('; ');
  return `${verdict.name}: ${status}${checks ? ` — ${checks}` : ''}`;
}
