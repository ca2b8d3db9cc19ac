// Building Cypher text safely: identifiers are backtick-quoted or refused, values travel as CYPHER parameters.
import { PortError } from '../port-errors.js';

export type CypherValue = null | boolean | number | string | CypherValue[] | { [key: string]: CypherValue };

/** Input that cannot be made into safe Cypher: the caller's to fix (400). */
export class CypherInputError extends PortError {
  constructor(message: string) {
    super('rejected', message);
    this.name = 'CypherInputError';
  }
}

const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * FalkorDB does not support the doubled-backtick escape inside quoted identifiers, so a name that contains
 * a backtick (or NUL, which its parser treats as the end of the text) cannot be quoted safely and is refused.
 */
export function quoteIdentifier(name: string, what = 'identifier'): string {
  if (name.length === 0) throw new CypherInputError(`${what} must not be empty`);
  if (name.includes('`') || name.includes('\0'))
    throw new CypherInputError(`${what} must not contain backticks or NUL characters`);
  return `\`${name}\``;
}

function stringLiteral(value: string): string {
  if (value.includes('\0')) throw new CypherInputError('values must not contain NUL characters');
  // Most values need no escape: skip the two replacements for them.
  if (!value.includes('\\') && !value.includes('"')) return `"${value}"`;
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function cypherLiteral(value: CypherValue): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new CypherInputError('numbers must be finite');
      return Number.isInteger(value) && Math.abs(value) > Number.MAX_SAFE_INTEGER
        ? value.toExponential()
        : String(value);
    case 'string':
      return stringLiteral(value);
    case 'object':
      if (Array.isArray(value)) return `[${value.map(cypherLiteral).join(', ')}]`;
      return `{${Object.entries(value)
        .map(([key, entry]) => `${quoteIdentifier(key, 'map key')}: ${cypherLiteral(entry)}`)
        .join(', ')}}`;
    case 'bigint':
    case 'function':
    case 'symbol':
    case 'undefined':
      throw new CypherInputError(`unsupported value type ${typeof value}`);
  }
}

/**
 * The literal of a list of text rows, the same text `cypherLiteral` gives for them: with `keys`, each row a map of
 * key to field (`[{`a`: "1", `b`: "x"}, ...]`), else a list of fields. Built straight from the fields, without an
 * object per row, for loads of many rows (CSV).
 */
export function textRowsLiteral(rows: readonly (readonly string[])[], keys?: readonly string[]): string {
  const prefixes = keys?.map((key, index) => `${index === 0 ? '{' : ', '}${quoteIdentifier(key, 'map key')}: `);
  const row = prefixes
    ? (fields: readonly string[]) => {
        let text = '';
        for (let index = 0; index < prefixes.length; index++) text += prefixes[index] + stringLiteral(fields[index]!);
        return prefixes.length === 0 ? '{}' : `${text}}`;
      }
    : (fields: readonly string[]) => `[${fields.map(stringLiteral).join(', ')}]`;
  return `[${rows.map(row).join(', ')}]`;
}

/** The query with FalkorDB's parameter header for one parameter whose value is already Cypher literal text. */
export function withParameterText(query: string, name: string, literal: string): string {
  if (!PARAMETER_NAME.test(name)) throw new CypherInputError(`invalid parameter name ${name}`);
  return `CYPHER ${name}=${literal} ${query}`;
}

/** Prefixes the query with FalkorDB's `CYPHER name=value ...` parameter header. */
export function withParameters(query: string, parameters: Record<string, CypherValue>): string {
  const header = Object.entries(parameters).map(([name, value]) => {
    if (!PARAMETER_NAME.test(name)) throw new CypherInputError(`invalid parameter name ${name}`);
    return `${name}=${cypherLiteral(value)}`;
  });
  return header.length === 0 ? query : `CYPHER ${header.join(' ')} ${query}`;
}
