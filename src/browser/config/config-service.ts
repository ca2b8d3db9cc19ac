// FalkorDB's GRAPH.CONFIG values as the browser API shows and sets them.
import { integerValue } from '../../platform/falkordb/compact-reply.js';
import type { GraphDatabase } from '../../platform/falkordb/graph-database.js';
import { BadRequestError } from '../../http/http-errors.js';
import { sameItems, writtenOncePerReply } from '../../lib/last-reply.js';
import { jsonString } from '../../lib/json-string.js';
import { onCallersDatabase, type DatabaseFor } from '../context.js';

const STRING_VALUED = 'CMD_INFO';

/** `CMD_INFO` is reported as the `yes`/`no` it is set with; other numbers stay numbers, text stays text. */
export function presentConfigValue(name: string, raw: unknown): number | string {
  if (typeof raw === 'number' && name.length !== STRING_VALUED.length) return raw; // the common case, without copies
  if (name.toUpperCase() === STRING_VALUED) {
    if (raw === 1 || raw === '1') return 'yes';
    if (raw === 0 || raw === '0') return 'no';
    return String(raw);
  }
  return typeof raw === 'number' ? raw : /^-?\d+$/.test(String(raw)) ? integerValue(raw) : String(raw);
}

/** The browser API specification's rule: integers, parsed strictly (`12abc` is refused), except for `CMD_INFO`. */
export function parseConfigValue(name: string, value: string | number | undefined): string {
  if (value === undefined || value === '') throw new BadRequestError('Missing parameter value');
  const text = String(value).trim();
  if (name.toUpperCase() === STRING_VALUED) return text;
  if (!/^-?\d{1,19}$/.test(text)) throw new BadRequestError(`Invalid value for ${name}: must be an integer`);
  return text;
}

/** GRAPH.CONFIG GET *'s reply: name/value pairs. */
type ConfigPairs = readonly (readonly [unknown, unknown])[];

/**
 * `JSON.stringify({ configs })` of GRAPH.CONFIG GET *'s name/value pairs, written as they are read: an object of some
 * forty properties built per request and then serialized cost about 5 µs of every `GET /api/graph/config`.
 * FalkorDB lists each name once; a server that repeated one would get a repeated key, whose last value JSON readers
 * keep, as the object did.
 */
export function configListJson(pairs: ConfigPairs): string {
  let json = '{"configs":{';
  for (let index = 0; index < pairs.length; index++) {
    const name = String(pairs[index]![0]);
    const value = presentConfigValue(name, pairs[index]![1]);
    const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : 'null') : jsonString(value);
    json += `${index === 0 ? '' : ','}${jsonString(name)}:${text}`;
  }
  return `${json}}}`;
}

/** Whether two replies hold the same names and values, in order (numbers and text compared by value). */
export const samePairs = (a: ConfigPairs, b: ConfigPairs): boolean =>
  a.length === b.length && a.every((pair, index) => sameItems(pair, b[index]!));

/** `databaseFor` gives the database of a token's user. */
export function createConfigService({ databaseFor }: { databaseFor: DatabaseFor }) {
  // The values change only when someone sets one.
  const listJsonOf = writtenOncePerReply(configListJson, samePairs);
  const onCallers = onCallersDatabase(databaseFor);
  return {
    /** Every value, as the JSON text of `{ configs }` (ConfigListSchema). */
    listJson: onCallers(async (database: GraphDatabase): Promise<string> =>
      listJsonOf((await database.configGet('*')) as [unknown, unknown][]),
    ),

    read: onCallers(async (database: GraphDatabase, name: string): Promise<number | string> => {
      const pair = await database.configGet(name);
      return presentConfigValue(name, pair[1]);
    }),

    set: onCallers(async (database: GraphDatabase, name: string, value: string | undefined): Promise<void> => {
      const parsed = parseConfigValue(name, value);
      await database.configSet(name, parsed);
    }),
  };
}

export type ConfigService = ReturnType<typeof createConfigService>;
