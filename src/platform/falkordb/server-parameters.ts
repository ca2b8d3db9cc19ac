// FalkorDB's configuration parameters, split by whether GRAPH.CONFIG SET can change them at run time.
export const DYNAMIC_PARAMETERS = new Set([
  'TIMEOUT',
  'TIMEOUT_DEFAULT',
  'TIMEOUT_MAX',
  'RESULTSET_SIZE',
  'MAX_QUEUED_QUERIES',
  'QUERY_MEM_CAPACITY',
  'VKEY_MAX_ENTITY_COUNT',
  'CMD_INFO',
  'MAX_INFO_QUERIES',
  'DELTA_MAX_PENDING_CHANGES',
  'EFFECTS_THRESHOLD',
]);

export const STATIC_PARAMETERS = new Set([
  'THREAD_COUNT',
  'CACHE_SIZE',
  'OMP_THREAD_COUNT',
  'NODE_CREATION_BUFFER',
  'BOLT_PORT',
  'ASYNC_DELETE',
  'IMPORT_FOLDER',
  'TEMP_FOLDER',
  'DELAY_INDEXING',
]);

export function isKnownParameter(key: string): boolean {
  return DYNAMIC_PARAMETERS.has(key) || STATIC_PARAMETERS.has(key);
}

const YES_NO = /^(yes|no)$/i;
const NON_NEGATIVE = /^\d{1,15}$/;
const POSITIVE = /^[1-9]\d{0,14}$/;
const PORT = /^([1-9]\d{0,3}|[1-5]\d{4}|6[0-4]\d{3}|65[0-4]\d{2}|655[0-2]\d|6553[0-5])$/;
const ABSOLUTE_PATH = /^\/[^\0\s]{0,4095}$/;

/** The values each known parameter takes (FalkorDB's configuration reference); what is not listed takes an integer ≥ 0. */
const VALUE_RULES: Record<string, { pattern: RegExp; says: string }> = {
  CMD_INFO: { pattern: YES_NO, says: 'yes or no' },
  ASYNC_DELETE: { pattern: YES_NO, says: 'yes or no' },
  DELAY_INDEXING: { pattern: YES_NO, says: 'yes or no' },
  THREAD_COUNT: { pattern: POSITIVE, says: 'an integer of at least 1' },
  OMP_THREAD_COUNT: { pattern: POSITIVE, says: 'an integer of at least 1' },
  NODE_CREATION_BUFFER: { pattern: POSITIVE, says: 'an integer of at least 1' },
  RESULTSET_SIZE: { pattern: /^(-1|\d{1,15})$/, says: 'an integer of at least 0, or -1 (unlimited)' },
  BOLT_PORT: { pattern: PORT, says: 'a port number (1-65535)' },
  IMPORT_FOLDER: { pattern: ABSOLUTE_PATH, says: 'an absolute path' },
  TEMP_FOLDER: { pattern: ABSOLUTE_PATH, says: 'an absolute path' },
};

/** Why a value does not fit a known parameter, or undefined when it does. */
export function parameterValueProblem(key: string, value: string): string | undefined {
  const rule = VALUE_RULES[key] ?? { pattern: NON_NEGATIVE, says: 'an integer of at least 0' };
  return rule.pattern.test(value) ? undefined : `${key} takes ${rule.says} (got ${JSON.stringify(value)})`;
}

/** Whether a change of the parameter takes effect only after the server restarts. */
export const needsRestart = (key: string): boolean => STATIC_PARAMETERS.has(key);
