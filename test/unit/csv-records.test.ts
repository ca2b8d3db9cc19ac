import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCsvReader, CsvFormatError, type CsvRecord } from '../../src/browser/imports/csv-records.js';

const BOUNDS = { fieldCharsMax: 1000, fieldsMax: 100 };

function readAll(text: string, chunkSizes: number[] = [text.length || 1]): CsvRecord[] {
  const reader = createCsvReader(BOUNDS);
  const records: CsvRecord[] = [];
  let offset = 0;
  let index = 0;
  while (offset < text.length) {
    const size = Math.max(1, chunkSizes[index++ % chunkSizes.length]!);
    records.push(...reader.feed(text.slice(offset, offset + size)));
    offset += size;
  }
  return [...records, ...reader.end()];
}

describe('CSV records', () => {
  it('reads plain and quoted fields, doubled quotes, separators and line breaks inside quotes', () => {
    expect(readAll('name,age\nAda,36\n"Lovelace, Ada","say ""hi""\nthere"\n')).toEqual([
      { line: 1, fields: ['name', 'age'] },
      { line: 2, fields: ['Ada', '36'] },
      { line: 3, fields: ['Lovelace, Ada', 'say "hi"\nthere'] },
    ]);
  });

  it('takes CRLF, LF and lone CR line ends, a missing final line end, a byte-order mark, and skips blank lines', () => {
    expect(readAll('\uFEFFa,b\r\n1,2\r3,4\n\n5,')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1', '2'] },
      { line: 3, fields: ['3', '4'] },
      { line: 5, fields: ['5', ''] },
    ]);
  });

  it('keeps a quoted empty field as a record, unlike an empty line', () => {
    expect(readAll('""\n\n')).toEqual([{ line: 1, fields: [''] }]);
  });

  it('refuses malformed text with the line it is on', () => {
    expect(() => readAll('a,b\n"open\n')).toThrow(new CsvFormatError(2, 'a quoted field is not closed'));
    expect(() => readAll('a\n"x"y\n')).toThrow(/line 2: text after the closing quote/);
    expect(() => readAll('a"b"\n')).toThrow(/line 1: a quote inside an unquoted field/);
  });

  it('refuses a field or a record past its bound', () => {
    const reader = createCsvReader({ fieldCharsMax: 3, fieldsMax: 2 });
    expect(() => reader.feed('abcd')).toThrow(/longer than 3 characters/);
    expect(() => createCsvReader({ fieldCharsMax: 3, fieldsMax: 2 }).feed('a,b,c\n')).toThrow(/more than 2 fields/);
  });

  it('reads the same records whatever the chunk boundaries', () => {
    const field = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', 'b', ' ', 'é', '😀') }),
      fc.string({ unit: fc.constantFrom('a', ',', '"', '\n', '\r\n') }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.array(field, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 5 }),
        (rows, chunkSizes) => {
          const text = rows
            .map((fields) => fields.map((value) => `"${value.replaceAll('"', '""')}"`).join(','))
            .join('\n');
          expect(readAll(text, chunkSizes).map((record) => record.fields)).toEqual(rows);
        },
      ),
    );
  });
});
