// The strict JSON body parser of both APIs, and JSON bodies sent as `text/plain`, accepted on the routes that opt in and refused everywhere else exactly as an
// undeclared media type is. `fetch` labels a string body `text/plain` when the caller sets no Content-Type, and the
// FalkorDB Browser's UI sends several of its JSON bodies that way.
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import { BadRequestError } from './http-errors.js';

type ContentTypeParser = (
  request: FastifyRequest,
  body: string | Buffer,
  done: (error: Error | null, body?: unknown) => void,
) => void;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads a JSON body sent with `Content-Type: text/plain` (no other route does). */
    plainTextJson?: boolean;
  }
}

/**
 * The JSON body parser both content types use: an empty body is no body (a route that needs one still answers 400
 * from its schema); anything else goes through Fastify's parser, which refuses `__proto__` and `constructor` keys.
 * A JSON `null` is refused here: Fastify hands a request without a body to the route as `null`, so a schema that
 * allows no body cannot tell the two apart, and no route's body is ever `null`.
 */
export function strictJsonBodyParser(scope: FastifyInstance): ContentTypeParser {
  const strictJson = scope.getDefaultJsonParser('error', 'error');
  return (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    void strictJson(request, text, (error, parsed) => {
      if (error === null && parsed === null) done(new BadRequestError(NULL_BODY_MESSAGE));
      else done(error, parsed);
    });
  };
}

const NULL_BODY_MESSAGE = 'body: expected an object, received null (send no body at all to leave it out)';

/**
 * Installs the parser in `scope`. Only for scopes whose routes authenticate with a header: a cross-site form can
 * send `text/plain` without a preflight, but never with an Authorization header, so no cookie route may opt in.
 */
export function acceptPlainTextJson(scope: FastifyInstance): void {
  const parseJson = strictJsonBodyParser(scope);
  scope.addContentTypeParser('text/plain', { parseAs: 'string' }, (request, body, done) => {
    if (request.routeOptions.config.plainTextJson !== true) {
      done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(request.headers['content-type']));
      return;
    }
    parseJson(request, body, done);
  });
}
