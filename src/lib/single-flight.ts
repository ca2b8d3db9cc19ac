// A value kept in memory and read again from its store now and then (the settings, the RBAC document): one read at
// a time, shared by every caller that asks while it runs, and a failed read answered with the last good value.

/**
 * `load` wrapped so that concurrent calls share one read; a read that fails is reported to `onFailure` (with its
 * message) and answered with `lastGood()`, so the callers keep the value in force rather than failing.
 */
export function singleFlightReload<T>(
  load: () => Promise<T>,
  lastGood: () => T,
  onFailure: (reason: string) => void,
): () => Promise<T> {
  let reading: Promise<T> | undefined;
  return () =>
    (reading ??= load()
      .catch((error: unknown) => {
        onFailure(error instanceof Error ? error.message : String(error));
        return lastGood();
      })
      .finally(() => {
        reading = undefined;
      }));
}
