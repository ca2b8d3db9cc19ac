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
