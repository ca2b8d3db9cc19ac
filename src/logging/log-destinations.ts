// A log destination that gathers lines and hands them to the sink in one write every few milliseconds. Batching by
// event-loop turn (the previous design) took `GET /api/status` from 2.4 to 1.6 writes per request; under load a turn
// of a database-backed route answers only the requests whose replies came in together, so stdout still took one write
// in five requests. A short interval takes one write per a few hundred lines instead. A line
// waits at most FLUSH_INTERVAL_MS (or less, when MAX_PENDING_CHARS fill first); a process that exits (normally, by
// process.exit, or on an uncaught error) flushes what is pending first, so only a SIGKILL within that window can lose
// lines.

import { writeSync } from 'node:fs';
import { LogRing } from './log-ring.js';
import { PrettySink } from './pretty-log.js';
import type { LineSink } from './line-sink.js';

/** Past this many characters pending, the batch is written at once instead of at the end of the interval. */
export const MAX_PENDING_CHARS = 64 * 1024;
/** How long a line may wait for the lines after it. */
export const FLUSH_INTERVAL_MS = 10;

/** Calls `flush` once, FLUSH_INTERVAL_MS from now, without keeping the process alive for it (exit flushes). */
const afterInterval = (flush: () => void): void => {
  setTimeout(flush, FLUSH_INTERVAL_MS).unref();
};

export class BatchedLineStream {
  /** The batch's text, without a ring; with one, its lines are already in the ring, as bytes. */
  private pending = '';
  private pendingChars = 0;
  private scheduled = false;

  private readonly schedule: (flush: () => void) => void;
  private readonly maxPendingChars: number;
  private readonly ring: LogRing | undefined;

  /**
   * With `ring`, each line is encoded once, into the ring, when it is written, and each batch's bytes go from there
   * to the sink: a string then lives for one request, not for the batch's 10 ms, in which every scavenge copied it
   *. `schedule` and `maxPendingChars` are the tests' (a flush they run themselves, a smaller batch).
   */
  constructor(
    private readonly sink: LineSink,
    options: {
      ring?: LogRing;
      schedule?: (flush: () => void) => void;
      maxPendingChars?: number;
    } = {},
  ) {
    this.ring = options.ring;
    this.schedule = options.schedule ?? afterInterval;
    this.maxPendingChars = options.maxPendingChars ?? MAX_PENDING_CHARS;
  }

  /** pino calls this with one serialized line. */
  write(line: string): boolean {
    if (this.ring) this.ring.appendUnsent(line);
    else this.pending += line;
    this.pendingChars += line.length;
    if (this.pendingChars >= this.maxPendingChars) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      this.schedule(this.scheduledFlush);
    }
    return true;
  }

  /**
   * Writes what is pending now (on exit, and when the batch is large). `done`, when given, is called once written:
   * pino's `logger.flush(callback)` calls a destination's flush so, and waits for it.
   */
  flush(done?: () => void): void {
    if (this.pendingChars > 0) {
      this.pendingChars = 0;
      if (this.ring) {
        for (const bytes of this.ring.takeUnsent()) this.sink.write(bytes);
      } else {
        const batch = this.pending;
        this.pending = '';
        this.sink.write(batch);
      }
    }
    done?.();
  }

  private readonly scheduledFlush = (): void => {
    this.scheduled = false;
    this.flush();
  };
}

/**
 * Every line to every sink, in order. pino's multistream would route by level, which no caller needs (every sink
 * takes every level), and the metadata it asks pino for keeps the access line off its composed path (logging.ts).
 */
export class LogFanOut {
  constructor(private readonly sinks: readonly LineSink[]) {}

  write(line: string): boolean {
    for (const sink of this.sinks) sink.write(line);
    return true;
  }
}

/** Writes some of `data` to `fd`, answering how many bytes went (fs.writeSync's shape). */
export type WriteToDescriptor = (fd: number, data: string | Uint8Array) => number;

/** fs.writeSync for either kind of data (its overloads take one kind each). */
export const writeToDescriptor: WriteToDescriptor = (fd, data) =>
  typeof data === 'string' ? writeSync(fd, data) : writeSync(fd, data);

const pauseCell = new Int32Array(new SharedArrayBuffer(4));
/** Blocks the thread for `ms` (a full pipe leaves nothing else to do: the lines must not be lost). */
const pauseSync = (ms: number): void => {
  Atomics.wait(pauseCell, 0, 0, ms);
};
/** How long a write waits before trying a full pipe again. */
const FULL_PIPE_PAUSE_MS = 1;

/**
 * Each batch written to a file descriptor (stdout) at once, on the main thread. pino's SonicBoom in its synchronous
 * mode measured the batch's UTF-8 length, wrote it, then encoded it a second time to account for what went: about
 * twice the cost of the write alone, on every batch. Here a batch given as bytes (the server's: encoded
 * once, line by line, into the log ring) is written as it is; one given as text is encoded by the write, and once
 * more only when the write was partial (a non-blocking pipe nearly full), to finish from the bytes that did not go.
 * A full pipe (EAGAIN, EBUSY) is waited out, as SonicBoom did, so a slow log reader slows the server instead of
 * losing lines or growing memory; any other failure (the reader gone: EPIPE, EBADF) drops the batch, which the log
 * ring still holds, rather than failing the request that logged it.
 */
export class DescriptorSink implements LineSink {
  constructor(
    private readonly fd: number,
    private readonly writeTo: WriteToDescriptor = writeToDescriptor,
    private readonly pause: (ms: number) => void = pauseSync,
  ) {}

  write(batch: string | Uint8Array): void {
    const written = this.attempt(batch);
    if (written === undefined) return;
    const total = typeof batch === 'string' ? Buffer.byteLength(batch) : batch.length;
    if (written >= total) return;
    let rest = (typeof batch === 'string' ? Buffer.from(batch) : batch).subarray(written);
    while (rest.length > 0) {
      const more = this.attempt(rest);
      if (more === undefined) return;
      rest = rest.subarray(more);
    }
  }

  /** Bytes written (0 after waiting out a full pipe), or undefined when the batch is to be dropped. */
  private attempt(data: string | Uint8Array): number | undefined {
    try {
      return this.writeTo(this.fd, data);
    } catch (error) {
      const { code } = error as NodeJS.ErrnoException;
      if (code === 'EAGAIN' || code === 'EBUSY') {
        this.pause(FULL_PIPE_PAUSE_MS);
        return 0;
      }
      return undefined;
    }
  }
}

/**
 * The server's log destination: stdout, written in batches by the main thread, and the last lines in memory for
 * diagnostics and the support package, each line encoded once, into the ring, whose bytes stdout then takes. What is
 * pending is written when the process exits.
 */
export function serverLogDestination(pretty = false): { stdout: BatchedLineStream; recentLogs: LogRing } {
  const recentLogs = new LogRing();
  // Readable lines on stdout (LOG_FORMAT, pretty-log.ts) are made from the JSON lines the ring keeps.
  const sink = pretty ? new PrettySink(new DescriptorSink(1)) : new DescriptorSink(1);
  const stdout = new BatchedLineStream(sink, { ring: recentLogs });
  process.on('exit', () => stdout.flush());
  return { stdout, recentLogs };
}
