// The last log lines of this server, kept in memory for diagnostics and the support package: fed each line stdout
// gets (log-destinations.ts), or used as a pino destination of its own, it holds at least the last `capacity` lines
// and answers at most that many, each cut to `maxLineLength` characters. Lines arrive already serialized and hold no
// secret: pino's censoring (logging.ts) has removed them, and the access line, composed apart from it, is made only
// of fields that cannot carry one.

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
/** The most bytes one character takes in UTF-8 (a surrogate pair). */
const MAX_BYTES_PER_CHARACTER = 4;

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
 *. The server's lines now cost one UTF-8 encoding each, made as the line is written (appendUnsent), whose
 * bytes both the ring and stdout take, and leave no object behind.
 */
export class LogRing {
  private readonly blocks: Block[] = [];
  private lineCount = 0;
  private heldBytes = 0;
  private spare: Block | undefined;
  /** What appendUnsent kept since takeUnsent last answered, per block. */
  private readonly unsent: { block: Block; start: number; end: number }[] = [];

  constructor(
    readonly capacity = LOG_RING_CAPACITY,
    private readonly maxLineLength = MAX_LINE_LENGTH,
  ) {}

  /**
   * pino calls this with one serialized line (newline included), when the ring is a destination of its own (the
   * tests' loggers; the server's stdout hands it each line through `appendUnsent`). A line past `maxLineLength`
   * characters is kept as `{"truncated":true,"start":…}`; a chunk without a final newline gets one. (pino's lines hold
   * no other newline: JSON escapes them. A chunk that did would read back as several lines.)
   */
  write(chunk: string | Buffer): void {
    const whole = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    const line = this.cut(withoutNewline(whole));
    this.append(`${line}\n`, 1);
  }

  /** Keeps `text`, `lines` whole lines each ending with a newline. Long lines are cut when read (`tail`). */
  append(text: string, lines: number): void {
    this.store(text, lines);
  }

  /**
   * Keeps one line (newline included), as `append`, and counts its bytes among those `takeUnsent` answers next: a
   * stream that sends the ring's bytes on (BatchedLineStream) encodes each line once, when it is written, while its
   * strings are young, instead of holding them until its batch is written. A ring fed so is fed only so.
   */
  appendUnsent(line: string): void {
    const { block, start } = this.store(line, 1);
    const newest = this.unsent.at(-1);
    if (newest !== undefined && newest.block === block && newest.end === start) newest.end = block.used;
    else this.unsent.push({ block, start, end: block.used });
  }

  /**
   * The bytes kept by `appendUnsent` since the last call, in order: one view per block they lie in (usually one).
   * They stay valid until the next append.
   */
  takeUnsent(): Buffer[] {
    const views = this.unsent.map(({ block, start, end }) => block.bytes.subarray(start, end));
    this.unsent.length = 0;
    return views;
  }

  /** Writes `text` into the newest block, or a new one when it does not fit, and lets the oldest go past the bounds. */
  private store(text: string, lines: number): { block: Block; start: number } {
    let block = this.blocks.at(-1);
    let start = block?.used ?? 0;
    // One pass in the usual case: write, and measure the text only when the block may have been too short for it.
    // Buffer.write stops only before a character that does not fit (at most 4 bytes), so 4 bytes of room left
    // after it mean the whole text went.
    let written = block === undefined ? -1 : block.bytes.write(text, start);
    if (block !== undefined && block.bytes.length - start - written < MAX_BYTES_PER_CHARACTER) {
      if (written !== Buffer.byteLength(text)) written = -1;
    }
    if (block === undefined || written < 0) {
      block = this.nextBlock(Buffer.byteLength(text));
      start = 0;
      written = block.bytes.write(text, 0);
    }
    block.used += written;
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
      // A block whose bytes are still to be sent is not reused: its views must read what was written.
      if (oldest.bytes.length === BLOCK_BYTES && !this.unsent.some((range) => range.block === oldest))
        this.spare = oldest;
    }
    return { block, start };
  }

  /** A block for at least `bytes`: the spare one when large enough, else a new one (larger than usual if need be). */
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
