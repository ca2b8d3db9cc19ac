// Whether the token's database answers: the browser API specification reports an unreachable database as 404.
import type { FastifyBaseLogger } from 'fastify';
import { HttpError } from '../../http/http-errors.js';
import { DATABASE_UNAVAILABLE } from '../../platform/falkordb/database-errors.js';
import type { DatabaseFor, Principal } from '../context.js';

/** `databaseFor` gives the database of a token's user. */
export function createStatusService({ databaseFor }: { databaseFor: DatabaseFor }) {
  return {
    /** `log` is the request's, so the reason carries its request id. */
    async status(principal: Principal, log: Pick<FastifyBaseLogger, 'info'>): Promise<'online'> {
      try {
        await databaseFor(principal).ping();
      } catch (error) {
        log.info({ err: { message: (error as Error).message } }, 'database unreachable');
        // The seed's status; the code says what happened.
        throw new HttpError(404, DATABASE_UNAVAILABLE, {}, undefined, 'unavailable');
      }
      return 'online';
    },
  };
}

export type StatusService = ReturnType<typeof createStatusService>;
