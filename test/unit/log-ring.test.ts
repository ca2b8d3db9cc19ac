// The in-memory ring of recent log lines that diagnostics read.
import { describe, expect, it } from 'vitest';
import { LogRing } from '../../src/logging/log-ring.js';
import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

describe('log ring', () => {
  it('keeps the last lines up to its capacity, oldest first, and cuts long lines', () => {
    const ring = new LogRing(3, 40);
    for (let index = 1; index <= 5; index += 1) ring.write(`{"msg":"line ${index}"}\n`);
    expect(ring.tail()).toEqual(['{"msg":"line 3"}', '{"msg":"line 4"}', '{"msg":"line 5"}']);
    expect(ring.tail(2)).toEqual(['{"msg":"line 4"}', '{"msg":"line 5"}']);
    expect(ring.tail(0)).toEqual([]);
    ring.write(Buffer.from(`{"msg":"${'x'.repeat(100)}"}\n`));
    const long = ring.parsed(1)[0]!;
    expect(long.truncated).toBe(true);
    expect(String(long.start)).toHaveLength(40);
    // A line of exactly the limit stays whole; its newline does not count.
    const atLimit = `{"msg":"${'y'.repeat(30)}"}`;
    ring.write(`${atLimit}\n`);
    expect(ring.tail(1)).toEqual([atLimit]);
    ring.write('not json');
    expect(ring.tail(1)).toEqual(['not json']);
    // The cut line (no msg of its own), the line at the limit; 'not json' is skipped.
    expect(ring.parsed().map((line) => line.msg)).toEqual([undefined, 'y'.repeat(30)]);
  });
});

describe('log ring blocks', () => {
  const accessLine = (index: number) =>
    `{"level":30,"msg":"request completed","n":${index},"pad":"${'p'.repeat(300)}"}\n`;

  it('keeps exactly the last lines across many blocks, multi-byte characters included', () => {
    const ring = new LogRing(500, 8192);
    for (let index = 0; index < 5000; index++) ring.write(accessLine(index));
    ring.write('{"msg":"caf\u00e9 \u{1f600}"}\n');
    const tail = ring.tail();
    expect(tail).toHaveLength(500);
    expect(tail[0]).toBe(accessLine(4501).slice(0, -1));
    expect(tail[498]).toBe(accessLine(4999).slice(0, -1));
    expect(ring.parsed(1)[0]!.msg).toBe('caf\u00e9 \u{1f600}');
  });

  it('keeps lines of three bytes per character whole, across the end of a block', () => {
    const ring = new LogRing(10, 30_000);
    // 60 KB each: the fifth starts a second block.
    const wide = (index: number) => `{"n":${index},"msg":"${'\u20ac'.repeat(20_000)}"}`;
    for (let index = 0; index < 6; index++) ring.write(`${wide(index)}\n`);
    expect(ring.tail()).toEqual([0, 1, 2, 3, 4, 5].map(wide));
  });

  it('keeps a batch larger than a block whole, and cuts its long lines when they are read', () => {
    const ring = new LogRing(10, 100);
    const long = `{"msg":"${'x'.repeat(70_000)}"}`;
    ring.append(`${long}\n{"msg":"short"}\n`, 2);
    const [cut, short] = ring.parsed();
    expect(cut).toMatchObject({ truncated: true });
    expect(String(cut!.start)).toBe(long.slice(0, 100));
    expect(short).toEqual({ msg: 'short' });
  });

  it('holds at most capacity times the line length in bytes, whatever the batches hold', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const ring = new LogRing(1000, 100);
    gc();
    const before = process.memoryUsage().arrayBuffers;
    for (let index = 0; index < 50; index++) ring.append(`${String(index).padEnd(60_000, 'y')}\n`, 1);
    gc();
    // 3 MB had the ring kept every batch; its bound is 1000 x 100 bytes besides its newest block (256 KiB, four of
    // these batches), and it keeps one spare block.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1024 * 1024);
    expect(ring.tail().length).toBeLessThanOrEqual(4);
    expect(String(ring.parsed().at(-1)!.start)).toMatch(/^49/);
  });

  it("keeps its lines outside V8's heap: none of the strings it was given stays alive", () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const ring = new LogRing(2000, 8192);
    gc();
    const before = process.memoryUsage();
    // 2000 distinct lines of 4 KB: 8 MB of strings, had the ring kept them.
    for (let index = 0; index < 2000; index++) ring.write(`{"msg":"${randomBytes(2000).toString('hex')}"}\n`);
    gc();
    const after = process.memoryUsage();
    expect(after.heapUsed - before.heapUsed).toBeLessThan(2 * 1024 * 1024);
    expect(after.arrayBuffers - before.arrayBuffers).toBeGreaterThan(6_000_000);
    expect(ring.tail()).toHaveLength(2000);
  });
});
