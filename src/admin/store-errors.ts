// Storage failures as admin API errors: what the orchestrator rejected (422), could not do (503/500), or
// what changed underneath (409).
import { PortError } from '../platform/port-errors.js';
import { AlreadyExistsError, StaleVersionError } from '../platform/stores/ports.js';
import { HttpError } from '../shared/http-errors.js';
import { portErrorStatus } from '../shared/error-handler.js';

export function storeErrorToHttp(error: unknown): unknown {
  if (error instanceof HttpError) return error;
  if (error instanceof PortError) return new HttpError(portErrorStatus(error.kind, 'admin'), error.message);
  return error;
}

/** Runs store work and translates whatever it throws into the admin API's errors. */
export async function withStoreErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw storeErrorToHttp(error);
  }
}

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
