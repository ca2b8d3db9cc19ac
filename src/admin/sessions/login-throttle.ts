// Bounds on local sign-in beyond the per-address-and-e-mail rate limit of the route:
// - per client address, over all e-mails (one client guessing many accounts);
// - per account, over all addresses: after a few failures in a row each further attempt waits longer (doubling,
//   capped), so a distributed guesser gets few tries; a success clears it;
// - password checks in flight (scrypt is deliberately dear): beyond the cap an attempt is refused at once rather
//   than queued, so a flood of bogus sign-ins cannot make a real one wait behind it.
// Counters live in this process: with several replicas each applies its own (documented).
import { HttpError } from '../../http/http-errors.js';

export interface LoginThrottleOptions {
  attemptsPerAddressPerMinute: number;
  failuresBeforeBackoff: number;
  maxBackoffMs: number;
  checksInFlightMax: number;
  now: () => number;
}

interface Window {
  startedAt: number;
  count: number;
}

interface AccountFailures {
  count: number;
  blockedUntil: number;
  lastAt: number;
}

const MINUTE_MS = 60_000;
/** Failures older than this are forgotten. */
const FAILURE_MEMORY_MS = 15 * MINUTE_MS;
const BACKOFF_BASE_MS = 1000;
/** Entries kept at most per map; the oldest go first when it is full (memory cannot be exhausted by addresses). */
const MAX_ENTRIES = 100_000;

const tooMany = (what: string, waitMs: number) => {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new HttpError(429, `Too many ${what}; try again in ${seconds} seconds`, { 'retry-after': String(seconds) });
};

function remember<T>(map: Map<string, T>, key: string, value: T): void {
  map.delete(key);
  if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value!);
  map.set(key, value);
}

/** The wait after the n-th failure in a row: none before the threshold, then 1 s, 2 s, 4 s … up to the cap. */
export function backoffMs(
  failures: number,
  options: Pick<LoginThrottleOptions, 'failuresBeforeBackoff' | 'maxBackoffMs'>,
): number {
  const beyond = failures - options.failuresBeforeBackoff;
  if (beyond < 0) return 0;
  return Math.min(options.maxBackoffMs, BACKOFF_BASE_MS * 2 ** Math.min(beyond, 30));
}

export function createLoginThrottle(options: LoginThrottleOptions) {
  const addresses = new Map<string, Window>();
  const accounts = new Map<string, AccountFailures>();
  let checksInFlight = 0;

  return {
    /**
     * Called before the password is checked: throws 429 when this attempt may not run now; otherwise returns the
     * function that ends it, told whether the password was right.
     */
    begin(address: string, email: string): (succeeded: boolean) => void {
      const now = options.now();
      const account = email.toLowerCase();
      const window = addresses.get(address);
      if (window && now - window.startedAt < MINUTE_MS && window.count >= options.attemptsPerAddressPerMinute) {
        throw tooMany('sign-in attempts from this address', window.startedAt + MINUTE_MS - now);
      }
      const failures = accounts.get(account);
      if (failures && failures.blockedUntil > now)
        throw tooMany('failed sign-ins for this account', failures.blockedUntil - now);
      if (checksInFlight >= options.checksInFlightMax) throw tooMany('sign-ins in progress', 1000);

      if (!window || now - window.startedAt >= MINUTE_MS) remember(addresses, address, { startedAt: now, count: 1 });
      else window.count++;
      checksInFlight++;
      let ended = false;
      return (succeeded) => {
        if (ended) return;
        ended = true;
        checksInFlight--;
        if (succeeded) {
          accounts.delete(account);
          return;
        }
        const at = options.now();
        const earlier = accounts.get(account);
        const count = earlier && at - earlier.lastAt < FAILURE_MEMORY_MS ? earlier.count + 1 : 1;
        remember(accounts, account, { count, lastAt: at, blockedUntil: at + backoffMs(count, options) });
      };
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
