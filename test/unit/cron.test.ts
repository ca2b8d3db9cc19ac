// Five-field cron expressions and their next run (UTC), and retention durations.
import { describe, expect, it } from 'vitest';
import { cronProblem, nextRun, parseCron, retentionMs } from '../../src/lib/cron.js';

const at = (iso: string) => Date.parse(iso);
const next = (expression: string, after: string) => {
  const ms = nextRun(parseCron(expression), at(after));
  return ms === undefined ? undefined : new Date(ms).toISOString();
};

describe('cron expressions', () => {
  it('finds the next matching minute, strictly after the given time', () => {
    expect(next('0 3 * * *', '2026-03-01T12:00:00Z')).toBe('2026-03-02T03:00:00.000Z');
    expect(next('0 3 * * *', '2026-03-02T03:00:00Z')).toBe('2026-03-03T03:00:00.000Z');
    expect(next('*/15 * * * *', '2026-03-01T12:07:30Z')).toBe('2026-03-01T12:15:00.000Z');
    expect(next('30 1 * * 0', '2026-03-02T00:00:00Z')).toBe('2026-03-08T01:30:00.000Z');
    expect(next('0 0 1 jan *', '2026-03-01T00:00:00Z')).toBe('2027-01-01T00:00:00.000Z');
    expect(next('0 12 * * mon-fri', '2026-03-07T00:00:00Z')).toBe('2026-03-09T12:00:00.000Z');
    expect(next('@daily', '2026-03-01T00:00:00Z')).toBe('2026-03-02T00:00:00.000Z');
    expect(next('0 0 29 2 *', '2026-03-01T00:00:00Z')).toBe('2028-02-29T00:00:00.000Z');
  });

  it('fires on either day when both day fields are restricted, and takes 7 for Sunday', () => {
    // The 15th (a Sunday in March 2026) or any Monday.
    expect(next('0 0 15 * 1', '2026-03-10T00:00:00Z')).toBe('2026-03-15T00:00:00.000Z');
    expect(next('0 0 15 * 1', '2026-03-15T00:00:00Z')).toBe('2026-03-16T00:00:00.000Z');
    expect(next('0 0 * * 7', '2026-03-10T00:00:00Z')).toBe('2026-03-15T00:00:00.000Z');
  });

  it('reads a day field holding * or ? (without a step above 1) as unrestricted, as Kubernetes does', () => {
    // Unrestricted: the day must match both fields, here a Monday (2026-03-16), not the odd Wednesday 2026-03-11.
    expect(next('0 0 ? * 1', '2026-03-10T00:00:00Z')).toBe('2026-03-16T00:00:00.000Z');
    expect(next('0 0 */1 * 1', '2026-03-10T00:00:00Z')).toBe('2026-03-16T00:00:00.000Z');
    expect(next('0 0 *,15 * 1', '2026-03-10T00:00:00Z')).toBe('2026-03-16T00:00:00.000Z');
    expect(next('0 0 15 * ?', '2026-03-10T00:00:00Z')).toBe('2026-03-15T00:00:00.000Z');
    // A step above 1 restricts: odd days or Mondays, and the 15th or Monday, Wednesday or Friday, either fires.
    expect(next('0 0 */2 * 1', '2026-03-10T00:00:00Z')).toBe('2026-03-11T00:00:00.000Z');
    expect(next('0 0 15 * 1-5/2', '2026-03-10T00:00:00Z')).toBe('2026-03-11T00:00:00.000Z');
  });

  it('says what is wrong with an expression', () => {
    expect(cronProblem('0 3 * * *')).toBeUndefined();
    expect(cronProblem('0 3 * *')).toMatch(/5 fields/);
    expect(cronProblem('61 * * * *')).toMatch(/^minute: "61" is outside 0-59/);
    expect(cronProblem('0 25 * * *')).toMatch(/^hour/);
    expect(cronProblem('0 0 0 * *')).toMatch(/^day of month/);
    expect(cronProblem('*/0 * * * *')).toMatch(/step/);
    expect(cronProblem('a * * * *')).toBe('minute: "a" is not a number');
    // What Kubernetes' parser refuses and JavaScript parsers accept (docs/decisions/cron-expressions.md).
    expect(cronProblem('0 0 L * *')).toBe('day of month: "L" is not a number');
    expect(cronProblem('0 0 * * 1#2')).toBe('day of week: "1#2" is not a number');
    expect(cronProblem('0 0 0 * * *')).toMatch(/5 fields/);
    expect(cronProblem('5-1 * * * *')).toMatch(/inverted/);
    // A date that never comes parses, and has no next run.
    expect(nextRun(parseCron('0 0 31 2 *'), at('2026-01-01T00:00:00Z'))).toBeUndefined();
  });
});

describe('retention periods', () => {
  it('reads KubeBlocks durations and refuses anything else', () => {
    expect(retentionMs('30d')).toBe(30 * 86_400_000);
    expect(retentionMs('12h30m')).toBe(12.5 * 3_600_000);
    expect(retentionMs('1y')).toBe(365 * 86_400_000);
    expect(retentionMs('2w')).toBe(14 * 86_400_000);
    expect(retentionMs('3mo')).toBe(90 * 86_400_000);
    for (const bad of ['', '30', '30 days', 'd', '-1d', '0d', '1.5d']) expect(retentionMs(bad), bad).toBeUndefined();
  });
});
