// The last log lines of this server, kept in memory for diagnostics and the support package: fed the batches stdout
// gets (log-destinations.ts), or used as a pino destination of its own, it holds at least the last `capacity` lines
// and answers at most that many, each cut to `maxLineLength` characters. Lines arrive already serialized and hold no secret: pino's censoring (logging.ts) has
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

/**
 * Bytes of one block: several of stdout's batches (written at 64 Ki characters, MAX_PENDING_CHARS, a line past it
 * included), so that under load a batch lands in a block the ring reuses rather than in one made for it.
 */
const BLOCK_BYTES = 256 * 1024;
/** A UTF-16 code unit takes at most three bytes in UTF-8 (a surrogate pair, two units, takes four). */
const MAX_BYTES_PER_UNIT = 3;

interface Block {
  bytes: Buffer;
  used: number;
  lines: number;
}

/**
 * The lines are kept as UTF-8 bytes in a few blocks outside V8's heap, reused as the oldest block falls out, not as
 * strings. A ring of 2000 strings, each a tree of the pieces the access line was composed of, lived just long enough
 * (tens of milliseconds under load) for every line to be copied by each scavenge and promoted to the old generation,
 * where only a full collection frees it: without the ring, an admin read's p99 fell from about 3 ms to 1.4 ms
 * (issue 25). The server's lines now cost one UTF-8 encoding per stdout batch, whose bytes both stdout and the ring
 * take, and leave no object behind.
 */
export class LogRing {
  private readonly blocks: Block[] = [];
  private lineCount = 0;
  private heldBytes = 0;
  private spare: Block | undefined;

  constructor(
    readonly capacity = LOG_RING_CAPACITY,
    private readonly maxLineLength = MAX_LINE_LENGTH,
  ) {}

  /**
   * pino calls this with one serialized line (newline included), when the ring is a destination of its own (the
   * tests' loggers; the server's stdout batches hand theirs to `append`). A line past `maxLineLength` characters is
   * kept as `{"truncated":true,"start":…}`; a chunk without a final newline gets one. (pino's lines hold no other
   * newline: JSON escapes them. A chunk that did would read back as several lines.)
   */
  write(chunk: string | Buffer): void {
    const whole = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    const line = this.cut(withoutNewline(whole));
    this.append(`${line}\n`, 1);
  }

  /**
   * Keeps `text`, `lines` whole lines each ending with a newline (a batch of them, as stdout gets it: encoded once
   * for both), and answers the bytes it was stored as. They stay valid until the next call, for the caller to write
   * elsewhere at once. Long lines are cut when read (`tail`).
   */
  append(text: string, lines: number): Buffer {
    let block = this.blocks.at(-1);
    const room = block === undefined ? 0 : block.bytes.length - block.used;
    // Measured only when the text might not fit: a batch is usually far shorter than what is left of its block.
    if (block === undefined || room < text.length * MAX_BYTES_PER_UNIT) {
      const needed = Buffer.byteLength(text);
      if (block === undefined || room < needed) block = this.nextBlock(needed);
    }
    const start = block.used;
    block.used += block.bytes.write(text, start);
    block.lines += lines;
    this.lineCount += lines;
    // The oldest block goes once the others hold `capacity` lines, or the ring's byte bound, without it.
    const maxBytes = this.capacity * this.maxLineLength;
    for (;;) {
      const oldest = this.blocks[0]!;
      if (
        this.blocks.length === 1 ||
        (this.lineCount - oldest.lines < this.capacity && this.heldBytes - oldest.bytes.length < maxBytes)
      )
        break;
      this.blocks.shift();
      this.lineCount -= oldest.lines;
      this.heldBytes -= oldest.bytes.length;
      if (oldest.bytes.length === BLOCK_BYTES) this.spare = oldest;
    }
    return block.bytes.subarray(start, block.used);
  }

  /** A block for at least `bytes`: the spare one when it is large enough, else a new one (larger than usual if need be). */
  private nextBlock(bytes: number): Block {
    let block = this.spare;
    if (block === undefined || block.bytes.length < bytes)
      block = { bytes: Buffer.allocUnsafe(Math.max(BLOCK_BYTES, bytes)), used: 0, lines: 0 };
    else this.spare = undefined;
    block.used = 0;
    block.lines = 0;
    this.blocks.push(block);
    this.heldBytes += block.bytes.length;
    return block;
  }

  private cut(line: string): string {
    return line.length > this.maxLineLength
      ? JSON.stringify({ truncated: true, start: line.slice(0, this.maxLineLength) })
      : line;
  }

  /** The last `count` lines (at most `capacity`) as written, without their newlines, oldest first. */
  tail(count = this.capacity): string[] {
    const wanted = Math.min(count, this.capacity);
    if (wanted <= 0) return [];
    const text = this.blocks.map((block) => block.bytes.toString('utf8', 0, block.used)).join('');
    const lines = text.split('\n');
    // The text ends with a newline: the last element is empty.
    lines.pop();
    return lines.slice(-wanted).map((line) => this.cut(line));
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
