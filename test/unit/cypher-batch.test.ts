// Splitting an uploaded Cypher batch into statements: `;`-terminated or one per line, strings and
// comments respected, each statement with the line it starts on.
import { describe, expect, it } from 'vitest';
import {
  createBatchSplitter,
  createModeDetector,
  type BatchStatement,
} from '../../src/browser/imports/cypher-batch.js';

function split(text: string): { mode: string; statements: BatchStatement[] } {
  const lines = text.split('\n');
  const detector = createModeDetector();
  for (const line of lines) detector.feed(line);
  const splitter = createBatchSplitter(detector.mode());
  const statements = lines.flatMap((line) => splitter.feed(line));
  return { mode: detector.mode(), statements: [...statements, ...splitter.end()] };
}

describe('Cypher batches', () => {
  it('takes one statement per line when no line ends one with ;, skipping blanks and comments', () => {
    expect(split("CREATE (:A)\n\n// a comment\nCREATE (:B {url: 'http://x/y'}) // trailing\n")).toEqual({
      mode: 'line',
      statements: [
        { text: 'CREATE (:A)', line: 1 },
        { text: "CREATE (:B {url: 'http://x/y'})", line: 4 },
      ],
    });
  });

  it('splits at ; outside strings, keeps multi-line statements whole and reports where each starts', () => {
    const text =
      'CREATE (:A {t: \'a;b\'});\n\nMATCH (a:A)\n  SET a.x = "q\\";" // note; not an end\n  RETURN a; CREATE (:C);\nCREATE (:D)';
    expect(split(text)).toEqual({
      mode: 'semicolon',
      statements: [
        { text: "CREATE (:A {t: 'a;b'})", line: 1 },
        { text: 'MATCH (a:A)\n  SET a.x = "q\\";" \n  RETURN a', line: 3 },
        { text: 'CREATE (:C)', line: 5 },
        { text: 'CREATE (:D)', line: 6 },
      ],
    });
  });

  it('keeps a string that spans lines, comment markers inside it included', () => {
    expect(split("CREATE (:A {t: 'one\n// two; three'});").statements).toEqual([
      { text: "CREATE (:A {t: 'one\n// two; three'})", line: 1 },
    ]);
  });

  it('reads backtick names as names, where a backslash escapes nothing', () => {
    expect(split('CREATE (:`we\\ird;`);CREATE (:B);').statements.map((s) => s.text)).toEqual([
      'CREATE (:`we\\ird;`)',
      'CREATE (:B)',
    ]);
  });
});
