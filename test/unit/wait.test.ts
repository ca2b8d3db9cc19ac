// The tests' one waiting idiom (test/support/wait.ts): a wait that never holds fails where it waited.
import { describe, expect, it } from 'vitest';
import { eventually, WaitTimeout } from '../support/wait.js';

describe('eventually', () => {
  it('answers as soon as the condition holds', async () => {
    let calls = 0;
    await eventually(() => ++calls === 3, 5_000, 1);
    expect(calls).toBe(3);
  });

  it('throws, naming the condition, when it does not hold in time', async () => {
    const started = Date.now();
    const waiting = eventually(async () => Promise.resolve(Date.now() < 0), 60, 10);
    await expect(waiting).rejects.toBeInstanceOf(WaitTimeout);
    await expect(waiting).rejects.toThrow(
      /^not true within 60 ms: async \(\) => Promise\.resolve\(Date\.now\(\) < 0\)$/,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(60);
  });

  it('adds what the test saw to the failure', async () => {
    let last = 0;
    const waiting = eventually(() => ++last > 1_000_000, 30, { intervalMs: 5, detail: () => `last seen: ${last}` });
    await expect(waiting).rejects.toThrow(/^not true within 30 ms: .*\nlast seen: \d+$/);
  });
});
