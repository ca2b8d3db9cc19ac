// Where log lines go: batched writes, the descriptor sink and the fan-out to several destinations.
import { spawn, execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import {
  BatchedLineStream,
  DescriptorSink,
  FLUSH_INTERVAL_MS,
  LogFanOut,
  writeToDescriptor,
} from '../../src/logging/log-destinations.js';
import { LogRing } from '../../src/logging/log-ring.js';

/** A destination that keeps every chunk it is handed, as handed. */
function chunkSink() {
  const chunks: string[] = [];
  return { chunks, write: (chunk: string) => chunks.push(chunk) };
}

describe('BatchedLineStream', () => {
  function scheduled() {
    const pending: (() => void)[] = [];
    return { pending, schedule: (flush: () => void) => pending.push(flush) };
  }

  it('hands the lines written before the scheduled flush to the sink in one write', () => {
    const sink = chunkSink();
    const interval = scheduled();
    const stream = new BatchedLineStream(sink, { schedule: interval.schedule });
    stream.write('a\n');
    stream.write('b\n');
    expect(sink.chunks).toEqual([]);
    expect(interval.pending).toHaveLength(1);
    interval.pending.shift()!();
    expect(sink.chunks).toEqual(['a\nb\n']);
    stream.write('c\n');
    expect(interval.pending).toHaveLength(1);
    interval.pending.shift()!();
    expect(sink.chunks).toEqual(['a\nb\n', 'c\n']);
  });

  it('writes a large batch at once, and what is pending on flush() (at exit)', () => {
    const sink = chunkSink();
    const interval = scheduled();
    const stream = new BatchedLineStream(sink, { schedule: interval.schedule, maxPendingChars: 10 });
    stream.write('12345\n');
    stream.write('67890\n');
    expect(sink.chunks).toEqual(['12345\n67890\n']);
    stream.write('tail\n');
    stream.flush();
    expect(sink.chunks).toEqual(['12345\n67890\n', 'tail\n']);
    // The scheduled flush finds nothing left, and writes nothing.
    for (const flush of interval.pending.splice(0)) flush();
    expect(sink.chunks).toHaveLength(2);
  });

  it('gathers the lines of several event-loop turns and flushes them by itself after the interval', () => {
    // Fake clocks: the interval is checked to the millisecond, whatever the machine's load.
    vi.useFakeTimers();
    try {
      const sink = chunkSink();
      const stream = new BatchedLineStream(sink);
      stream.write('x\n');
      vi.advanceTimersByTime(FLUSH_INTERVAL_MS - 1);
      stream.write('y\n');
      expect(sink.chunks).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(sink.chunks).toEqual(['x\ny\n']);
      stream.write('z\n');
      vi.advanceTimersByTime(FLUSH_INTERVAL_MS);
      expect(sink.chunks).toEqual(['x\ny\n', 'z\n']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('with a ring, encodes each line once, into the ring, and hands the sink those bytes in batches', () => {
    const written: string[] = [];
    const kinds: string[] = [];
    const sink = {
      write: (chunk: string | Uint8Array) => {
        kinds.push(typeof chunk === 'string' ? 'text' : 'bytes');
        written.push(Buffer.from(chunk).toString('utf8'));
      },
    };
    const ring = new LogRing(100, 8192);
    const interval = scheduled();
    const stream = new BatchedLineStream(sink, { schedule: interval.schedule, ring });
    stream.write('{"msg":"a"}\n');
    stream.write('{"msg":"caf\u00e9"}\n');
    // The ring has each line at once; the sink gets them as one batch when it is written.
    expect(ring.tail()).toEqual(['{"msg":"a"}', '{"msg":"caf\u00e9"}']);
    expect(written).toEqual([]);
    interval.pending.shift()!();
    expect([kinds, written]).toEqual([['bytes'], ['{"msg":"a"}\n{"msg":"caf\u00e9"}\n']]);
    expect(ring.tail()).toEqual(['{"msg":"a"}', '{"msg":"caf\u00e9"}']);
    stream.write('{"msg":"b"}\n');
    stream.flush();
    expect(written[1]).toBe('{"msg":"b"}\n');
    expect(ring.tail(2)).toEqual(['{"msg":"caf\u00e9"}', '{"msg":"b"}']);
    // As a pino destination: logger.flush(callback) is answered once the batch is written.
    const logger = pino({ base: null, timestamp: false }, stream);
    logger.info('c');
    const flushed = vi.fn();
    logger.flush(flushed);
    expect(flushed).toHaveBeenCalledOnce();
    expect(written[2]).toBe('{"level":30,"msg":"c"}\n');
  });

  it("with a ring, hands the sink a batch that filled a block in order, and an evicted block's bytes intact", () => {
    const written: string[] = [];
    const sink = { write: (chunk: string | Uint8Array) => written.push(Buffer.from(chunk).toString('utf8')) };
    // One line of capacity: the block a batch began in falls out of the ring as soon as the next one starts, and is
    // not reused while its bytes are still to be written.
    const ring = new LogRing(1, 200_000);
    const streamWithRing = new BatchedLineStream(sink, {
      ring,
      schedule: () => undefined,
      maxPendingChars: 1_000_000,
    });
    const big = (index: number) => `{"n":${index},"msg":"${String(index).repeat(100_000)}"}\n`;
    // 100 KB each: a 256 KiB block holds two, so five lines span three blocks, the first two evicted meanwhile.
    const lines = [0, 1, 2, 3, 4].map(big);
    for (const line of lines) streamWithRing.write(line);
    streamWithRing.flush();
    expect(written.length).toBe(3);
    expect(written.join('')).toBe(lines.join(''));
    expect(ring.tail()).toEqual([lines[4]!.slice(0, -1)]);
    // Lines after the batch start a new one.
    streamWithRing.write('{"msg":"after"}\n');
    streamWithRing.flush();
    expect(written.at(-1)).toBe('{"msg":"after"}\n');
    // And the sink gets nothing when nothing is pending.
    streamWithRing.flush();
    expect(written.at(-1)).toBe('{"msg":"after"}\n');
    expect(written.length).toBe(4);
  });

  it('does not keep the process alive for its pending lines (exit flushes them)', () => {
    const timersBefore = process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const stream = new BatchedLineStream(chunkSink());
    stream.write('z\n');
    expect(process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length).toBe(timersBefore);
    stream.flush();
  });
});

describe('DescriptorSink', () => {
  const scratch = () => mkdtempSync(path.join(os.tmpdir(), 'descriptor-sink-'));

  it('writes each batch whole, multi-byte characters included', () => {
    const file = path.join(scratch(), 'out.log');
    const fd = openSync(file, 'w');
    const sink = new DescriptorSink(fd);
    sink.write('{"msg":"Zoë at the café"}\n');
    sink.write('{"msg":"plain"}\n');
    closeSync(fd);
    expect(readFileSync(file, 'utf8')).toBe('{"msg":"Zoë at the café"}\n{"msg":"plain"}\n');
  });

  it('finishes a partial write and waits out a full pipe, losing nothing', async () => {
    // A non-blocking pipe whose reader starts late: the first write fills it (64 KiB go), the next ones meet EAGAIN
    // until the reader drains it.
    const dir = scratch();
    const fifo = path.join(dir, 'fifo');
    const out = path.join(dir, 'out.log');
    execFileSync('mkfifo', [fifo]);
    const idleReader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    // The reader opens the pipe at once and reads after 0.3 s.
    const reader = spawn('sh', ['-c', `exec 3< '${fifo}'; sleep 0.3; cat <&3 > '${out}'`], { stdio: 'ignore' });
    const exited = new Promise((resolve) => reader.once('exit', resolve));
    const attempts: number[] = [];
    let failures = 0;
    const sink = new DescriptorSink(writer, (fd, data) => {
      attempts.push(typeof data === 'string' ? Buffer.byteLength(data) : data.length);
      try {
        return writeToDescriptor(fd, data);
      } catch (error) {
        failures++;
        throw error;
      }
    });
    const batch = `${'{"msg":"é"}\n'.repeat(40_000)}`;
    try {
      sink.write(batch);
    } finally {
      closeSync(writer);
      closeSync(idleReader);
    }
    await exited;
    expect(readFileSync(out, 'utf8')).toBe(batch);
    expect(failures).toBeGreaterThan(0); // EAGAIN met and waited out
    expect(attempts[1]).toBeLessThan(attempts[0]!); // the rest of a partial write, not the batch again
  });

  it('drops a batch the descriptor refuses for good instead of throwing into the request', () => {
    const sink = new DescriptorSink(1, () => {
      throw Object.assign(new Error('broken pipe'), { code: 'EPIPE' });
    });
    expect(() => sink.write('line\n')).not.toThrow();
  });
});

describe('LogFanOut', () => {
  it('hands every line to every sink, in order', () => {
    const first = chunkSink();
    const second = chunkSink();
    const fanOut = new LogFanOut([first, second]);
    fanOut.write('one\n');
    fanOut.write('two\n');
    expect(first.chunks).toEqual(['one\n', 'two\n']);
    expect(second.chunks).toEqual(['one\n', 'two\n']);
  });
});
