// The optional `params` of the query route: a JSON object of Cypher parameters, sent to FalkorDB as its
// `CYPHER name=value …` header (withParameters), so clients never splice values into query text.
import type { CypherValue } from '../../platform/falkordb/cypher.js';

export const PARAMS_MAX_BYTES = 64 * 1024;
const MAX_DEPTH = 32;

/** Why `value` is not a Cypher value within the depth bound, or undefined when it is one. */
function problemOf(value: unknown, depth: number): string | undefined {
  if (depth > MAX_DEPTH) return `values nest deeper than ${MAX_DEPTH} levels`;
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : 'numbers must be finite';
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = problemOf(item, depth + 1);
      if (problem) return problem;
    }
    return undefined;
  }
  if (typeof value === 'object') {
    for (const item of Object.values(value as Record<string, unknown>)) {
      const problem = problemOf(item, depth + 1);
      if (problem) return problem;
    }
    return undefined;
  }
  return `unsupported value type ${typeof value}`;
}

/** Why a JSON body's `params` object is not acceptable (its size as JSON text, its depth, its values), or undefined. */
export function queryParamsProblem(params: Record<string, unknown>): string | undefined {
  if (Buffer.byteLength(JSON.stringify(params)) > PARAMS_MAX_BYTES)
    return `params must be at most ${PARAMS_MAX_BYTES} bytes`;
  const problem = problemOf(params, 0);
  return problem ? `params: ${problem}` : undefined;
}

/** Parses `params` text: a JSON object whose values are Cypher values; names are checked when the header is built. */
export function parseQueryParams(text: string): { params: Record<string, CypherValue> } | { error: string } {
  if (Buffer.byteLength(text) > PARAMS_MAX_BYTES) return { error: `params must be at most ${PARAMS_MAX_BYTES} bytes` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { error: 'params must be a JSON object' };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return { error: 'params must be a JSON object' };
  const problem = problemOf(parsed, 0);
  return problem ? { error: `params: ${problem}` } : { params: parsed as Record<string, CypherValue> };
}
