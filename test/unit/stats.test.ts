// The bench's statistics (bench/lib/stats.ts): percentiles, the composed limit and paired build comparisons.
import { describe, expect, it } from 'vitest';
import {
  composedLimit,
  interleavedShares,
  pairedRatios,
  percentile,
  sharesOf,
  type Measurement,
} from '../../bench/lib/stats.js';

const measured = (requestsPerSecond: number, p99Ms = 1): Measurement => ({
  requestsPerSecond,
  p50Ms: p99Ms / 2,
  p99Ms,
  requests: requestsPerSecond,
  errors: 0,
});

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

  it("takes a goal row's share within each round, so the machine's drift between rounds cancels", () => {
    // The machine slows down by half between the rounds; in each the route makes 80% of its composed limit.
    const rounds = [1, 0.75, 0.5].map((speed) => ({
      floor: measured(30_000 * speed),
      route: measured(0.8 * composedLimit(30_000 * speed, 60_000 * speed), 3 / speed),
      raw: measured(60_000 * speed, 1 / speed),
    }));
    const shares = sharesOf(rounds);
    expect(shares.limit).toBe('composed');
    expect(shares.rounds).toBe(3);
    expect(shares.share.median).toBeCloseTo(0.8);
    expect(shares.share.min).toBeCloseTo(0.8);
    expect(shares.p99Ratio?.median).toBeCloseTo(3);
    expect(shares.errors).toBe(0);
    expect(sharesOf([{ ...rounds[0]!, raw: { ...rounds[0]!.raw, errors: 2 } }]).errors).toBe(2);
    // Across rounds the same figures would say 53% (the slow round's route against the fast round's limits).
    expect(rounds[2]!.route.requestsPerSecond / composedLimit(30_000, 60_000)).toBeCloseTo(0.4);

    const againstFloor = sharesOf([
      { floor: measured(40_000), route: measured(30_000) },
      { floor: measured(20_000), route: measured(18_000) },
      { floor: measured(10_000), route: measured(6_000) },
    ]);
    expect(againstFloor.limit).toBe('floor');
    expect(againstFloor.p99Ratio).toBeUndefined();
    expect(againstFloor.share).toEqual({ median: 0.75, min: 0.6, max: 0.9 });
    expect(() => sharesOf([])).toThrow('no rounds');
  });

  it('rotates which load runs first from one goal round to the next', async () => {
    const order: string[] = [];
    const load = (name: string, rate: number) => () => {
      order.push(name);
      return Promise.resolve(measured(rate));
    };
    const shares = await interleavedShares(3, load('floor', 30_000), load('route', 16_000), load('raw', 60_000));
    expect(order).toEqual(['floor', 'route', 'raw', 'route', 'raw', 'floor', 'raw', 'floor', 'route']);
    expect(shares.share.median).toBeCloseTo(0.8);
    order.length = 0;
    await interleavedShares(2, load('floor', 30_000), load('route', 27_000));
    expect(order).toEqual(['floor', 'route', 'route', 'floor']);
  });
});
