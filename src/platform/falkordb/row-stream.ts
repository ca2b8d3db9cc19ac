// The rows of one streamed query reply, between the connection that reads them and the caller that takes them: a
// window of raw rows. When the window is full the connection stops reading (RowSink.full), so the reply waits in
// the sockets and in the database instead of in this process.
import type { RespValue, RowSink } from './resp-reader.js';

/** The window: reading pauses once this many bytes of rows, or this many rows, wait to be taken. */
const WINDOW_BYTES = 1024 * 1024;
const WINDOW_ROWS = 16_384;

export class RowStream implements RowSink {
  header: RespValue[] = [];
  /** The row count the reply declared. */
  count = 0;
  /** Rows beyond this many are read and dropped (a caller's row cap: the statistics come after them). */
  keep = Number.POSITIVE_INFINITY;
  private received = 0;
  private queue: RespValue[] = [];
  private queuedBytes = 0;
  private resume: (() => void) | undefined;
  private wake: (() => void) | undefined;
  private ended = false;
  private failure: { reason: unknown } | undefined;
  private onStart: (() => void) | undefined;
  /** Resolves when the reply's rows begin (never, for a reply without rows: an error, a statement). */
  readonly started = new Promise<void>((resolve) => (this.onStart = resolve));

  start(header: RespValue[], count: number): void {
    this.header = header;
    this.count = count;
    this.onStart?.();
  }

  row(row: RespValue, bytes: number): void {
    if (this.received++ >= this.keep) return;
    this.queue.push(row);
    this.queuedBytes += bytes;
    this.wakeReader();
  }

  get full(): boolean {
    return this.queuedBytes >= WINDOW_BYTES || this.queue.length >= WINDOW_ROWS;
  }

  whenDrained(resume: () => void): void {
    this.resume = resume;
  }

  /** Every row has arrived. */
  end(): void {
    this.ended = true;
    this.wakeReader();
  }

  /** The reply will not complete: the next take fails with `reason`. */
  fail(reason: unknown): void {
    this.failure ??= { reason };
    this.wakeReader();
  }

  get done(): boolean {
    return this.ended || this.failure !== undefined;
  }

  /** The rows that arrived since the last take (waiting for one); undefined once all were taken. */
  async take(): Promise<RespValue[] | undefined> {
    for (;;) {
      if (this.failure) throw this.failure.reason;
      if (this.queue.length > 0) {
        const rows = this.queue;
        this.queue = [];
        this.queuedBytes = 0;
        const resume = this.resume;
        this.resume = undefined;
        resume?.();
        return rows;
      }
      if (this.ended) return undefined;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private wakeReader(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
