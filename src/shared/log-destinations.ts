// A log destination that gathers the lines written during one turn of the event loop and hands them to the sink in
// one write when the turn ends. Under load one turn answers several requests: `GET /api/status` went from 2.4 to 1.6
// writes per request, and from 70–76% to 76–81% of its composed limit in alternating runs (issue 25). A line waits
// at most until the end of the turn in which it was logged (the check phase, right after the I/O callbacks that
// produced it); a process that exits (normally, by process.exit, or on an uncaught error) flushes what is pending
// first, so only a SIGKILL within that window of microseconds can lose lines.

/** Where the batches go: a synchronous destination (pino's SonicBoom with `sync: true` retries a full pipe). */
export interface LineSink {
  write(chunk: string): unknown;
}

/** Past this many characters pending, the batch is written at once instead of at the end of the turn. */
export const MAX_PENDING_CHARS = 64 * 1024;

export class TurnBatchedStream {
  private pending = '';
  private scheduled = false;

  constructor(
    private readonly sink: LineSink,
    private readonly schedule: (flush: () => void) => void = (flush) => setImmediate(flush),
    private readonly maxPendingChars = MAX_PENDING_CHARS,
  ) {}

  /** pino calls this with one serialized line. */
  write(line: string): boolean {
    this.pending += line;
    if (this.pending.length >= this.maxPendingChars) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      this.schedule(this.endOfTurn);
    }
    return true;
  }

  /** Writes what is pending now (on exit, and when the batch is large). */
  flush(): void {
    if (this.pending === '') return;
    const batch = this.pending;
    this.pending = '';
    this.sink.write(batch);
  }

  private readonly endOfTurn = (): void => {
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
