// Refuses queries whose LOAD CSV would make the database fetch a URL: only file:// imports, and URLs
// under CSV_URL_ALLOWLIST, pass.
import { isUnderUrlPrefix } from '../../lib/url-allowlist.js';

export type CypherToken =
  { kind: 'word'; text: string } | { kind: 'string'; text: string } | { kind: 'other'; text: string };

/**
 * A lexer just good enough to find clauses: string literals, backtick identifiers and comments are skipped as
 * units, so `LOAD /* c *\/ CSV` is still seen and a `LOAD CSV` inside a string is not.
 */
export function cypherTokens(query: string): CypherToken[] {
  const tokens: CypherToken[] = [];
  let i = 0;
  while (i < query.length) {
    const c = query[i]!;
    if (/\s/.test(c)) i++;
    else if (query.startsWith('//', i)) {
      const end = query.indexOf('\n', i);
      i = end === -1 ? query.length : end + 1;
    } else if (query.startsWith('/*', i)) {
      const end = query.indexOf('*/', i + 2);
      i = end === -1 ? query.length : end + 2;
    } else if (c === "'" || c === '"' || c === '`') {
      let text = '';
      let j = i + 1;
      while (j < query.length && query[j] !== c) {
        if (query[j] === '\\' && c !== '`' && j + 1 < query.length) j++;
        text += query[j];
        j++;
      }
      if (c !== '`') tokens.push({ kind: 'string', text });
      else tokens.push({ kind: 'other', text });
      i = j + 1;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < query.length && /\w/.test(query[j]!)) j++;
      tokens.push({ kind: 'word', text: query.slice(i, j).toUpperCase() });
      i = j;
    } else {
      tokens.push({ kind: 'other', text: c });
      i++;
    }
  }
  return tokens;
}

/** A file:// URL without parent-directory steps stays inside FalkorDB's import folder. */
function isAllowedSource(url: string, allowlist: readonly string[]): boolean {
  if (/^file:\/\//i.test(url) && !url.includes('..')) return true;
  return allowlist.some((prefix) => isUnderUrlPrefix(url, prefix));
}

const REFUSED = 'LOAD CSV may only read file:// URLs given as a string literal';
const REFUSED_WITH_ALLOWLIST =
  'LOAD CSV may only read file:// URLs, or URLs under CSV_URL_ALLOWLIST, given as a string literal';

/** The reason a query is refused, or undefined when every LOAD CSV in it reads an allowed literal source. */
export function loadCsvViolation(query: string, allowlist: readonly string[] = []): string | undefined {
  // A LOAD keyword is made of those four letters in the text (Cypher has no escapes outside strings): a query
  // without them, almost every query, skips the lexer (about 1 µs of the small query's CPU).
  if (!/load/i.test(query)) return undefined;
  const refused = allowlist.length === 0 ? REFUSED : REFUSED_WITH_ALLOWLIST;
  const tokens = cypherTokens(query);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind !== 'word' || token.text !== 'LOAD') continue;
    const next = tokens[i + 1];
    if (next?.kind !== 'word' || next.text !== 'CSV') continue;
    let k = i + 2;
    if (tokens[k]?.kind === 'word' && tokens[k]!.text === 'WITH') k += 2; // WITH HEADERS
    if (tokens[k]?.kind === 'word' && tokens[k]!.text === 'FROM') k++;
    const source = tokens[k];
    const after = tokens[k + 1];
    // Anything but a lone literal (a parameter, a concatenation, a function call) cannot be checked: refuse it.
    if (source?.kind !== 'string' || after?.kind !== 'word' || after.text !== 'AS') return refused;
    if (!isAllowedSource(source.text, allowlist)) return refused;
  }
  return undefined;
}
