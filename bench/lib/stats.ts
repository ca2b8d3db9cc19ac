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
