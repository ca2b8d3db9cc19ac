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

/** Bytes of one block of lines: room for a couple of hundred access lines, and for any line the ring keeps whole. */
const BLOCK_BYTES = 64 * 1024;
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
 * (issue 25). A line now costs one UTF-8 encoding into its block and leaves no object behind.
 */
export class LogRing {
  private readonly blocks: Block[] = [];
  private lineCount = 0;
  private spare: Block | undefined;

  constructor(
    readonly capacity = LOG_RING_CAPACITY,
    private readonly maxLineLength = MAX_LINE_LENGTH,
  ) {}

  /**
   * pino calls this with one serialized line (newline included). A line past `maxLineLength` characters is kept as
   * `{"truncated":true,"start":…}`; a chunk without a final newline gets one. (pino's lines hold no other newline:
   * JSON escapes them. A chunk that did would read back as several lines.)
   */
  write(chunk: string | Buffer): void {
    const whole = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    const line =
      whole.length > this.maxLineLength && withoutNewline(whole).length > this.maxLineLength
        ? JSON.stringify({ truncated: true, start: whole.slice(0, this.maxLineLength) })
        : whole;
    const newline = line.endsWith('\n') ? 0 : 1;
    let block = this.blocks.at(-1);
    // Measured only when the line might not fit: the usual line is far shorter than what is left of its block.
    if (
      block === undefined ||
      (BLOCK_BYTES - block.used < line.length * MAX_BYTES_PER_UNIT + newline &&
        BLOCK_BYTES - block.used < Buffer.byteLength(line) + newline)
    )
      block = this.nextBlock();
    block.used += block.bytes.write(line, block.used);
    if (newline === 1) block.bytes[block.used++] = 0x0a;
    block.lines++;
    this.lineCount++;
    // The oldest block goes once the others hold `capacity` lines without it.
    while (this.blocks.length > 1 && this.lineCount - this.blocks[0]!.lines >= this.capacity) {
      const oldest = this.blocks.shift()!;
      this.lineCount -= oldest.lines;
      this.spare = oldest;
    }
  }

  private nextBlock(): Block {
    const block = this.spare ?? { bytes: Buffer.allocUnsafe(BLOCK_BYTES), used: 0, lines: 0 };
    this.spare = undefined;
    block.used = 0;
    block.lines = 0;
    this.blocks.push(block);
    return block;
  }

  /** The last `count` lines (at most `capacity`) as written, without their newlines, oldest first. */
  tail(count = this.capacity): string[] {
    const wanted = Math.min(count, this.capacity);
    if (wanted <= 0) return [];
    const text = this.blocks.map((block) => block.bytes.toString('utf8', 0, block.used)).join('');
    const lines = text.split('\n');
    // The text ends with a newline: the last element is empty.
    lines.pop();
    return lines.slice(-wanted);
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
