// The CLI's option parsers.
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/cli/parsers.js';

describe('durations', () => {
  it('takes units, combinations and bare seconds', () => {
    expect(parseDuration('10m')).toBe(600_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration('45')).toBe(45_000);
  });

  it('refuses anything else', () => {
    for (const bad of ['abc', '10x', '', 'm', '10m abc', '-5s'])
      expect(() => parseDuration(bad), bad).toThrow(/duration/);
  });
});
