// The bounded look behind every alert gauge (boundedLook).
import { describe, expect, it } from 'vitest';
import { boundedLook } from '../../src/admin/alert-metrics.js';
import { sleep } from '../support/wait.js';

/** Past the second in which a finished look is shared; a timer may fire a millisecond before Date.now() says so. */
const PAST_SHARING_MS = 1050;

describe('boundedLook', () => {
  it('answers the last value when a look outlasts the wait, and the new one once it has ended', async () => {
    let release: (value: number) => void = () => undefined;
    let looks = 0;
    const errors: unknown[] = [];
    const look = boundedLook(
      () => {
        looks += 1;
        if (looks === 1) return Promise.resolve(1);
        return new Promise<number>((resolve) => (release = resolve));
      },
      50,
      (error) => errors.push(error),
    );
    expect(await look()).toBe(1);
    // Within a second of a finished look, gauges share it.
    expect(await look()).toBe(1);
    expect(looks).toBe(1);
    await sleep(PAST_SHARING_MS);
    // The second look hangs (an API outage): the scrape still answers, within the wait, with the value before.
    const started = Date.now();
    expect(await look()).toBe(1);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await look()).toBe(1);
    expect(looks).toBe(2);
    release(2);
    await sleep(0);
    expect(await look()).toBe(2);
    expect(errors).toEqual([]);
  });

  it('keeps the last value when a look fails, and reports the failure', async () => {
    let fail = false;
    const errors: unknown[] = [];
    const look = boundedLook(
      () => (fail ? Promise.reject(new Error('forbidden')) : Promise.resolve('ok')),
      50,
      (error) => errors.push(error),
    );
    expect(await look()).toBe('ok');
    fail = true;
    await sleep(PAST_SHARING_MS);
    expect(await look()).toBe('ok');
    expect(errors.map((error) => (error as Error).message)).toEqual(['forbidden']);
  });
});
