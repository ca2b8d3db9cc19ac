// The bounded RESP reader of the query connections: replies decoded whatever the chunking, and a reply past its
// bound refused at the first byte that proves it.
import fc from 'fast-check';
import { ErrorReply } from 'redis';
import { describe, expect, it } from 'vitest';
import {
  encodeCommand,
  encodeCommands,
  ReplyTooLargeError,
  RespProtocolError,
  RespReader,
  type ReplyBounds,
  type RespValue,
  type RowSink,
} from '../../src/platform/falkordb/resp-reader.js';

/** RESP2 as a server writes it; integers are the digit strings the reader hands back. */
function wire(value: RespValue | number): string {
  if (value === null) return '$-1\r\n';
  if (typeof value === 'number') return `:${value}\r\n`;
  if (value instanceof ErrorReply) return `-${value.message}\r\n`;
  if (Array.isArray(value)) return `*${value.length}\r\n${value.map(wire).join('')}`;
  return `$${Buffer.byteLength(value)}\r\n${value}\r\n`;
}

function readAll(bytes: Buffer, chunkSizes: number[], bounds: ReplyBounds = { maxBytes: 1 << 30 }): RespValue[] {
  const replies: RespValue[] = [];
  const reader = new RespReader(
    () => bounds,
    (value) => replies.push(value),
  );
  let offset = 0;
  let turn = 0;
  while (offset < bytes.length) {
    const size = Math.max(1, chunkSizes[turn++ % Math.max(1, chunkSizes.length)] ?? bytes.length);
    reader.feed(bytes.subarray(offset, offset + size));
    offset += size;
  }
  return replies;
}

const resp = (text: string) => Buffer.from(text, 'utf8');

describe('RespReader decoding', () => {
  it('decodes strings, integers (as digit strings), nulls, nested arrays and error replies', () => {
    const bytes = resp(
      '+OK\r\n:-42\r\n$-1\r\n*-1\r\n$0\r\n\r\n*0\r\n*2\r\n*1\r\n$3\r\nhé\r\n-ERR nested\r\n-WRONGTYPE top\r\n',
    );
    const replies = readAll(bytes, [bytes.length]);
    expect(replies.slice(0, 7)).toEqual(['OK', '-42', null, null, '', [], [['hé'], new ErrorReply('ERR nested')]]);
    expect(replies[7]).toBeInstanceOf(ErrorReply);
    expect((replies[7] as ErrorReply).message).toBe('WRONGTYPE top');
  });

  it('leaves each reply as it was read while the next ones are read (the reader reuses its array frames)', () => {
    const replies: RespValue[] = [];
    const reader = new RespReader(
      () => ({ maxBytes: 1 << 20 }),
      (value) => replies.push(value),
    );
    const first: RespValue = [['a', ['b', 'c']], ['d']];
    reader.feed(resp(wire(first)));
    const snapshot = structuredClone(replies[0]);
    const others: RespValue[] = [[['x'], ['y', 'z', ['w']]], [], ['1', ['2', ['3', ['4']]]]];
    for (const other of others) reader.feed(resp(wire(other)));
    expect(replies).toEqual([first, ...others]);
    expect(replies[0]).toEqual(snapshot);
    expect(replies[0]).not.toBe(replies[1]);
  });

  it('keeps no more than a bounded number of frames after a deeply nested reply', () => {
    const replies: RespValue[] = [];
    const reader = new RespReader(
      () => ({ maxBytes: 1 << 20 }),
      (value) => replies.push(value),
    );
    const depth = 10_000;
    reader.feed(resp(`${'*1\r\n'.repeat(depth)}:7\r\n`));
    let value = replies[0];
    for (let level = 0; level < depth; level++) value = (value as RespValue[])[0];
    expect(value).toBe('7');
    // A private field read on purpose: what the reader keeps between replies is the point of the test.
    expect((reader as unknown as { frames: unknown[] }).frames.length).toBeLessThanOrEqual(64);
    reader.feed(resp(wire(['after'])));
    expect(replies[1]).toEqual(['after']);
  });

  it('gives the same replies whatever the chunk boundaries (a multi-byte character split included)', () => {
    const value: RespValue = [['1', 'zwölf 🙂', null], [], ['x'.repeat(70_000)], 'done'];
    const bytes = resp(wire(value) + wire('second'));
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 9000 }), { minLength: 1, maxLength: 20 }), (sizes) => {
        expect(readAll(bytes, sizes)).toEqual([value, 'second']);
      }),
      { numRuns: 60 },
    );
    expect(readAll(bytes, [1])).toEqual([value, 'second']);
  });

  it('asks for the bounds of each reply when its first byte arrives', () => {
    const asked: number[] = [];
    let count = 0;
    const reader = new RespReader(
      () => {
        asked.push(++count);
        return { maxBytes: 100 };
      },
      () => undefined,
    );
    reader.feed(resp(':1\r\n:2'));
    reader.feed(resp('\r\n+x\r\n'));
    expect(asked).toEqual([1, 2, 3]);
  });

  it('encodes commands as arrays of bulk strings, Buffers byte for byte', () => {
    expect(encodeCommand(['GRAPH.QUERY', 'g', 'RETURN "é"']).toString('utf8')).toBe(
      '*3\r\n$11\r\nGRAPH.QUERY\r\n$1\r\ng\r\n$11\r\nRETURN "é"\r\n',
    );
    expect(encodeCommand([Buffer.from([0, 255])])).toEqual(Buffer.from('*1\r\n$2\r\n\u0000\u00ff\r\n', 'latin1'));
  });

  it('encodes a batch as one text when every argument is text, with byte lengths, and as bytes otherwise', () => {
    const batch = [
      ['EXISTS', 'g'],
      ['GRAPH.QUERY', 'g', 'RETURN "é😀"', '--compact'],
    ];
    const text = encodeCommands(batch);
    expect(typeof text).toBe('string');
    expect(Buffer.from(text as string, 'utf8')).toEqual(Buffer.concat(batch.map((args) => encodeCommand(args))));
    const withBytes = [['PING'], ['RESTORE', 'g', '0', Buffer.from([0, 255, 10])]];
    const bytes = encodeCommands(withBytes);
    expect(Buffer.isBuffer(bytes)).toBe(true);
    expect(bytes).toEqual(Buffer.concat(withBytes.map((args) => encodeCommand(args))));
  });
});

describe('RespReader bounds', () => {
  const query = (rows: number) => resp(`*3\r\n*1\r\n*2\r\n:1\r\n$1\r\nx\r\n*${rows}\r\n`);

  it('refuses a compact reply by its row count as soon as the rows header arrives, before any row', () => {
    expect(() => readAll(query(101), [], { maxBytes: 1 << 30, maxRows: 100 })).toThrow(
      new ReplyTooLargeError('rows', 100),
    );
    const exactly = resp(`*3\r\n*0\r\n*2\r\n:1\r\n:2\r\n*0\r\n`);
    expect(readAll(exactly, [], { maxBytes: 1000, maxRows: 2 })).toEqual([[[], ['1', '2'], []]]);
  });

  it('applies the row bound to the rows only, not to the header or statistics', () => {
    const reply = resp(`*3\r\n*3\r\n:1\r\n:2\r\n:3\r\n*1\r\n*0\r\n*4\r\n+a\r\n+b\r\n+c\r\n+d\r\n`);
    expect(readAll(reply, [], { maxBytes: 1000, maxRows: 1 })).toEqual([[['1', '2', '3'], [[]], ['a', 'b', 'c', 'd']]]);
  });

  it('refuses a bulk string by its declared length, before waiting for its bytes', () => {
    const reader = new RespReader(
      () => ({ maxBytes: 1000 }),
      () => undefined,
    );
    expect(() => reader.feed(resp('*1\r\n$1000000000\r\n'))).toThrow(new ReplyTooLargeError('bytes', 1000));
  });

  it('refuses an array whose declared length cannot fit, and a reply that grows past the bound', () => {
    expect(() => readAll(resp('*2000000000\r\n'), [], { maxBytes: 4096 })).toThrow(ReplyTooLargeError);
    const many = resp(`*400\r\n${':1\r\n'.repeat(400)}`);
    expect(() => readAll(many, [64], { maxBytes: 1000 })).toThrow(new ReplyTooLargeError('bytes', 1000));
    expect(readAll(many, [64], { maxBytes: 1606 })).toHaveLength(1);
  });

  it('refuses bytes that are held while an element is incomplete', () => {
    const reader = new RespReader(
      () => ({ maxBytes: 50 }),
      () => undefined,
    );
    expect(() => reader.feed(resp(`+${'x'.repeat(60)}`))).toThrow(new ReplyTooLargeError('bytes', 50));
  });

  it('treats a broken stream as a protocol error', () => {
    const bounds = { maxBytes: 1 << 30 };
    expect(() => readAll(resp('?what\r\n'), [], bounds)).toThrow(RespProtocolError);
    expect(() => readAll(resp('*x\r\n'), [], bounds)).toThrow(RespProtocolError);
    expect(() => readAll(resp('$3\r\nabcd\r\n'), [], bounds)).toThrow(RespProtocolError);
    expect(() => readAll(resp(`+${'x'.repeat(2 * 1024 * 1024)}`), [65536], bounds)).toThrow(RespProtocolError);
  });
});

describe('RespReader streamed rows', () => {
  /** A sink that records what it is told, in order. */
  function recordingSink() {
    const events: (string | RespValue)[] = [];
    const sink: RowSink = {
      start: (header, count) => void events.push('start', header, String(count)),
      row: (row, bytes) => void events.push(row, String(bytes)),
      full: false,
      whenDrained: () => undefined,
    };
    return { sink, events };
  }

  const header: RespValue = [['1', 'x']];
  const rows: RespValue[] = [[['3', '1']], [['3', '2']], [['2', 'zwölf']]];
  const statistics: RespValue = ['Cached execution: 0'];

  it('hands each row over once its bytes are in, before the reply ends, whatever the chunking', () => {
    const bytes = resp(wire([header, rows, statistics]) + wire('after'));
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 10 }), (sizes) => {
        const { sink, events } = recordingSink();
        const replies = readAll(bytes, sizes, { maxBytes: 1 << 20, rows: sink });
        // Each row's wire size is reported with it; the reply keeps an empty rows array.
        expect(events).toEqual([
          'start',
          header,
          '3',
          ...rows.flatMap((row) => [row, String(Buffer.byteLength(wire(row)))]),
        ]);
        expect(replies).toEqual([[header, [], statistics], 'after']);
      }),
      { numRuns: 60 },
    );
  });

  it('delivers the first row while the rest of the reply is still to come', () => {
    const { sink, events } = recordingSink();
    const replies: RespValue[] = [];
    const reader = new RespReader(
      () => ({ maxBytes: 1 << 20, rows: sink }),
      (value) => replies.push(value),
    );
    const bytes = resp(wire([header, rows, statistics]));
    const firstRowEnd = bytes.indexOf(resp(wire(rows[0]!)), wire(header).length) + wire(rows[0]!).length;
    reader.feed(bytes.subarray(0, firstRowEnd));
    expect(events).toEqual(['start', header, '3', rows[0], String(wire(rows[0]!).length)]);
    expect(replies).toEqual([]);
    expect(reader.streaming).toBe(sink);
    reader.feed(bytes.subarray(firstRowEnd));
    expect(replies).toHaveLength(1);
    expect(reader.streaming).toBeUndefined();
  });

  it('leaves replies of other shapes whole: statistics only, a version mismatch, no rows', () => {
    const { sink, events } = recordingSink();
    const mismatch: RespValue = [new ErrorReply('version mismatch'), '7'];
    const empty: RespValue = [header, [], statistics];
    const bytes = resp(wire([statistics]) + wire(mismatch) + wire(empty));
    expect(readAll(bytes, [5], { maxBytes: 1 << 20, rows: sink })).toEqual([[statistics], mismatch, empty]);
    expect(events).toEqual(['start', header, '0']);
  });

  it('still refuses more rows than allowed at the rows header, before any row is handed over', () => {
    const { sink, events } = recordingSink();
    const bytes = resp(wire([header, rows, statistics]));
    expect(() => readAll(bytes, [bytes.length], { maxBytes: 1 << 20, maxRows: 2, rows: sink })).toThrow(
      ReplyTooLargeError,
    );
    expect(events).toEqual([]);
  });
});
