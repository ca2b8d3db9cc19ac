// The memory-under-load row: when the server's RSS has settled after a warm-up, and whether the measured minute
// shows a rising trend. V8 grows its heap a page at a time while a heavy load ramps up; on a slow machine that lasts
// past a fixed ten-second warm-up and read as a trend in the windows after it.

/** RSS grown by at most this share over each of the last two warm-up segments counts as settled. */
export const SETTLED_GROWTH = 0.01;
/** The measured windows' last over first above 1 + this share is a rising trend. */
export const TREND_GROWTH = 0.02;

/**
 * After a warm-up segment: whether RSS (MiB, sampled at the end of each segment) has stopped growing. Two flat
 * segments in a row, not one: the heap also grows in steps with pauses between them (a run of 2026-11-27 paused at
 * 439 → 442 MiB and stepped to 470 MiB within the next 20 s).
 */
export function rssSettled(segmentEndsMiB: readonly number[]): boolean {
  if (segmentEndsMiB.length < 3) return false;
  const [before, middle, last] = segmentEndsMiB.slice(-3) as [number, number, number];
  return middle <= before * (1 + SETTLED_GROWTH) && last <= middle * (1 + SETTLED_GROWTH);
}

/** Averages of the samples in three equal windows, and the verdict: the last more than TREND_GROWTH above the first. */
export function rssTrend(samplesMiB: readonly number[]): { windowsMiB: number[]; growth: number; rising: boolean } {
  const third = Math.floor(samplesMiB.length / 3);
  if (third === 0) throw new Error(`three windows need at least three samples, got ${samplesMiB.length}`);
  const windowsMiB = [0, 1, 2].map((index) => {
    const window = samplesMiB.slice(index * third, (index + 1) * third);
    return window.reduce((sum, value) => sum + value, 0) / window.length;
  });
  const growth = windowsMiB[2]! / windowsMiB[0]!;
  return { windowsMiB, growth, rising: growth > 1 + TREND_GROWTH };
}
