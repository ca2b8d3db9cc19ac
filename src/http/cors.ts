// Cross-origin access to the browser API (CORS_ORIGINS): pages on the listed origins may call it with a bearer token.
// Credentials (cookies) are never allowed cross-origin: the browser API does not read them, and the admin API, whose
// session is a cookie, gets no CORS headers at all, so a page elsewhere can neither read nor drive it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { commaSeparated } from '../lib/comma-list.js';
import { errorBody } from './error-shapes.js';

/** `*` (any origin: safe only because credentials are never allowed), or exact origins `scheme://host[:port]`. */
export type CorsOrigins = '*' | readonly string[];

export function parseCorsOrigins(text: string | undefined): CorsOrigins {
  const entries = commaSeparated(text ?? '');
  if (entries.length === 1 && entries[0] === '*') return '*';
  return entries.map((entry) => {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new Error(`CORS_ORIGINS: ${JSON.stringify(entry)} is not an origin such as https://console.example`);
    }
    // An origin is exactly scheme://host[:port]: a path, query or user part would never match what browsers send.
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== entry.replace(/\/$/, '')) {
      throw new Error(
        `CORS_ORIGINS: ${JSON.stringify(entry)} is not an origin (scheme://host[:port], no path), or use * alone`,
      );
    }
    return url.origin;
  });
}

const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE';
const ALLOWED_HEADERS = 'authorization, content-type, accept, x-request-id';
const EXPOSED_HEADERS = 'x-request-id, retry-after, content-disposition';
/** How long a browser may reuse a preflight's answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

export function isAllowedOrigin(origin: string, allowed: CorsOrigins): boolean {
  return allowed === '*' || allowed.includes(origin);
}

/** The headers an answer to `origin` carries; none for an origin that is not allowed. */
export function corsHeaders(origin: string, allowed: CorsOrigins, preflight: boolean): Record<string, string> {
  if (!isAllowedOrigin(origin, allowed)) return {};
  const common = { 'access-control-allow-origin': allowed === '*' ? '*' : origin, vary: 'Origin' };
  if (!preflight) return { ...common, 'access-control-expose-headers': EXPOSED_HEADERS };
  return {
    ...common,
    'access-control-allow-methods': ALLOWED_METHODS,
    'access-control-allow-headers': ALLOWED_HEADERS,
    'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
  };
}

/**
 * Answers preflights of the browser API's paths (204 for an allowed origin, 403 otherwise) and adds the CORS headers
 * to its answers. Runs first, so a preflight never reaches authentication (browsers send it without a token).
 */
export function enableCors(app: FastifyInstance, allowed: CorsOrigins, isBrowserPath: (url: string) => boolean): void {
  if (allowed !== '*' && allowed.length === 0) return;
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    const origin = request.headers.origin;
    if (typeof origin !== 'string' || !isBrowserPath(request.url)) return done();
    const preflight = request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
    void reply.headers(corsHeaders(origin, allowed, preflight));
    if (!preflight) return done();
    if (!isAllowedOrigin(origin, allowed)) {
      void reply
        .code(403)
        .send(errorBody('browser', 403, `Origin ${origin} is not allowed (see CORS_ORIGINS)`, 'forbidden'));
      return;
    }
    void reply.code(204).send();
  });
}
