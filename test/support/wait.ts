// Waiting in tests: for a condition (eventually), or for a delay that is itself the point (sleep).

/**
 * Polls `check` until it returns true; throws when `timeoutMs` passes first, so a wait that never holds fails the
 * test where it waited, whether or not the caller looks at the answer.
 */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  intervalMs = 50,
): Promise<true> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) throw new WaitTimeout(check, timeoutMs);
    await sleep(intervalMs);
  }
}

/** A condition that did not hold in time, named by its source text. */
export class WaitTimeout extends Error {
  constructor(check: () => unknown, timeoutMs: number) {
    const source = check.toString().replace(/\s+/g, ' ');
    super(`not true within ${timeoutMs} ms: ${source.length > 300 ? `${source.slice(0, 300)}…` : source}`);
    this.name = 'WaitTimeout';
  }
}

/** A fixed delay: only where time passing is what the test needs, never to wait for something to happen. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
