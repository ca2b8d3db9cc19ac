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
 * best run at the serial composition of the two rates measured alone: the HTTP floor and the raw client.
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

/** The median and the range of a few per-round ratios. */
export interface RatioSpread {
  median: number;
  min: number;
  max: number;
}

export interface InterleavedShares {
  rounds: number;
  /** `composed`: the route against 1 / (1/floor + 1/raw) of its round; `floor`: against the floor alone. */
  limit: 'composed' | 'floor';
  share: RatioSpread;
  /** The route's p99 over the raw client's, per round (composed limits only). */
  p99Ratio?: RatioSpread;
  /** Failed requests over every load of every round: a round with failures measured nothing. */
  errors: number;
}

function spread(values: number[]): RatioSpread {
  const sorted = [...values].sort((x, y) => x - y);
  return { median: percentile(sorted, 0.5), min: sorted[0]!, max: sorted.at(-1)! };
}

export interface GoalRound {
  floor: Measurement;
  route: Measurement;
  raw?: Measurement;
}

/** Each round's share of its own limit (the floor and the raw client measured in that round), summarised. */
export function sharesOf(rounds: GoalRound[]): InterleavedShares {
  if (rounds.length === 0) throw new Error('no rounds to summarise');
  const composed = rounds.every((round) => round.raw !== undefined);
  const share = rounds.map(({ floor, route, raw }) =>
    raw
      ? route.requestsPerSecond / composedLimit(floor.requestsPerSecond, raw.requestsPerSecond)
      : route.requestsPerSecond / floor.requestsPerSecond,
  );
  const errors = rounds.reduce(
    (sum, { floor, route, raw }) => sum + floor.errors + route.errors + (raw?.errors ?? 0),
    0,
  );
  return {
    rounds: rounds.length,
    limit: composed ? 'composed' : 'floor',
    errors,
    share: spread(share),
    ...(composed
      ? { p99Ratio: spread(rounds.map(({ route, raw }) => route.p99Ms / Math.max(raw!.p99Ms, 0.001))) }
      : {}),
  };
}

/**
 * `count` rounds that each run every load once, back to back, the order rotating from round to round so that none
 * of them always runs first or last (the warmer or the noisier part of a round). Each round's results are in the
 * order of `loads`.
 */
export async function rotatedRounds<T>(count: number, loads: readonly (() => Promise<T>)[]): Promise<T[][]> {
  const rounds: T[][] = [];
  for (let round = 0; round < count; round++) {
    const measured: T[] = [];
    for (let step = 0; step < loads.length; step++) {
      const which = (round + step) % loads.length;
      measured[which] = await loads[which]!();
    }
    rounds.push(measured);
  }
  return rounds;
}

/** `count` rotated rounds of the floor, the route and (when given) the raw client; then each round's share. */
export async function interleavedShares(
  count: number,
  floor: () => Promise<Measurement>,
  route: () => Promise<Measurement>,
  raw?: () => Promise<Measurement>,
): Promise<InterleavedShares> {
  const rounds = await rotatedRounds(count, raw ? [floor, route, raw] : [floor, route]);
  return sharesOf(
    rounds.map(([floorRound, routeRound, rawRound]) => ({
      floor: floorRound!,
      route: routeRound!,
      ...(rawRound ? { raw: rawRound } : {}),
    })),
  );
}

/** A spread of shares as printed: `median% (min%–max%)`. */
export function describeShareSpread(spread: RatioSpread): string {
  const percent = (value: number) => `${(value * 100).toFixed(0)}%`;
  return `${percent(spread.median)} (${percent(spread.min)}–${percent(spread.max)})`;
}
