// Where a service account's token meets a request: the `Authorization: Bearer gdbsa_…` header, told apart from a
// session JWT by its prefix, and the failure throttle per client address around the service's check.
import { UnauthorizedError } from '../../http/http-errors.js';
import type { ServiceAccountCaller, ServiceAccountService } from './service-account-service.js';
import type { TokenThrottle } from './token-throttle.js';
import { TOKEN_PREFIX } from '../../lib/service-account-tokens.js';

const BEARER_PREFIX = `bearer ${TOKEN_PREFIX}`;
const CANONICAL_PREFIX = `Bearer ${TOKEN_PREFIX}`;

/** The token of `Authorization: Bearer gdbsa_…`, or undefined for any other header (a session's, or none). */
export function serviceAccountBearerOf(authorization: string | undefined): string | undefined {
  if (authorization === undefined || authorization.length < BEARER_PREFIX.length) return undefined;
  // The usual spelling is matched without a lowercased copy; the scheme is case-insensitive (RFC 9110).
  if (
    !authorization.startsWith(CANONICAL_PREFIX) &&
    authorization.slice(0, BEARER_PREFIX.length).toLowerCase() !== BEARER_PREFIX
  )
    return undefined;
  return authorization.slice('bearer '.length).trim();
}

export interface ServiceAccountAuthentication {
  /** The caller a token names from `address`; 429 while the address has failed too often, else 401 on failure. */
  authenticate(token: string, address: string): ServiceAccountCaller | Promise<ServiceAccountCaller>;
}

export function serviceAccountAuthentication(
  service: Pick<ServiceAccountService, 'authenticate'>,
  throttle: TokenThrottle,
): ServiceAccountAuthentication {
  const failed = (address: string, error: unknown) => {
    if (error instanceof UnauthorizedError) throttle.failed(address);
    return error;
  };
  return {
    authenticate(token, address) {
      throttle.check(address);
      let caller: ServiceAccountCaller | Promise<ServiceAccountCaller>;
      try {
        caller = service.authenticate(token, address);
      } catch (error) {
        throw failed(address, error);
      }
      return caller instanceof Promise
        ? caller.catch((error: unknown) => {
            throw failed(address, error);
          })
        : caller;
    },
  };
}
