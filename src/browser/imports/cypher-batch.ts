// Splitting an uploaded Cypher batch into statements, line by line, so a file of any length is read in bounded
// memory. A file that ends statements with `;` (outside strings and comments) is split at those; one without any is
// one statement per line. Each statement keeps the line it starts on, for error reports.

export type BatchMode = 'semicolon' | 'line';

export interface BatchStatement {
  text: string;
  /** 1-based line of the statement's first character. */
  line: number;
}

interface ScanState {
  /** The quote character a string is open with, or undefined. */
  quote: string | undefined;
  escaped: boolean;
}

/**
 * Walks one line: calls `onTerminator(index)` for each `;` outside strings, and stops at a `//` comment outside
 * strings (returns where the code part ends). Quotes opened on one line stay open on the next (multi-line strings).
 */
function scanLine(line: string, state: ScanState, onTerminator: (index: number) => void): number {
  for (let index = 0; index < line.length; index++) {
    const char = line[index]!;
    if (state.quote !== undefined) {
      if (state.escaped) state.escaped = false;
      else if (char === '\\' && state.quote !== '`') state.escaped = true;
      else if (char === state.quote) state.quote = undefined;
      continue;
    }
    if (char === "'" || char === '"' || char === '`') state.quote = char;
    else if (char === ';') onTerminator(index);
    else if (char === '/' && line[index + 1] === '/') return index;
  }
  return line.length;
}

/** Whether a batch's lines end statements with `;` (the first pass over an uploaded file). */
export function createModeDetector() {
  const state: ScanState = { quote: undefined, escaped: false };
  let terminators = 0;
  return {
    feed(line: string): void {
      scanLine(line, state, () => terminators++);
    },
    mode(): BatchMode {
      return terminators > 0 ? 'semicolon' : 'line';
    },
  };
}

/** Turns lines into statements for `mode`; `feed` returns the statements the line completed. */
export function createBatchSplitter(mode: BatchMode) {
  const state: ScanState = { quote: undefined, escaped: false };
  let pending = '';
  let pendingLine = 0;
  let lineNumber = 0;

  const take = (text: string, line: number, out: BatchStatement[]) => {
    const trimmed = text.trim();
    if (trimmed !== '') out.push({ text: trimmed, line });
  };

  return {
    feed(line: string): BatchStatement[] {
      lineNumber++;
      const out: BatchStatement[] = [];
      if (mode === 'line') {
        const lineState: ScanState = { quote: undefined, escaped: false };
        const codeEnd = scanLine(line, lineState, () => undefined);
        take(line.slice(0, codeEnd), lineNumber, out);
        return out;
      }
      let start = 0;
      const codeEnd = scanLine(line, state, (index) => {
        const piece = line.slice(start, index);
        if (pending.trim() === '' && piece.trim() !== '') pendingLine = lineNumber;
        take(pending + piece, pendingLine, out);
        pending = '';
        start = index + 1;
      });
      const rest = line.slice(start, state.quote === undefined ? codeEnd : line.length);
      if (pending.trim() === '' && rest.trim() !== '') pendingLine = lineNumber;
      pending += rest + '\n';
      return out;
    },
    /** The statement after the last `;`, if any text is left. */
    end(): BatchStatement[] {
      const out: BatchStatement[] = [];
      if (mode === 'semicolon') take(pending, pendingLine, out);
      pending = '';
      return out;
    },
  };
}
