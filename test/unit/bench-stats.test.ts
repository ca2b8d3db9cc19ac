// The bench's statistics (bench/lib/stats.ts): percentiles, the composed limit and paired build comparisons.
import { describe, expect, it } from 'vitest';
import { composedLimit, pairedRatios, percentile } from '../../bench/lib/stats.js';

describe('bench statistics', () => {
  it('takes the nearest-rank percentile of sorted values', () => {
    const values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(values, 0.5)).toBe(5);
    expect(percentile(values, 0.99)).toBe(10);
    expect(percentile([], 0.5)).toBeNaN();
  });

  it('composes two rates serially', () => {
    expect(composedLimit(30_000, 60_000)).toBeCloseTo(20_000);
  });

  it('compares two builds by the ratio within each pair, not by the rates across pairs', () => {
    // The machine slows down by half over the run; B is 10% faster in every pair but one.
    const pairs = [
      { a: 1000, b: 1100 },
      { a: 900, b: 990 },
      { a: 800, b: 880 },
      { a: 700, b: 770 },
      { a: 600, b: 540 },
      { a: 500, b: 550 },
    ];
    const result = pairedRatios(pairs);
    expect(result.median).toBeCloseTo(1.1);
    expect(result.lowerQuartile).toBeCloseTo(1.1);
    expect(result.upperQuartile).toBeCloseTo(1.1);
    expect(result.bAhead).toBe(5);
    expect(result.pairs).toBe(6);
    expect(result.medianA).toBe(700);
    expect(result.medianB).toBe(770);
    expect(pairedRatios([{ a: 100, b: 90 }]).median).toBeCloseTo(0.9);
    expect(() => pairedRatios([])).toThrow('no pairs');
  });
});
