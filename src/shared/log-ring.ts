// The last log lines of this server, kept in memory for diagnostics and the support package: a pino destination
// (beside stdout, through LogFanOut in log-destinations.ts) that holds at most `capacity` lines of at most
// `maxLineLength` characters. Lines arrive already serialized and hold no secret: pino's censoring (logging.ts) has
// removed them, and the access line, composed apart from it, is made only of fields that cannot carry one.

export interface LogLine {
  time?: number;
  level?: number;
  msg?: string;
  [key: string]: unknown;
}

export const LOG_RING_CAPACITY = 2000;
const MAX_LINE_LENGTH = 8192;
/** pino's level numbers. */
export const ERROR_LEVEL = 50;

export class LogRing {
  private readonly lines: string[] = [];
  private next = 0;

  constructor(
    readonly capacity = LOG_RING_CAPACITY,
    private readonly maxLineLength = MAX_LINE_LENGTH,
  ) {}

  /**
   * pino calls this with one serialized line (newline included). The line is kept as it came: its newline is cut
   * when the ring is read, which is rare, rather than on every line logged (issue 25).
   */
  write(chunk: string | Buffer): void {
    const whole = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    const line =
      whole.length > this.maxLineLength && withoutNewline(whole).length > this.maxLineLength
        ? JSON.stringify({ truncated: true, start: whole.slice(0, this.maxLineLength) })
        : whole;
    if (this.lines.length < this.capacity) this.lines.push(line);
    else this.lines[this.next] = line;
    this.next = (this.next + 1) % this.capacity;
  }

  /** The last `count` lines as written, oldest first. */
  tail(count = this.capacity): string[] {
    const ordered =
      this.lines.length < this.capacity
        ? this.lines
        : [...this.lines.slice(this.next), ...this.lines.slice(0, this.next)];
    return count <= 0 ? [] : ordered.slice(-count).map(withoutNewline);
  }

  /** The last `count` lines parsed (lines that are not JSON are skipped), oldest first. */
  parsed(count = this.capacity): LogLine[] {
    return this.tail(count).flatMap((line) => {
      try {
        const value = JSON.parse(line) as LogLine | null;
        return value && typeof value === 'object' ? [value] : [];
      } catch {
        return [];
      }
    });
  }
}

const withoutNewline = (line: string): string => (line.endsWith('\n') ? line.slice(0, -1) : line);
