// The browser API specification names some parameters as query parameters (`sourceName`, `value`, `role`) while the FalkorDB Browser sends
// them in a JSON body: the body's copy is moved into the query before validation, so one schema, in the query
// string, says what is required and the OpenAPI document tells the truth.
import type { FastifyReply, FastifyRequest } from 'fastify';

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
