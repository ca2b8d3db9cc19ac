// singleFlightReload: concurrent callers share one read; a failed read keeps the last good value and says why.
import { describe, expect, it } from 'vitest';
import { singleFlightReload } from '../../src/lib/single-flight.js';

describe('singleFlightReload', () => {
  it('shares one read among the callers that ask while it runs, and reads again after it', async () => {
    let reads = 0;
    let finish: (value: number) => void = () => undefined;
    const reload = singleFlightReload(
      () => {
        reads++;
        return new Promise<number>((resolve) => (finish = resolve));
      },
      () => 0,
      () => undefined,
    );
    const first = reload();
    const second = reload();
    expect(reads).toBe(1);
    finish(7);
    expect(await Promise.all([first, second])).toEqual([7, 7]);
    const third = reload();
    expect(reads).toBe(2);
    finish(8);
    expect(await third).toBe(8);
  });

  it('answers a failed read with the last good value and reports its reason', async () => {
    const reasons: string[] = [];
    let fail = true;
    const reload = singleFlightReload(
      () => (fail ? Promise.reject(new Error('store unavailable')) : Promise.resolve('fresh')),
      () => 'last good',
      (reason) => reasons.push(reason),
    );
    expect(await reload()).toBe('last good');
    expect(reasons).toEqual(['store unavailable']);
    fail = false;
    expect(await reload()).toBe('fresh');
    expect(reasons).toEqual(['store unavailable']);
  });
});
