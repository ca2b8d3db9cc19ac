// JSON bodies sent as `text/plain`, accepted on the routes that opt in and refused everywhere else exactly as an
// undeclared media type is. `fetch` labels a string body `text/plain` when the caller sets no Content-Type, and the
// FalkorDB Browser's UI sends several of its JSON bodies that way.
import { errorCodes, type FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads a JSON body sent with `Content-Type: text/plain` (no other route does). */
    plainTextJson?: boolean;
  }
}

/**
 * Installs the parser in `scope`. Only for scopes whose routes authenticate with a header: a cross-site form can
 * send `text/plain` without a preflight, but never with an Authorization header, so no cookie route may opt in.
 */
export function acceptPlainTextJson(scope: FastifyInstance): void {
  // The same strictness as `application/json`: `__proto__` and `constructor` keys are refused.
  const strictJson = scope.getDefaultJsonParser('error', 'error');
  scope.addContentTypeParser('text/plain', { parseAs: 'string' }, (request, body, done) => {
    if (request.routeOptions.config.plainTextJson !== true) {
      done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(request.headers['content-type']));
      return;
    }
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    void strictJson(request, text, done);
  });
}
