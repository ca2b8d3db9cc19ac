// The memory-under-load row's warm-up end and trend verdict (bench/lib/memory-trend.ts).
import { describe, expect, it } from 'vitest';
import { rssSettled, rssTrend } from '../../bench/lib/memory-trend.js';

describe('memory under load: warm-up and trend', () => {
  it('counts RSS as settled only after two segments in a row grew it by at most 1% each', () => {
    expect(rssSettled([])).toBe(false);
    expect(rssSettled([400, 401])).toBe(false);
    expect(rssSettled([330, 440, 444])).toBe(false);
    // The pause of 2026-11-27 (439 → 442) is not enough alone.
    expect(rssSettled([370, 439, 442])).toBe(false);
    expect(rssSettled([439, 442, 446])).toBe(true);
    expect(rssSettled([439, 442, 446.5])).toBe(false);
    // A fall (the collector gave pages back) is settled too.
    expect(rssSettled([300, 450, 450, 430])).toBe(true);
  });

  it('averages three equal windows and calls growth past 2% a rising trend', () => {
    const flat = rssTrend([440, 441, 440, 441, 441, 441]);
    expect(flat.windowsMiB).toEqual([440.5, 440.5, 441]);
    expect(flat.rising).toBe(false);
    // A full run's figures before the warm-up settled: 397 → 422 → 431 MiB.
    const rising = rssTrend([397, 397, 422, 422, 431, 431]);
    expect(rising.growth).toBeCloseTo(431 / 397, 6);
    expect(rising.rising).toBe(true);
    expect(rssTrend([400, 400, 404, 404, 408, 408]).rising).toBe(false);
    expect(rssTrend([400, 400, 404, 404, 409, 409]).rising).toBe(true);
    // Samples past the last full window are left out.
    expect(rssTrend([1, 2, 3, 900]).windowsMiB).toEqual([1, 2, 3]);
    expect(() => rssTrend([1, 2])).toThrow(/three samples/);
  });
});
