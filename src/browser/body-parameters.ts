// The browser API specification names some parameters as query parameters (`sourceName`, `value`, `role`) while the FalkorDB Browser sends
// them in a JSON body: the body's copy is moved into the query before validation, so one schema, in the query
// string, says what is required and the OpenAPI document tells the truth.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BadRequestError } from '../http/http-errors.js';

export function hoistBodyParameter(name: string) {
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    const query = request.query as Record<string, unknown>;
    const body = request.body as Record<string, unknown> | null | undefined;
    const fromBody = body && typeof body === 'object' ? body[name] : undefined;
    if (query[name] === undefined && (typeof fromBody === 'string' || typeof fromBody === 'number')) {
      request.query = { ...query, [name]: String(fromBody) };
    }
    done();
  };
}

/**
 * Accepts a query parameter under its older name as well: the value given as `alias` is validated as `name`. Both
 * at once are refused rather than one dropped.
 */
export function queryParameterAlias(alias: string, name: string) {
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    const query = request.query as Record<string, unknown>;
    if (query[alias] === undefined) return done();
    if (query[name] !== undefined)
      return done(new BadRequestError(`Invalid parameter ${alias}: send ${name} or ${alias}, not both`));
    const { [alias]: value, ...rest } = query;
    request.query = { ...rest, [name]: value };
    done();
  };
}
