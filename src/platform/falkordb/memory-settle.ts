// Whether FalkorDB has finished freeing deleted graphs. GRAPH.DELETE answers once the key is gone, and the graph
// itself is freed afterwards on a thread of the module's (ASYNC_DELETE, on by default); a RESTORE while that runs
// can crash the server (docs/decisions/restore-after-async-delete.md). FalkorDB reports no such work, but
// its used memory falls as it goes (a graph of 3 million entities released about 380 MB over 130-310 ms here):
// memory that stopped falling is taken as the end of it.

/** `used_memory` from INFO's memory section, in bytes (NaN when absent). */
export function usedMemoryOf(info: string): number {
  const match = /^used_memory:(\d+)\r?$/m.exec(info);
  return match ? Number(match[1]) : Number.NaN;
}

/** A fall of more than this since the quiet period began is a graph still being freed (a small one frees at once). */
export const SETTLED_FALL_BYTES = 1024 * 1024;

/** True when the later sample is not more than SETTLED_FALL_BYTES below the earlier one. */
export function memorySettled(earlier: number, later: number): boolean {
  return !(earlier - later > SETTLED_FALL_BYTES);
}
