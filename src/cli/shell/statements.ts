// Splitting Cypher text into statements: a statement ends at a `;` outside quotes, backquoted names and comments, as
// cypher-shell and psql read a script. Pure, so the prompt and --file share it.

export interface Statement {
  text: string;
  /** The 1-based line the statement starts on, for error messages of a script. */
  line: number;
}

export interface SplitResult {
  statements: Statement[];
  /** Text after the last `;` (an unfinished statement: the prompt keeps reading lines into it). */
  rest: string;
  restLine: number;
}

/** Splits `text` (starting at line `firstLine`) into complete statements and what remains. */
export function splitStatements(text: string, firstLine = 1): SplitResult {
  const statements: Statement[] = [];
  let quote: string | undefined;
  let lineComment = false;
  let blockComment = false;
  let start = 0;
  let line = firstLine;
  let startLine = firstLine;
  let sawText = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '\n') line++;
    if (lineComment) {
      if (c === '\n') lineComment = false;
      continue;
    }
    if (blockComment) {
      if (c === '*' && next === '/') {
        blockComment = false;
        i++;
      }
      continue;
    }
    if (quote) {
      if (c === '\\' && quote !== '`') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '/' && next === '/') {
      lineComment = true;
      continue;
    }
    if (c === '/' && next === '*') {
      blockComment = true;
      i++;
      continue;
    }
    if (!sawText && !/\s/.test(c)) {
      sawText = true;
      startLine = line;
    }
    if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === ';') {
      const statement = text.slice(start, i).trim();
      if (statement && !isOnlyComments(statement)) statements.push({ text: statement, line: startLine });
      start = i + 1;
      sawText = false;
    }
  }
  return { statements, rest: text.slice(start), restLine: sawText ? startLine : line };
}

function isOnlyComments(text: string): boolean {
  return (
    text
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/[^\n]*/g, '')
      .trim() === ''
  );
}

/** A parameter value as typed: JSON when it parses (`42`, `"x"`, `[1,2]`, `{"a":1}`), else the text itself. */
export function parseParamValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
