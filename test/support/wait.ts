// Waiting in tests: for a condition (eventually), or for a delay that is itself the point (sleep).

export interface WaitOptions {
  /** Between checks; 50 ms when absent. */
  intervalMs?: number;
  /** What the test saw, added to the failure (e.g. the last response the check read). */
  detail?: () => string;
}

/**
 * Polls `check` until it returns true; throws WaitTimeout when `timeoutMs` passes first, so a wait that never holds
 * fails the test where it waited. It returns nothing: there is no answer to forget to look at.
 */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  options: number | WaitOptions = {},
): Promise<void> {
  const { intervalMs = 50, detail } = typeof options === 'number' ? { intervalMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new WaitTimeout(check, timeoutMs, detail?.());
    await sleep(intervalMs);
  }
}

/** A condition that did not hold in time, named by its source text (and what the test saw, when it says). */
export class WaitTimeout extends Error {
  constructor(check: () => unknown, timeoutMs: number, detail?: string) {
    const source = check.toString().replace(/\s+/g, ' ');
    const named = source.length > 300 ? `${source.slice(0, 300)}…` : source;
    super(`not true within ${timeoutMs} ms: ${named}${detail === undefined ? '' : `\n${detail}`}`);
    this.name = 'WaitTimeout';
  }
}

/** A fixed delay: only where time passing is what the test needs, never to wait for something to happen. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
