// A streaming CSV reader (RFC 4180: comma-separated, fields optionally in double quotes, `""` for a quote inside
// one, CRLF or LF line ends, line breaks allowed inside quoted fields). Text arrives in chunks of any size; records
// come out as soon as they are complete, each with the line it started on, so a file is never held whole. Bounds on
// one field's size and on fields per record keep a hostile file from growing memory without end. Our own rather than
// csv-parse, which took three times the CPU per row and missed the load's speed goal: docs/decisions/csv-reader.md.

export interface CsvRecord {
  /** 1-based line of the file where the record starts. */
  line: number;
  fields: string[];
}

export interface CsvBounds {
  /** Characters one field may hold. */
  fieldCharsMax: number;
  /** Fields one record may hold. */
  fieldsMax: number;
}

export class CsvFormatError extends Error {
  constructor(
    readonly line: number,
    reason: string,
  ) {
    super(`CSV line ${line}: ${reason}`);
    this.name = 'CsvFormatError';
  }
}

const QUOTE = '"';
const COMMA = ',';
/** What ends a run of ordinary characters: outside quotes, and inside a quoted field (where CR is ordinary text). */
const FIELD_SPECIAL = '",\r\n';
const FIELD_STOP = /[",\r\n]/g;
const QUOTED_FIELD_SPECIAL = '"\n';
const QUOTED_FIELD_STOP = /["\n]/g;

export function createCsvReader(bounds: CsvBounds) {
  let field = '';
  let fields: string[] = [];
  let inQuotes = false;
  /** A quote just closed a quoted field, or opened one that may be doubled: decided by the next character. */
  let quotePending = false;
  /** The field began with a quote (so a quote later in it must be doubled or end it). */
  let quoted = false;
  let line = 1;
  let recordLine = 1;
  let pendingCarriageReturn = false;
  let started = false;
  /** The record so far is one quoted empty field (`""`): a record, unlike an empty line. */
  let quotedEmpty = false;

  /** Appends one character, or a run of ordinary ones at once. */
  const addChar = (text: string) => {
    field += text;
    if (field.length > bounds.fieldCharsMax)
      throw new CsvFormatError(recordLine, `a field is longer than ${bounds.fieldCharsMax} characters`);
  };
  const endField = () => {
    fields.push(field);
    if (fields.length > bounds.fieldsMax)
      throw new CsvFormatError(recordLine, `a record has more than ${bounds.fieldsMax} fields`);
    field = '';
    quoted = false;
  };
  const endRecord = (out: CsvRecord[]) => {
    endField();
    // An empty line is no record (a trailing newline, blank lines between records).
    if (!(fields.length === 1 && fields[0] === '' && !quotedEmpty)) out.push({ line: recordLine, fields });
    fields = [];
    quotedEmpty = false;
    started = false;
  };

  function consume(char: string, out: CsvRecord[]): void {
    if (!started) {
      started = true;
      recordLine = line;
    }
    if (quotePending) {
      quotePending = false;
      if (char === QUOTE) {
        // A doubled quote inside a quoted field.
        addChar(QUOTE);
        inQuotes = true;
        return;
      }
      // The quote closed the field: only a separator or a line end may follow.
      if (char !== COMMA && char !== '\n' && char !== '\r')
        throw new CsvFormatError(recordLine, 'text after the closing quote of a field');
    }
    if (inQuotes) {
      if (char === QUOTE) {
        inQuotes = false;
        quotePending = true;
        return;
      }
      if (char === '\n') line++;
      addChar(char);
      return;
    }
    if (char === QUOTE) {
      if (field !== '' || quoted)
        throw new CsvFormatError(recordLine, 'a quote inside an unquoted field (quote the whole field)');
      quoted = true;
      quotedEmpty = true;
      inQuotes = true;
      return;
    }
    if (char === COMMA) {
      endField();
      return;
    }
    if (char === '\r') {
      pendingCarriageReturn = true;
      return;
    }
    if (char === '\n') {
      line++;
      endRecord(out);
      return;
    }
    addChar(char);
  }

  return {
    /** The records completed by this chunk. */
    feed(chunk: string): CsvRecord[] {
      const out: CsvRecord[] = [];
      for (let index = 0; index < chunk.length;) {
        const char = chunk[index]!;
        if (line === 1 && !started && char === '\uFEFF') {
          index++; // a byte-order mark
          continue;
        }
        if (pendingCarriageReturn) {
          pendingCarriageReturn = false;
          // CRLF ends the line once; a lone CR ends it like LF.
          if (char !== '\n') consume('\n', out);
        }
        // A run of characters that only extend the field is taken in one slice (most of any file), rather than
        // character by character: up to the next quote, separator or line end (in a quoted field: quote or LF).
        const special = inQuotes ? QUOTED_FIELD_SPECIAL : FIELD_SPECIAL;
        if (!quotePending && !special.includes(char)) {
          const pattern = inQuotes ? QUOTED_FIELD_STOP : FIELD_STOP;
          pattern.lastIndex = index;
          const stop = pattern.exec(chunk)?.index ?? chunk.length;
          if (!started) {
            started = true;
            recordLine = line;
          }
          addChar(chunk.slice(index, stop));
          index = stop;
          continue;
        }
        consume(char, out);
        index++;
      }
      return out;
    },

    /** The last record, when the text does not end with a line break; throws on an unclosed quote. */
    end(): CsvRecord[] {
      const out: CsvRecord[] = [];
      if (pendingCarriageReturn) {
        pendingCarriageReturn = false;
        consume('\n', out);
      }
      if (inQuotes) throw new CsvFormatError(recordLine, 'a quoted field is not closed');
      quotePending = false;
      if (started) endRecord(out);
      return out;
    },
  };
}
