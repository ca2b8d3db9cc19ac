// FalkorDB's GRAPH.CONFIG values as the browser API shows and sets them.
import { integerValue } from '../../platform/falkordb/compact-reply.js';
import type { GraphDatabase } from '../../platform/falkordb/graph-database.js';
import { BadRequestError } from '../../shared/http-errors.js';

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

/** The seed's rule: integers, parsed strictly (`12abc` is refused), except for `CMD_INFO`. */
export function parseConfigValue(name: string, value: string | number | undefined): string {
  if (value === undefined || value === '') throw new BadRequestError('Missing parameter value');
  const text = String(value).trim();
  if (name.toUpperCase() === STRING_VALUED) return text;
  if (!/^-?\d{1,19}$/.test(text)) throw new BadRequestError(`Invalid value for ${name}: must be an integer`);
  return text;
}

export function createConfigService() {
  return {
    async list(database: GraphDatabase): Promise<Record<string, number | string>> {
      const pairs = (await database.configGet('*')) as [string, unknown][];
      const configs: Record<string, number | string> = {};
      for (const [name, value] of pairs) configs[name] = presentConfigValue(name, value);
      return configs;
    },

    async read(database: GraphDatabase, name: string): Promise<number | string> {
      const pair = await database.configGet(name);
      return presentConfigValue(name, pair[1]);
    },

    async set(database: GraphDatabase, name: string, value: string | undefined): Promise<void> {
      const parsed = parseConfigValue(name, value);
      await database.configSet(name, parsed);
    },
  };
}

export type ConfigService = ReturnType<typeof createConfigService>;
