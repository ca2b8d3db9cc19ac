// CSRF defence of the cookie-authenticated admin API, on top of SameSite=Lax: a state-changing request
// sent by a browser must come from this server's own origin. Browsers say where a request comes from (`Origin` on
// every cross-origin and every non-GET request, `Sec-Fetch-Site` in current browsers); clients that are not
// browsers (the CLI, curl) send neither and are not at risk, since no other site can make them send a cookie.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError } from '../../http/http-errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const CROSS_SITE_REFUSED = 'Cross-site request refused: send it from the admin console of this server';

export interface RequestOrigin {
  method: string;
  origin: string | undefined;
  secFetchSite: string | undefined;
  host: string | undefined;
}

/**
 * Whether a request must be refused. With `Origin`: it must be PUBLIC_ORIGIN, or name the host the request was sent
 * to (port-forwarding reaches the same server as http://localhost:3000). Without it, `Sec-Fetch-Site` must be
 * `same-origin` or `none` (typed by the user). Neither: not a browser.
 */
export function isCrossSite(request: RequestOrigin, publicOrigin: string): boolean {
  if (SAFE_METHODS.has(request.method)) return false;
  if (request.origin !== undefined) {
    if (request.origin === new URL(publicOrigin).origin) return false;
    let host: string;
    try {
      host = new URL(request.origin).host;
    } catch {
      return true; // `null` (sandboxed frames, file: pages) or garbage
    }
    return request.host === undefined || host !== request.host.toLowerCase();
  }
  if (request.secFetchSite !== undefined)
    return request.secFetchSite !== 'same-origin' && request.secFetchSite !== 'none';
  return false;
}

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** onRequest hook for the admin plugin: 403 in the admin shape before any other question is asked. */
export function refuseCrossSiteRequests(publicOrigin: string) {
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    const { headers } = request;
    const crossSite = isCrossSite(
      {
        method: request.method,
        origin: header(headers.origin),
        secFetchSite: header(headers['sec-fetch-site']),
        host: header(headers.host),
      },
      publicOrigin,
    );
    done(crossSite ? new ForbiddenError(CROSS_SITE_REFUSED) : undefined);
  };
}
