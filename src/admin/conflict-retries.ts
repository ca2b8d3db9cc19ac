// Optimistic concurrency over the admin stores. Their failures are PortErrors, which the admin plugin's error
// handler answers (422, 503, 409 ...): nothing here translates them.
import { AlreadyExistsError, StaleVersionError } from '../platform/stores/ports.js';

/** Retries `work` while it fails because a stored object changed underneath (optimistic concurrency). */
export async function withConflictRetries<T>(work: () => Promise<T>, attempts = 10): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const retryable = error instanceof StaleVersionError || error instanceof AlreadyExistsError;
      if (!retryable || attempt >= attempts) throw error;
      // Exponential backoff with full jitter (20 ms doubling, at most 2 s): a writer that keeps losing to another
      // replica's queue of writes waits until that queue has drained instead of giving up after half a second.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(2000, 20 * 2 ** attempt)));
    }
  }
}
