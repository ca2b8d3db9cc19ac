// Ids that must be unique but need not be secret: request ids (logs, X-Request-Id) and running-query ids (stopping
// one is checked against its owner). UUID-shaped, so callers that expect a UUID keep working: a random prefix drawn
// once per sequence (the first 24 characters of a random UUID: unique across processes and replicas) and a counter
// as the last group. A random UUID per id cost two string builds and a share of a random-buffer refill per query
// (about 1 KiB of garbage per request).
import { randomUUID } from 'node:crypto';

/** Below 16^12, so the counter fills the last 12 hex digits and never overflows in a process's life. */
const LAST_GROUP = 0xffff_ffff_ffff;

export function idSequence(prefix: string = randomUUID().slice(0, 24)): () => string {
  let next = 0;
  return () => {
    const id = prefix + next.toString(16).padStart(12, '0');
    next = next === LAST_GROUP ? 0 : next + 1;
    return id;
  };
}
