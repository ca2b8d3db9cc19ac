// How many of one kind of work run at once per key (a token, a client address): a slot is taken before the work
// and given back after it, whatever its outcome. Keys without running work are forgotten, so memory follows load.
export class ConcurrencyLimit {
  private readonly running = new Map<string, number>();

  constructor(readonly max: number) {}

  /** A release function when a slot is free for `key`, otherwise undefined. Releasing twice is harmless. */
  tryAcquire(key: string): (() => void) | undefined {
    const count = this.running.get(key) ?? 0;
    if (count >= this.max) return undefined;
    this.running.set(key, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.running.get(key) ?? 1) - 1;
      if (left === 0) this.running.delete(key);
      else this.running.set(key, left);
    };
  }

  inUse(key: string): number {
    return this.running.get(key) ?? 0;
  }
}
