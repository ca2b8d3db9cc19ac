// Option values checked where commander parses them: a bad one is a usage error (exit 2) naming the option.
import { InvalidArgumentError } from 'commander';

/** A whole number ≥ `min` (`--poll-interval 500`, `--limit 50`). */
export function wholeNumber(min = 0, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value: string) => {
    if (!/^\d+$/.test(value.trim()))
      throw new InvalidArgumentError(`expected a whole number, got ${JSON.stringify(value)}`);
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`expected a number from ${min} to ${max}, got ${value}`);
    return n;
  };
}

/** An integer, negative too (`--priority -5`). */
export function integer(min: number, max: number): (value: string) => number {
  return (value: string) => {
    if (!/^-?\d+$/.test(value.trim()))
      throw new InvalidArgumentError(`expected an integer, got ${JSON.stringify(value)}`);
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`expected a number from ${min} to ${max}, got ${value}`);
    return n;
  };
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A duration in milliseconds: `90s`, `10m`, `1h30m`, `500ms`; a bare number is seconds (as kubectl's --timeout). */
export function parseDuration(value: string): number {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== text)
    throw new InvalidArgumentError(`expected a duration such as 30s, 10m or 1h, got ${JSON.stringify(value)}`);
  return Math.round(parts.reduce((total, [, amount, unit]) => total + Number(amount) * UNITS[unit!]!, 0));
}

/** A repeatable option: each use adds its value (`--type cluster --type backup`). */
export const repeatable = (value: string, previous: string[] = []): string[] => [...previous, value];
