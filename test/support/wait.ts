// Waiting in tests: for a condition (eventually), or for a delay that is itself the point (sleep).

/** Polls `check` until it returns true or `timeoutMs` passes; returns whether it did. */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  intervalMs = 50,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(intervalMs);
  }
}

/** A fixed delay: only where time passing is what the test needs, never to wait for something to happen. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
