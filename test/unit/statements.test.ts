// The shell's statement splitter and its writers of streamed results.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { resultWriter, type Format } from '../../src/cli/shell/formats.js';
import { parseParamValue, splitStatements } from '../../src/cli/shell/statements.js';

describe('splitStatements', () => {
  it('ends a statement at a semicolon outside strings, names and comments, and keeps the rest', () => {
    const { statements, rest } = splitStatements(
      'RETURN \'a;b\' AS `x;y`;\n// c;\nMATCH (n)\n/* ; */ RETURN "q\\";" AS z;\nRETURN 1',
    );
    expect(statements).toEqual([
      { text: "RETURN 'a;b' AS `x;y`", line: 1 },
      { text: '// c;\nMATCH (n)\n/* ; */ RETURN "q\\";" AS z', line: 3 },
    ]);
    expect(rest.trim()).toBe('RETURN 1');
  });
  it('skips empty statements and comment-only ones', () => {
    expect(splitStatements(';;\n// only;\n').statements).toEqual([]);
  });
});

describe('parseParamValue', () => {
  it('reads JSON when it parses, else the text', () => {
    expect(parseParamValue('42')).toBe(42);
    expect(parseParamValue('"42"')).toBe('42');
    expect(parseParamValue('[1,"a"]')).toEqual([1, 'a']);
    expect(parseParamValue('Ada')).toBe('Ada');
  });
});

async function render(format: Format, columns: string[], rows: Record<string, unknown>[]): Promise<string> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const writer = resultWriter(format, out);
  await writer.header(columns);
  for (const row of rows) await writer.row(row);
  await writer.end();
  return text;
}

describe('result writers', () => {
  const rows = [
    { name: 'Ada', tags: ['a', 'b'], note: 'x,"y"' },
    { name: 'Grace', tags: [], note: null },
  ];
  it('csv quotes what needs it and writes nested values as JSON', async () => {
    expect(await render('csv', ['name', 'tags', 'note'], rows)).toBe(
      'name,tags,note\r\nAda,"[""a"",""b""]","x,""y"""\r\nGrace,[],\r\n',
    );
  });
  it('json is one array, ndjson one object a line', async () => {
    expect(JSON.parse(await render('json', ['name', 'tags', 'note'], rows))).toEqual(rows);
    expect(JSON.parse(await render('json', ['n'], []))).toEqual([]);
    expect(
      (await render('ndjson', ['name', 'tags', 'note'], rows))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual(rows);
  });
  it('table aligns columns', async () => {
    expect(await render('table', ['name', 'tags'], rows)).toBe(
      'name  | tags\n------+----------\nAda   | ["a","b"]\nGrace | []\n',
    );
  });
});
