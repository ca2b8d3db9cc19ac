// Bounds guessing of token values: each client address may fail token authentication a few times a minute; past
// that its token requests are answered 429 before any lookup. Counters live in this process (each replica applies
// its own, as the sign-in throttle does); the oldest addresses are forgotten first beyond a fixed number.
import { HttpError } from '../../http/http-errors.js';

const MINUTE_MS = 60_000;
const MAX_ADDRESSES = 100_000;

export interface TokenThrottleOptions {
  failuresPerAddressPerMinute: number;
  now: () => number;
}

export function createTokenThrottle(options: TokenThrottleOptions) {
  const windows = new Map<string, { startedAt: number; count: number }>();
  return {
    /** Throws 429 when `address` has failed too often in the last minute. */
    check(address: string): void {
      const window = windows.get(address);
      if (!window) return;
      const now = options.now();
      if (now - window.startedAt >= MINUTE_MS) {
        windows.delete(address);
        return;
      }
      if (window.count >= options.failuresPerAddressPerMinute) {
        const seconds = Math.max(1, Math.ceil((window.startedAt + MINUTE_MS - now) / 1000));
        throw new HttpError(
          429,
          `Too many failed token authentications from this address; try again in ${seconds} seconds`,
          {
            'retry-after': String(seconds),
          },
        );
      }
    },
    failed(address: string): void {
      const now = options.now();
      const window = windows.get(address);
      if (window && now - window.startedAt < MINUTE_MS) {
        window.count++;
        return;
      }
      windows.delete(address);
      if (windows.size >= MAX_ADDRESSES) windows.delete(windows.keys().next().value!);
      windows.set(address, { startedAt: now, count: 1 });
    },
  };
}

export type TokenThrottle = ReturnType<typeof createTokenThrottle>;
