// Latency statistics and the result record every scenario produces.
export interface Measurement {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  errors: number;
}

export function percentile(sortedMs: number[], fraction: number): number {
  if (sortedMs.length === 0) return Number.NaN;
  const index = Math.min(sortedMs.length - 1, Math.ceil(fraction * sortedMs.length) - 1);
  return sortedMs[Math.max(0, index)]!;
}

/** The better of several rounds by throughput: rounds are interleaved, so the best one is the least disturbed. */
export function bestRound(rounds: Measurement[]): Measurement {
  return rounds.reduce((best, round) => (round.requestsPerSecond > best.requestsPerSecond ? round : best));
}
