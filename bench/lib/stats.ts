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
export function bestRound<T extends Measurement>(rounds: T[]): T {
  return rounds.reduce((best, round) => (round.requestsPerSecond > best.requestsPerSecond ? round : best));
}

/**
 * On one machine the server's HTTP work and the database's work share the cores, so a route that does both can at
 * best run at the serial composition of the two rates measured alone (issue 25): the HTTP floor and the raw client.
 */
export function composedLimit(floorRequestsPerSecond: number, rawRequestsPerSecond: number): number {
  return 1 / (1 / floorRequestsPerSecond + 1 / rawRequestsPerSecond);
}

export interface PairedRatios {
  pairs: number;
  /** Of the per-pair ratios B/A. */
  median: number;
  lowerQuartile: number;
  upperQuartile: number;
  /** Pairs in which B made more requests per second than A. */
  bAhead: number;
  medianA: number;
  medianB: number;
}

/**
 * Two builds measured in interleaved pairs of rounds: the ratio is taken within each pair (the machine's drift
 * between pairs cancels), and its median and middle half say how large the difference is and how sure.
 */
export function pairedRatios(pairs: { a: number; b: number }[]): PairedRatios {
  if (pairs.length === 0) throw new Error('no pairs to compare');
  const sorted = (values: number[]) => [...values].sort((x, y) => x - y);
  const ratios = sorted(pairs.map((pair) => pair.b / pair.a));
  return {
    pairs: pairs.length,
    median: percentile(ratios, 0.5),
    lowerQuartile: percentile(ratios, 0.25),
    upperQuartile: percentile(ratios, 0.75),
    bAhead: pairs.filter((pair) => pair.b > pair.a).length,
    medianA: percentile(sorted(pairs.map((pair) => pair.a)), 0.5),
    medianB: percentile(sorted(pairs.map((pair) => pair.b)), 0.5),
  };
}
