// An incremental reader of RESP2 replies that enforces each reply's bounds while its bytes arrive. A reply past its
// bound is refused at the first byte that proves it (often its array header), so a hostile or misconfigured server
// cannot make this process hold a reply of any size before the size is checked.
import { ErrorReply } from '@redis/client';
import { PortError } from '../port-errors.js';

export interface ReplyBounds {
  /** Raw bytes of the whole reply. */
  maxBytes: number;
  /** Elements of the root array's second element: the rows of a compact GRAPH.QUERY reply. */
  maxRows?: number;
  /**
   * Receives the rows of a compact GRAPH.QUERY reply (`[header, rows, statistics]`) one by one as their bytes
   * arrive, instead of their being kept in the reply: the reply then holds an empty rows array.
   */
  rows?: RowSink;
}

/** Where streamed rows go (see ReplyBounds.rows). */
export interface RowSink {
  /** The reply's header (its first element) and the number of rows declared, before the first row. */
  start(header: RespValue[], count: number): void;
  /** One row, once its last byte has arrived; `bytes` is its size on the wire. */
  row(row: RespValue, bytes: number): void;
  /** True while the sink holds as many rows as it should: the connection stops reading until `whenDrained`. */
  readonly full: boolean;
  /** Calls `resume` once (the next time the sink's rows are taken). */
  whenDrained(resume: () => void): void;
}

/** A reply past its bounds; its connection is dropped with the rest of the reply unread. */
export class ReplyTooLargeError extends PortError {
  constructor(
    readonly bound: 'bytes' | 'rows',
    readonly limit: number,
  ) {
    super(
      'rejected',
      bound === 'rows' ? `the reply has more than ${limit} rows` : `the reply is larger than ${limit} bytes`,
      { rejectedBy: 'bounds' },
    );
    this.name = 'ReplyTooLargeError';
  }
}

/** The server broke the protocol: nothing after this point on the connection can be trusted. */
export class RespProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RespProtocolError';
  }
}

/** Strings, integers (as strings, so no digit is lost), nulls, arrays, and error replies nested in arrays. */
export type RespValue = string | null | ErrorReply | RespValue[];

interface ArrayFrame {
  items: RespValue[];
  length: number;
  filled: number;
  /** The rows array of a streamed reply: its elements go to the sink, from the reply byte count `rowStart` on. */
  sink: RowSink | undefined;
  rowStart: number;
}

/**
 * Arrays up to this length are allocated at their size (an empty array grown by push reserves more than a short
 * row needs, for each of a result's many rows); longer ones grow as elements arrive, so a declared length cannot
 * make the reader reserve memory before the bytes that justify it.
 */
const PREALLOCATED_MAX = 65_536;

/** Status, error and integer lines are short; a longer one is a broken or hostile server. */
const LINE_MAX_BYTES = 1024 * 1024;
/** The smallest element on the wire (`+\r\n`): an array of n elements needs at least 3n more bytes. */
const ELEMENT_MIN_BYTES = 3;
const CR = 13;
const LF = 10;

/** Frames kept between replies: deeper than any compact result nests in practice. */
const FRAMES_KEPT = 64;

/** What an idle frame holds: nothing of the last reply. */
const NO_ITEMS: RespValue[] = [];

/** Where an element starts, what it needs before it can be parsed, or the offset after it once parsed. */
const INCOMPLETE = -1;

export class RespReader {
  /** Bytes of an element that has not fully arrived, from its first byte on. */
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** How many held bytes the element needs before parsing it again can succeed (0: any more). */
  private needed = 0;
  /**
   * The arrays being filled, outermost first: `frames[0 … depth - 1]`. Frames are reused from reply to reply (a
   * small query's reply opens about 75 arrays: a new frame for each was about half of what the reader allocated).
   * At most FRAMES_KEPT stay between replies, so one deeply nested reply does not leave its depth in frames behind.
   */
  private readonly frames: ArrayFrame[] = [];
  private depth = 0;
  private bounds: ReplyBounds | undefined;
  private replyBytes = 0;
  /** The sink of the reply whose rows are being read, while they are. */
  streaming: RowSink | undefined;

  /**
   * `boundsOfNext` is asked when a reply's first byte arrives; `onReply` receives each complete reply in order (an
   * error reply at the top level as an `ErrorReply` value).
   */
  constructor(
    private readonly boundsOfNext: () => ReplyBounds,
    private readonly onReply: (value: RespValue) => void,
  ) {}

  /** Reads a chunk. Throws ReplyTooLargeError or RespProtocolError; the reader is unusable afterwards. */
  feed(chunk: Buffer): void {
    let buffer = chunk;
    if (this.heldBytes > 0) {
      this.held.push(chunk);
      this.heldBytes += chunk.length;
      if (this.heldBytes < this.needed) return this.checkHeld();
      buffer = Buffer.concat(this.held, this.heldBytes);
      this.held = [];
      this.heldBytes = 0;
    }
    let offset = 0;
    while (offset < buffer.length) {
      const next = this.parseElement(buffer, offset);
      if (next === INCOMPLETE) break;
      offset = next;
    }
    if (offset < buffer.length) {
      this.held = [buffer.subarray(offset)];
      this.heldBytes = buffer.length - offset;
      this.checkHeld();
    }
  }

  private checkHeld(): void {
    if (this.bounds && this.replyBytes + this.heldBytes > this.bounds.maxBytes)
      throw new ReplyTooLargeError('bytes', this.bounds.maxBytes);
    if (this.needed === 0 && this.heldBytes > LINE_MAX_BYTES)
      throw new RespProtocolError('a reply line is longer than any the database sends');
  }

  /** Counts `bytes` more of the current reply against its bound. */
  private spend(bytes: number): void {
    this.replyBytes += bytes;
    if (this.replyBytes > this.bounds!.maxBytes) throw new ReplyTooLargeError('bytes', this.bounds!.maxBytes);
  }

  private parseElement(buffer: Buffer, start: number): number {
    if (this.depth === 0 && this.bounds === undefined) {
      this.bounds = this.boundsOfNext();
      this.replyBytes = 0;
    }
    // Lines are short: a loop here is cheaper than a native indexOf call per element.
    let lineEnd = start + 1;
    while (lineEnd < buffer.length && buffer[lineEnd] !== CR) lineEnd++;
    if (lineEnd + 1 >= buffer.length) {
      this.needed = 0;
      return INCOMPLETE;
    }
    if (buffer[lineEnd + 1] !== LF) throw new RespProtocolError('a reply line does not end with CRLF');
    const afterLine = lineEnd + 2;
    switch (buffer[start]!) {
      case 0x24 /* $ bulk string */: {
        const length = parseLength(buffer, start + 1, lineEnd);
        if (length === -1) {
          this.spend(afterLine - start);
          this.complete(null);
          return afterLine;
        }
        const end = afterLine + length;
        // Checked before waiting for the bytes, so a huge declared string is refused without reading it.
        if (this.replyBytes + (end + 2 - start) > this.bounds!.maxBytes)
          throw new ReplyTooLargeError('bytes', this.bounds!.maxBytes);
        if (end + 2 > buffer.length) {
          this.needed = end + 2 - start;
          return INCOMPLETE;
        }
        if (buffer[end] !== CR || buffer[end + 1] !== LF) throw new RespProtocolError('a bulk string overruns');
        this.spend(end + 2 - start);
        this.complete(buffer.toString('utf8', afterLine, end));
        return end + 2;
      }
      case 0x2a /* * array */: {
        const length = parseLength(buffer, start + 1, lineEnd);
        this.spend(afterLine - start);
        if (length === -1) {
          this.complete(null);
          return afterLine;
        }
        const root = this.frames[0];
        const { maxRows, maxBytes } = this.bounds!;
        if (maxRows !== undefined && this.depth === 1 && root!.filled === 1 && length > maxRows)
          throw new ReplyTooLargeError('rows', maxRows);
        if (this.replyBytes + length * ELEMENT_MIN_BYTES > maxBytes) throw new ReplyTooLargeError('bytes', maxBytes);
        const sink = this.bounds!.rows;
        if (sink && this.depth === 1 && root!.filled === 1 && root!.length === 3) {
          // The rows of a result set: handed over one by one, so the reply never holds them.
          sink.start(root!.items[0] as RespValue[], length);
          if (length === 0) this.complete([]);
          else {
            this.streaming = sink;
            this.open([], length, sink, this.replyBytes);
          }
          return afterLine;
        }
        if (length === 0) this.complete([]);
        else this.open(length <= PREALLOCATED_MAX ? new Array<RespValue>(length) : [], length);
        return afterLine;
      }
      case 0x3a /* : integer */:
        this.spend(afterLine - start);
        this.complete(integerText(buffer, start + 1, lineEnd));
        return afterLine;
      case 0x2b /* + simple string */:
        this.spend(afterLine - start);
        this.complete(buffer.toString('latin1', start + 1, lineEnd));
        return afterLine;
      case 0x2d /* - error */:
        this.spend(afterLine - start);
        this.complete(new ErrorReply(buffer.toString('utf8', start + 1, lineEnd)));
        return afterLine;
      default:
        throw new RespProtocolError(`unexpected reply type byte ${buffer[start]}`);
    }
  }

  /**
   * Starts filling an array, in a frame left by an earlier one when there is one. Every frame has the same fields
   * (sink and rowStart unused outside streamed rows): one shape keeps the hot loop monomorphic.
   */
  private open(items: RespValue[], length: number, sink?: RowSink, rowStart = 0): void {
    const frame = this.frames[this.depth];
    if (frame === undefined) this.frames.push({ items, length, filled: 0, sink, rowStart });
    else {
      frame.items = items;
      frame.length = length;
      frame.filled = 0;
      frame.sink = sink;
      frame.rowStart = rowStart;
    }
    this.depth++;
  }

  /** Places a finished value in its array, closing every array it completes; a finished root is a reply. */
  private complete(value: RespValue): void {
    let finished = value;
    for (;;) {
      if (this.depth === 0) break;
      const top = this.frames[this.depth - 1]!;
      if (top.sink) {
        top.filled++;
        top.sink.row(finished, this.replyBytes - top.rowStart);
        top.rowStart = this.replyBytes;
      } else top.items[top.filled++] = finished;
      if (top.filled < top.length) return;
      this.depth--;
      if (top.sink) this.streaming = undefined;
      finished = top.items;
      // The frame is kept for the next array; it must not keep this one's values alive.
      top.items = NO_ITEMS;
      top.sink = undefined;
    }
    this.bounds = undefined;
    if (this.frames.length > FRAMES_KEPT) this.frames.length = FRAMES_KEPT;
    this.onReply(finished);
  }
}

/** Small integers (type tags, ids, counts) are most of a compact reply: their text is made once. */
const SMALL_INTEGERS = Array.from({ length: 1024 }, (_, value) => String(value));

/** An integer line's digits as text (every digit kept, whatever its size), without a native call when short. */
function integerText(buffer: Buffer, from: number, to: number): string {
  const length = to - from;
  if (length > 0 && length <= 15) {
    let value = 0;
    let index = from;
    const negative = buffer[from] === 0x2d;
    if (negative) index++;
    for (; index < to; index++) {
      const digit = buffer[index]! - 0x30;
      if (digit < 0 || digit > 9) return buffer.toString('latin1', from, to);
      value = value * 10 + digit;
    }
    if (index > from + (negative ? 1 : 0)) {
      if (!negative && value < SMALL_INTEGERS.length) return SMALL_INTEGERS[value]!;
      return String(negative ? -value : value);
    }
  }
  return buffer.toString('latin1', from, to);
}

/** A decimal length from a `$` or `*` line: -1 (null) or a non-negative integer. */
function parseLength(buffer: Buffer, from: number, to: number): number {
  if (to - from === 2 && buffer[from] === 0x2d && buffer[from + 1] === 0x31) return -1;
  if (to === from || to - from > 15) throw new RespProtocolError('a reply length is not a number');
  let value = 0;
  for (let index = from; index < to; index++) {
    const digit = buffer[index]! - 0x30;
    if (digit < 0 || digit > 9) throw new RespProtocolError('a reply length is not a number');
    value = value * 10 + digit;
  }
  return value;
}

/** Encodes a command as a RESP array of bulk strings. */
export function encodeCommand(args: readonly (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`, 'latin1')];
  for (const arg of args) {
    const bytes = typeof arg === 'string' ? Buffer.from(arg, 'utf8') : arg;
    parts.push(Buffer.from(`$${bytes.length}\r\n`, 'latin1'), bytes, CRLF);
  }
  return Buffer.concat(parts);
}

const CRLF = Buffer.from('\r\n', 'latin1');

/**
 * Commands as one piece for one write: text when every argument is text (the socket encodes it once, with no
 * Buffer per argument and no concatenation), bytes when one is a Buffer (a DUMP payload).
 */
export function encodeCommands(commands: readonly (readonly (string | Buffer)[])[]): string | Buffer {
  let text = '';
  for (const args of commands) {
    text += `*${args.length}\r\n`;
    for (const arg of args) {
      if (typeof arg !== 'string') return Buffer.concat(commands.map(encodeCommand));
      text += `$${Buffer.byteLength(arg, 'utf8')}\r\n${arg}\r\n`;
    }
  }
  return text;
}
