// FalkorDB's user-defined function libraries through GRAPH.UDF: list, read, load, delete, flush.
import { isReplyError } from '../../platform/falkordb/database-errors.js';
import type { GraphDatabase } from '../../platform/falkordb/graph-database.js';
import {
  graphModuleVersion,
  parseUdfList,
  ServerCommands,
  type UdfLibrary,
} from '../../platform/falkordb/server-commands.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../http/http-errors.js';
import { onCallersDatabase, type DatabaseFor } from '../context.js';

/** GRAPH.UDF arrived with graph module 4.16.0. */
export const MIN_UDF_MODULE_VERSION = 41600;

/** GRAPH.UDF's refusals, as the browser API's statuses: a missing library 404, a taken name 409, bad code 400. */
function udfError(error: unknown, library: string): unknown {
  if (!isReplyError(error)) return error;
  if (/does not exist/i.test(error.message)) return new NotFoundError(`UDF library ${library} not found`);
  if (/already registered/i.test(error.message))
    return new ConflictError(`UDF library ${library} already exists (send "replace": true to replace it)`);
  return error;
}

/** `databaseFor` gives the database of a token's user. */
export function createUdfService({ databaseFor }: { databaseFor: DatabaseFor }) {
  const onCallers = onCallersDatabase(databaseFor);
  const commands = (database: GraphDatabase) => new ServerCommands(database);

  async function requireUdfSupport(database: GraphDatabase): Promise<void> {
    const version = graphModuleVersion(await commands(database).moduleList());
    if (version === undefined || version < MIN_UDF_MODULE_VERSION) {
      throw new BadRequestError(
        `UDF feature requires graph module version ${MIN_UDF_MODULE_VERSION} or higher. Current version: ${version ?? 'none'}`,
      );
    }
  }

  async function guarded<T>(database: GraphDatabase, library: string, work: () => Promise<T>): Promise<T> {
    await requireUdfSupport(database);
    try {
      return await work();
    } catch (error) {
      throw udfError(error, library);
    }
  }

  return {
    list: onCallers(async (database: GraphDatabase): Promise<UdfLibrary[]> =>
      guarded(database, '', async () => parseUdfList(await commands(database).udfList())),
    ),

    read: onCallers(async (database: GraphDatabase, library: string): Promise<Required<UdfLibrary>> =>
      guarded(database, library, async () => {
        const [found] = parseUdfList(await commands(database).udfList(library, true));
        if (!found) throw new NotFoundError(`UDF library ${library} not found`);
        return { name: found.name, functions: found.functions, code: found.code ?? '' };
      }),
    ),

    load: onCallers(async (database: GraphDatabase, library: string, code: string, replace: boolean): Promise<void> => {
      await guarded(database, library, () => commands(database).udfLoad(library, code, replace));
    }),

    remove: onCallers(async (database: GraphDatabase, library: string): Promise<void> => {
      await guarded(database, library, () => commands(database).udfDelete(library));
    }),

    flush: onCallers(async (database: GraphDatabase): Promise<void> => {
      await guarded(database, '', () => commands(database).udfFlush());
    }),
  };
}

export type UdfService = ReturnType<typeof createUdfService>;
