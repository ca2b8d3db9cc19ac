// The bench's per-request accounting (bench/lib/process-cost.ts): /proc text in, counters and costs out.
import { describe, expect, it } from 'vitest';
import { costPerRequest, parseProcessCounters } from '../../bench/lib/process-cost.js';

const IO = 'rchar: 4096\nwchar: 2048\nsyscr: 1234\nsyscw: 567\nread_bytes: 0\nwrite_bytes: 0\n';

describe('bench process cost', () => {
  it('sums user and system time from /proc/<pid>/stat (system time apart too), past a command name with spaces and parentheses', () => {
    const stat =
      '4242 (node (main) x) S 1 4242 4242 0 -1 4194560 9000 0 0 0 250 75 0 0 20 0 11 0 2696211 3133440 393 0 0';
    expect(parseProcessCounters(stat, IO)).toEqual({
      cpuSeconds: 3.25,
      kernelSeconds: 0.75,
      readCalls: 1234,
      writeCalls: 567,
    });
  });

  it('divides the differences by the requests', () => {
    const cost = costPerRequest(
      { cpuSeconds: 1, kernelSeconds: 0.25, readCalls: 100, writeCalls: 50 },
      { cpuSeconds: 1.5, kernelSeconds: 0.5, readCalls: 2100, writeCalls: 3050 },
      1000,
    );
    expect(cost).toEqual({ cpuMicroseconds: 500, kernelMicroseconds: 250, readCalls: 2, writeCalls: 3 });
  });

  it('has no cost per request when no request was made', () => {
    const none = { cpuSeconds: 0, kernelSeconds: 0, readCalls: 0, writeCalls: 0 };
    expect(
      costPerRequest(none, { cpuSeconds: 1, kernelSeconds: 1, readCalls: 1, writeCalls: 1 }, 0).cpuMicroseconds,
    ).toBeNaN();
  });
});
