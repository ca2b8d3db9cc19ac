// redis.conf as key/value pairs, in file order: what GET /api/clusters/{clusterName}/config reports.

export interface ConfigParameter {
  key: string;
  value: string;
}

/**
 * One pair per directive line. Comments and blank lines are skipped; a directive given twice (`save`, `loadmodule`)
 * stays twice, because redis.conf means both. The value is the rest of the line as written (quotes kept): the file's
 * own text, not an interpretation of it.
 */
export function parseRedisConf(text: string): ConfigParameter[] {
  const parameters: ConfigParameter[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const space = line.search(/\s/);
    if (space === -1) parameters.push({ key: line, value: '' });
    else parameters.push({ key: line.slice(0, space), value: line.slice(space).trim() });
  }
  return parameters;
}

/** CONFIG GET's reply (a flat RESP2 array or a RESP3 map) as pairs sorted by key. */
export function configGetPairs(reply: unknown): ConfigParameter[] {
  const entries: [string, string][] = [];
  if (Array.isArray(reply)) {
    for (let at = 0; at + 1 < reply.length; at += 2) entries.push([String(reply[at]), String(reply[at + 1])]);
  } else if (reply instanceof Map) {
    for (const [key, value] of reply as Map<unknown, unknown>) entries.push([String(key), String(value)]);
  } else if (reply && typeof reply === 'object') {
    for (const [key, value] of Object.entries(reply)) entries.push([key, String(value)]);
  }
  return entries.sort(([a], [b]) => a.localeCompare(b)).map(([key, value]) => ({ key, value }));
}

/**
 * Directives that hold or name a credential: never reported. `user` lines carry ACL passwords (`>secret`) or their
 * hashes; the others are the server's and its replication's passwords.
 */
const CREDENTIAL_DIRECTIVE = /^(user|requirepass|masterauth|masteruser|sentinel-pass|sentinel-user|.*-pass(word)?)$/i;

export const isCredentialDirective = (key: string): boolean => CREDENTIAL_DIRECTIVE.test(key);
